package main

import (
	"strings"
	"testing"
)

// lookupProgram looks keys up in goroutines, each through an alias of
// the element, e := &kvs[i], returning another field of the element it
// finds: race-free.
const lookupProgram = `package main

import (
	"fmt"
	"sync"
)

type pair struct{ k, v int }

func lookup(kvs []pair, key int) int {
	for i := range kvs {
		e := &kvs[i]
		if e.k == key {
			return e.v
		}
	}
	return -1
}

func main() {
	kvs := make([]pair, 500)
	for i := range kvs {
		kvs[i] = pair{i, 2 * i}
	}
	out := make([]int, 8)
	var wg sync.WaitGroup
	for g := range out {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[g] = lookup(kvs, 60*g)
		}()
	}
	wg.Wait()
	fmt.Println(out)
}
`

// TestAliasRange checks that the reads of a field through an alias of
// the element, e := &s[i], get a static range in bigfoot mode, and that
// a read in the branch that leaves the loop (return e.v) keeps its own
// check rather than refusing the range (placement's onTheWayOut); and
// that the verifier finds every access covered and every check
// legitimate. Before, the instrumenter never collected p.f of an alias,
// and placement refused the element for the read on the way out.
func TestAliasRange(t *testing.T) {
	if bigfootBin == "" {
		t.Skip("end-to-end test; skipped with -short")
	}
	dir := writeModule(t, map[string]string{
		"go.mod":  "module example.com/lookup\n\ngo 1.22\n",
		"main.go": lookupProgram,
	})
	lines := strings.Split(string(keptMain(t, dir, "-mode=bigfoot")), "\n")
	if l := lines[10]; !strings.Contains(l, "__bf.OpenRange(") || !strings.Contains(l, "Offsetof(kvs[0].k)") {
		t.Errorf("the loop opens no static range of kvs[i].k: %s", l)
	}
	if l := lines[12]; !strings.Contains(l, "e.k == key") || strings.Contains(l, "__bf.R(") || strings.Contains(l, "__bf.R1(") {
		t.Errorf("the condition checks e.k per iteration: %s", l)
	}
	if l := lines[13]; !strings.Contains(l, "__bf.R(__bfg, &e.v,") {
		t.Errorf("the read on the way out has no check of its own: %s", l)
	}
	r := run(t, dir, nil, bigfootBin, "run", "-mode=bigfoot", "-tags=bigfoot_verify", ".")
	if r.code != 0 || strings.Contains(r.stderr, raceReport) {
		t.Fatalf("want exit status 0 and no race; got %v", r)
	}
	if !strings.Contains(r.stderr, " uncovered=0 illegitimate=0 ") || strings.Contains(r.stderr, "bigfoot verify: accesses=0 ") {
		t.Errorf("the verifier found violations or recorded nothing:\n%s", r.stderr)
	}
	want := run(t, dir, nil, "go", "run", "-race", ".")
	if r.stdout != want.stdout {
		t.Errorf("output %q, go run -race's %q", r.stdout, want.stdout)
	}
}
