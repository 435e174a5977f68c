package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// stacksSrc races once per case (its argument) where the stacks of the
// two accesses are what tells the user which call raced: a helper called
// from two lines, or from one line on two objects; a race inside
// strings.Builder and bytes.Buffer called from the user's code; a loop
// whose checks slimstate and bigfoot defer to the function's return or
// later, as the earlier access and as the later one. The earlier access
// runs in a goroutine that ends before the later one, with no
// synchronization either detector sees (early), so each report is the
// same in every run.
const stacksSrc = `package main

import (
	"bytes"
	"os"
	"runtime"
	"strings"
)

type vec struct{ x, y, z float64 }

func helper(p *vec, a float64) {
	p.y = a
}

// twice calls helper on one vector from two lines.
func twice(p *vec) {
	helper(p, 1)
	helper(p, 2)
}

// pair calls helper on two vectors from two lines.
func pair(p, q *vec) {
	helper(p, 1)
	helper(q, 2)
}

func outer(p *vec) { twice(p) }

func say(b *strings.Builder, s string) { b.WriteString(s) }

func put(b *bytes.Buffer, s string) { b.WriteString(s) }

// fill writes every element of s: slimstate and bigfoot defer the
// checks of its loop.
func fill(s []int, v int) {
	for i := range s {
		s[i] = v
	}
}

// early runs f in a goroutine and returns once it has ended: no
// synchronization orders f's accesses before the caller's next ones.
func early(f func()) {
	go f()
	for runtime.NumGoroutine() > 1 {
		runtime.Gosched()
	}
}

func main() {
	switch os.Args[1] {
	case "twice":
		p := &vec{}
		early(func() { outer(p) })
		println(p.y)
	case "pair":
		p, q := &vec{}, &vec{}
		early(func() { pair(p, q) })
		println(q.y)
	case "builder":
		var b strings.Builder
		early(func() { say(&b, "a") })
		say(&b, "b")
	case "buffer":
		var b bytes.Buffer
		early(func() { put(&b, "a") })
		put(&b, "b")
	case "fillprev":
		a, b := make([]int, 8), make([]int, 8)
		early(func() {
			fill(a, 1)
			fill(b, 2)
		})
		println(b[3])
	case "fillcur":
		a, b := make([]int, 8), make([]int, 8)
		early(func() { b[3] = 1 })
		fill(a, 1)
		fill(b, 2)
	}
}
`

// reportFrame matches a frame of a report's stack: function, file:line.
var reportFrame = regexp.MustCompile(`^  ([^ ]*)\(\)\n +([^ \n]*:\d+)`)

// A reportedAccess is an access of a race report: its header's first
// word (Read, Write, Previous) and kind, and its stack's frames as
// "function file:line", the file's base name.
type reportedAccess struct {
	kind   string
	frames []string
}

// reportedAccesses returns the current and the previous access of the
// first race report in out.
func reportedAccesses(out string) []reportedAccess {
	_, rep, ok := strings.Cut(out, "WARNING: DATA RACE\n")
	if !ok {
		return nil
	}
	rep, _, _ = strings.Cut(rep, "==================")
	var accs []reportedAccess
	for _, sec := range strings.Split(rep, "\n\n") {
		head, body, _ := strings.Cut(sec, "\n")
		if !strings.Contains(head, " at 0x") {
			continue
		}
		kind, _, _ := strings.Cut(head, " at 0x")
		a := reportedAccess{kind: kind}
		for body != "" {
			m := reportFrame.FindStringSubmatch(body)
			if m == nil {
				a.frames = append(a.frames, strings.TrimSpace(strings.SplitN(body, "\n", 2)[0]))
				break
			}
			a.frames = append(a.frames, m[1]+" "+filepath.Base(m[2]))
			_, body, _ = strings.Cut(body[len(m[0]):], "\n")
		}
		accs = append(accs, a)
	}
	return accs
}

// sameStack reports whether got shows what want (go -race's) shows of
// an access: its kind, its top frame, and every frame of the program's
// package main in want, in order.
func sameStack(got, want reportedAccess) bool {
	return len(got.frames) > 0 && len(want.frames) > 0 && got.frames[0] == want.frames[0] && sameUserFrames(got, want)
}

// TestSameStacks: in each mode of modes, both accesses of a race are reported
// with the stacks go -race prints for them, as far as the program's own
// frames go: the earlier access's stack restored from the history
// (docs/runtime.md, "The history"), through a helper called twice, a
// standard container and a deferred loop check; the later access's
// stack, a deferred check's included, its call path rather than where
// the check was made.
func TestSameStacks(t *testing.T) {
	compareStacks(t, "example.com/stacks", stacksSrc, []string{"twice", "pair", "builder", "buffer", "fillprev", "fillcur"}, sameStack)
}

// compareStacks builds src as module path under go -race and in every
// mode, runs each case (the program's argument), and checks that both
// accesses of the first race each tool reports are the same as go
// -race's by same.
func compareStacks(t *testing.T, path, src string, cases []string, same func(got, want reportedAccess) bool) {
	if bigfootBin == "" {
		t.Skip("end-to-end test; skipped with -short")
	}
	dir := writeModule(t, map[string]string{
		"go.mod":  "module " + path + "\n\ngo 1.23\n",
		"main.go": src,
	})
	tools := append([]string{"race"}, modes...)
	for _, tool := range tools {
		buildBinary(t, dir, tool, filepath.Join(dir, tool))
	}
	for _, c := range cases {
		t.Run(c, func(t *testing.T) {
			var want []reportedAccess
			for _, tool := range tools {
				_, r := raceRuns(t, filepath.Join(dir, tool), 1, c)
				got := reportedAccesses(r.stderr)
				if tool == "race" {
					if len(got) != 2 {
						t.Fatalf("go -race reported no race:\n%v", r)
					}
					want = got
					continue
				}
				if len(got) != 2 || !same(got[0], want[0]) || !same(got[1], want[1]) {
					t.Errorf("%s: accesses\n%v\nwant (go -race)\n%v\nreport:\n%s", tool, got, want, r.stderr)
				}
			}
		})
	}
}

// hookSrc races once per case where the earlier access is one the
// runtime checks itself, not an instrumented line: a call of an
// iter.Pull's next, an atomic add, a Mutex's Lock (detector/hooksites.go).
const hookSrc = `package main

import (
	"iter"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
)

var (
	n  int64
	mu sync.Mutex
)

func bump() { atomic.AddInt64(&n, 1) }

func lock() {
	mu.Lock()
	mu.Unlock()
}

func count(k int) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := 0; i < k; i++ {
			if !yield(i) {
				return
			}
		}
	}
}

// early runs f in a goroutine and returns once it has ended: no
// synchronization orders f's accesses before the caller's next ones.
func early(f func()) {
	k := runtime.NumGoroutine()
	go f()
	for runtime.NumGoroutine() > k {
		runtime.Gosched()
	}
}

func main() {
	switch os.Args[1] {
	case "pull":
		next, stop := iter.Pull(count(10))
		early(func() { next() })
		next()
		stop()
	case "atomic":
		early(bump)
		n = 2
	case "lock":
		early(lock)
		mu = sync.Mutex{}
	}
}
`

// TestSameHookStacks: in each mode of modes, when an access of a race is one the
// runtime checks itself, both accesses are reported with their kind as
// go -race prints it and with every frame of package main go -race shows,
// in order: the user's earlier call of a Pull's next restored from the
// history; an earlier atomic add or Lock, of which go -race shows no
// caller, as the write go -race calls it.
func TestSameHookStacks(t *testing.T) {
	compareStacks(t, "example.com/hooks", hookSrc, []string{"pull", "atomic", "lock"}, sameUserFrames)
}

// sameUserFrames reports whether got shows an access's kind as want
// (go -race's) does and every frame of the program's package main in
// want, in order.
func sameUserFrames(got, want reportedAccess) bool {
	if got.kind != want.kind {
		return false
	}
	i := 0
	for _, f := range want.frames {
		if !strings.HasPrefix(f, "main.") {
			continue
		}
		for i < len(got.frames) && got.frames[i] != f {
			i++
		}
		if i == len(got.frames) {
			return false
		}
		i++
	}
	return true
}
