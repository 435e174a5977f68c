// Command tuplegroups assigns the fields of a field group from a call
// with several results, in one tuple assignment: the stores follow the
// call, and the group's check must follow them and cover every field.
package main

import (
	"fmt"
	"io"
	"sync"
)

// An attach's own, object and top are one group of three bools.
type attach struct {
	in     []byte
	pos    int
	base   int64
	r      io.Reader
	own    bool
	object bool
	top    bool
	count  int64
}

// placeBefore returns the place before start in in; it panics if start
// is out of range.
func placeBefore(in []byte, start int64) (int, bool, bool, int64) {
	i := start - 1
	for i >= 0 && in[i] == ' ' {
		i--
	}
	return int(i), in[start] == '{', i < 0, start / 2
}

type state struct {
	att attach
}

func (st *state) place(in []byte, start int64, top bool) {
	att := &st.att
	att.r, att.own = nil, false
	if top {
		att.pos, att.object, att.top, att.count = placeBefore(in, start)
		return
	}
	att.pos, att.object, att.top, att.count = int(start), in[0] == '[', len(in) == 1, start
}

func main() {
	var wg sync.WaitGroup
	sts := make([]state, 4)
	in := []byte("  {\"a\": [1, 2]}")
	for i := range sts {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			sts[i].place(in, int64(2+i), i%2 == 0)
		}(i)
	}
	wg.Wait()
	for _, st := range sts {
		fmt.Println(st.att.pos, st.att.object, st.att.top, st.att.count)
	}
}
