package main

import (
	"testing"
)

// TestSameBackgroundGoroutines: the detector's background work (the
// shadow's sweep after each GC cycle, the release of held objects, the
// hooks after a cycle) runs in goroutines the program does not see, as
// go -race's runs in threads: a program that lists every goroutine with
// runtime.Stack(all) after GC cycles, while sweeps walk the shadow of
// many objects, finds none but its own under both tools. The finalizer
// and cleanup goroutines are left out of the list: the runtime shows
// either to any program while it runs a finalizer or a cleanup, and the
// shadow learns of each cycle from a finalizer and returns the slot
// arrays of unreachable pages from a cleanup (docs/runtime.md, "Known
// limitations").
func TestSameBackgroundGoroutines(t *testing.T) {
	if bigfootBin == "" {
		t.Skip("end-to-end test; skipped with -short")
	}
	dir := writeModule(t, map[string]string{
		"go.mod": "module example.com/background\n\ngo 1.22\n",
		"main.go": `package main

import (
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"
)

// others returns the "created by" line of every goroutine runtime.Stack
// lists but the caller and the finalizer goroutine.
func others(buf []byte) []string {
	var lines []string
	for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n")[1:] {
		if strings.Contains(g, "runtime.runFinalizers") || strings.Contains(g, "runtime.runfinq") || strings.Contains(g, "runtime.runCleanups") {
			continue
		}
		frames := strings.Split(strings.TrimSpace(g), "\n")
		lines = append(lines, frames[len(frames)-2])
	}
	return lines
}

var sink [][]int

func main() {
	// Objects two goroutines touch, whose shadow every sweep walks.
	var mu sync.Mutex
	var wg sync.WaitGroup
	data := make([][]int, 4096)
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range data {
				mu.Lock()
				if data[i] == nil {
					data[i] = make([]int, 512)
				}
				for j := range data[i] {
					data[i][j]++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	buf := make([]byte, 1<<20)
	for i := 0; i < 50; i++ {
		sink = append(sink, make([]int, 1<<10))
		runtime.GC()
		for j := 0; j < 50; j++ {
			for _, l := range others(buf) {
				seen[l] = true
			}
			runtime.Gosched()
		}
	}
	var lines []string
	for l := range seen {
		lines = append(lines, l)
	}
	sort.Strings(lines)
	fmt.Printf("other goroutines: %q; NumGoroutine at the end: %d\n", lines, runtime.NumGoroutine())
}
`,
	})
	goBin, bfBin := buildBoth(t, dir, ".")
	want, got := run(t, dir, nil, goBin), run(t, dir, nil, bfBin)
	if got != want {
		t.Errorf("the bigfoot build sees other goroutines than the go -race build\nbigfoot:\n%v\ngo -race:\n%v", got, want)
	}
}
