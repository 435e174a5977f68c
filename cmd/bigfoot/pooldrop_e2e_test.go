package main

import (
	"regexp"
	"strconv"
	"testing"
)

// poolDropProgram puts 4,096 items into a sync.Pool with collections off
// (a collection empties pools) and prints how many Get returns.
const poolDropProgram = `package main

import (
	"fmt"
	"runtime/debug"
	"sync"
)

func main() {
	debug.SetGCPercent(-1)
	var p sync.Pool
	for i := range 4096 {
		p.Put(&[8]int{i})
	}
	kept := 0
	for p.Get() != nil {
		kept++
	}
	fmt.Printf("kept %d\n", kept)
}
`

var keptLine = regexp.MustCompile(`(?m)^kept (\d+)$`)

// TestPoolDropsAsGoRace checks that a sync.Pool drops one Put in four
// under bigfoot, as under go -race (detector.stdPoolPut): a plain build
// keeps the 4,096 items but those one goroutine's moves between
// processors left in a processor's private slot, go -race about 3,072.
// The bounds are 18 binomial deviations from that.
func TestPoolDropsAsGoRace(t *testing.T) {
	if bigfootBin == "" {
		t.Skip("end-to-end test; skipped with -short")
	}
	dir := writeModule(t, map[string]string{
		"go.mod":  "module example.com/pooldrop\n\ngo 1.22\n",
		"main.go": poolDropProgram,
	})
	r := run(t, dir, nil, bigfootBin, "run", ".")
	m := keptLine.FindStringSubmatch(r.stdout)
	if r.code != 0 || m == nil {
		t.Fatalf("bigfoot run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	const n = 4096
	kept, _ := strconv.Atoi(m[1])
	if kept < 5*n/8 || kept > 7*n/8 {
		t.Errorf("the pool kept %d of %d items, want about 3/4 as under go -race", kept, n)
	}
}
