package main

import (
	"testing"
)

// TestSameBlockedFrames: a dump of every goroutine (runtime.Stack) shows
// goroutines blocked in a channel receive, a send, Lock, RLock and
// WaitGroup.Wait with the frames they have under go -race: no frame of
// the detector's hooks, which the operations block in, nor of package
// sync's splices. The program waits until every goroutine is blocked,
// then prints each one's wait reason and functions, sorted.
func TestSameBlockedFrames(t *testing.T) {
	if bigfootBin == "" {
		t.Skip("end-to-end test; skipped with -short")
	}
	dir := writeModule(t, map[string]string{
		"go.mod": "module example.com/blocked\n\ngo 1.22\n",
		"main.go": `package main

import (
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"
)

func recv(c chan int)             { <-c }
func recv2(c chan int)            { v, ok := <-c; _, _ = v, ok }
func send(c chan int)             { c <- 1 }
func lock(mu *sync.Mutex)         { mu.Lock() }
func rlock(rw *sync.RWMutex)      { rw.RLock() }
func wait(wg *sync.WaitGroup)     { wg.Wait() }

// dump returns each other goroutine's wait reason and functions, or nil
// if one of them is not blocked yet.
func dump() []string {
	buf := make([]byte, 1<<16)
	var gs []string
	for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n")[1:] {
		lines := strings.Split(g, "\n")
		state := lines[0][strings.Index(lines[0], "["):]
		if strings.HasPrefix(state, "[runnable") || strings.HasPrefix(state, "[running") {
			return nil
		}
		var fs []string
		for _, l := range lines[1:] {
			if l != "" && !strings.HasPrefix(l, "\t") && !strings.HasPrefix(l, "created by") {
				fs = append(fs, l[:strings.LastIndex(l, "(")])
			}
		}
		gs = append(gs, state+" "+strings.Join(fs, " "))
	}
	sort.Strings(gs)
	return gs
}

func main() {
	c, d := make(chan int), make(chan int)
	var mu sync.Mutex
	var rw sync.RWMutex
	var wg sync.WaitGroup
	mu.Lock()
	rw.Lock()
	wg.Add(1)
	go recv(c)
	go recv2(c)
	go send(d)
	go lock(&mu)
	go rlock(&rw)
	go wait(&wg)
	for try := 0; try < 10000; try++ {
		if gs := dump(); len(gs) == 6 {
			fmt.Println(strings.Join(gs, "\n"))
			return
		}
		time.Sleep(time.Millisecond)
	}
	fmt.Println("the goroutines did not block")
}
`,
	})
	goBin, bfBin := buildBoth(t, dir, ".")
	want, got := run(t, dir, nil, goBin), run(t, dir, nil, bfBin)
	if got != want {
		t.Errorf("the bigfoot build's blocked goroutines show other frames than the go -race build's\nbigfoot:\n%v\ngo -race:\n%v", got, want)
	}
}
