// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"flag"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"unsafe"
)

// The differential test of deferred checks: random traces of goroutines
// that access two arrays through footprints (committed at their next
// synchronization, their ranges moved to pending checks at the return
// of the function that made them, their other elements in side sets),
// copies (pending checks) and immediate checks, and synchronize through
// releases and acquires, run step by step by real goroutines of the
// detector, against a FastTrack model that checks every access at once.
// BigFoot's deferred checks are legitimate (Rhodes, Flanagan, Freund,
// "BigFoot: Static Check Placement for Dynamic Race Detection", PLDI
// 2017, §3): a trace has a race if and only if the detector reports one.
// The shadow's own verdicts, access by access, are compared with a
// byte-precise model by shadow.TestShadowDifferential.

var (
	fpLong = flag.Bool("bigfoot.long", false, "TestDeferredDifferential: ten times the traces")
	fpSeed = flag.Int64("bigfoot.seed", 1, "TestDeferredDifferential: the first trace's seed")
)

// fpOps is the number of operations of a trace.
const fpOps = 24

// An fpOp is one step of one goroutine.
type fpOp struct {
	kind  string // "loop", "copy", "check", "release", "acquire"
	g     int    // goroutine (0: the first worker)
	arr   int    // array
	write bool
	idx   []int // loop, check: the elements accessed, in order
	lo, n int   // copy: elements [lo, lo+n) of arr (written) and of the other array (read)
	lock  int
}

func (op fpOp) String() string {
	w := "read"
	if op.write {
		w = "write"
	}
	switch op.kind {
	case "loop", "check":
		return fmt.Sprintf("g%d %s %s a%d%v", op.g, op.kind, w, op.arr, op.idx)
	case "copy":
		return fmt.Sprintf("g%d copy a%d[%d:%d] from a%d", op.g, op.arr, op.lo, op.lo+op.n, 1-op.arr)
	}
	return fmt.Sprintf("g%d %s lock%d", op.g, op.kind, op.lock)
}

// fpLen is the length of the arrays a trace accesses.
const fpLen = 48

// fpTrace draws a trace from seed. The arrays have an owner, which
// accesses them and hands them to another goroutine (a release and an
// acquire of a lock); now and then a goroutine that does not own them
// accesses them too, or a handoff skips the acquire: about half the
// traces race.
func fpTrace(seed int64) (ngs int, ops []fpOp) {
	rng := rand.New(rand.NewSource(seed))
	ngs = 2 + rng.Intn(2)
	owner := 0
	stray := 1 + rng.Intn(6) // per 100 accesses
	for len(ops) < fpOps {
		if rng.Intn(4) == 0 {
			next := rng.Intn(ngs)
			lock := rng.Intn(2)
			ops = append(ops, fpOp{kind: "release", g: owner, lock: lock})
			if rng.Intn(100) >= stray {
				ops = append(ops, fpOp{kind: "acquire", g: next, lock: lock})
			}
			owner = next
			continue
		}
		op := fpOp{g: owner, arr: rng.Intn(2), write: rng.Intn(2) == 0}
		if rng.Intn(100) < stray {
			op.g = rng.Intn(ngs)
		}
		switch x := rng.Intn(10); {
		case x < 6:
			op.kind = "loop"
			lo := rng.Intn(fpLen)
			switch rng.Intn(4) {
			case 0: // ascending
				for i := lo; i < min(fpLen, lo+1+rng.Intn(16)); i++ {
					op.idx = append(op.idx, i)
				}
			case 1: // descending
				for i := lo; i >= max(0, lo-rng.Intn(16)); i-- {
					op.idx = append(op.idx, i)
				}
			case 2: // strided
				k := 2 + rng.Intn(3)
				for i := lo; i < fpLen && len(op.idx) < 8; i += k {
					op.idx = append(op.idx, i)
				}
			default: // a gather: the side set
				for range 1 + rng.Intn(8) {
					op.idx = append(op.idx, rng.Intn(fpLen))
				}
			}
		case x < 8:
			op.kind = "copy"
			op.lo = rng.Intn(fpLen)
			op.n = 1 + rng.Intn(fpLen-op.lo)
		default:
			op.kind = "check"
			op.idx = []int{rng.Intn(fpLen)}
		}
		ops = append(ops, op)
	}
	return ngs, ops
}

// An fpModel is the FastTrack model of a trace: vector clocks of the
// goroutines (index 0 the parent, which forked them) and locks, and the
// state of every element.
type fpModel struct {
	vcs   [][]uint64
	locks [2][]uint64
	elems [2][fpLen]fpCell
	race  bool
}

type fpEpoch struct {
	tid   int
	clock uint64
}

type fpCell struct {
	w   fpEpoch
	rs  map[int]uint64 // readers since the last write, by goroutine
	has bool
}

func newFPModel(ngs int) *fpModel {
	m := &fpModel{vcs: make([][]uint64, ngs+1)}
	m.vcs[0] = make([]uint64, ngs+1)
	m.vcs[0][0] = 1
	for i := 1; i <= ngs; i++ {
		// Forked by the parent: its clock, then the parent ticks.
		m.vcs[i] = append([]uint64(nil), m.vcs[0]...)
		m.vcs[i][i] = 1
		m.vcs[0][0]++
	}
	return m
}

func (m *fpModel) hb(e fpEpoch, vc []uint64) bool { return e.clock <= vc[e.tid] }

// access checks goroutine g's access of element i of array a.
func (m *fpModel) access(g, a, i int, write bool) {
	vc := m.vcs[g]
	c := &m.elems[a][i]
	if c.has && !m.hb(c.w, vc) {
		m.race = true
	}
	if write {
		for t, clk := range c.rs {
			if !m.hb(fpEpoch{t, clk}, vc) {
				m.race = true
			}
		}
		c.w, c.has, c.rs = fpEpoch{g, vc[g]}, true, nil
		return
	}
	if c.rs == nil {
		c.rs = map[int]uint64{}
	}
	c.rs[g] = vc[g]
	if !c.has {
		c.w = fpEpoch{0, 0}
		c.has = true
	}
}

func (m *fpModel) apply(op fpOp) {
	g := op.g + 1
	switch op.kind {
	case "loop", "check":
		for _, i := range op.idx {
			m.access(g, op.arr, i, op.write)
		}
	case "copy":
		for i := op.lo; i < op.lo+op.n; i++ {
			m.access(g, op.arr, i, true)
			m.access(g, 1-op.arr, i, false)
		}
	case "release":
		m.locks[op.lock] = join(m.locks[op.lock], m.vcs[g])
		m.vcs[g][g]++
	case "acquire":
		m.vcs[g] = join(m.vcs[g], m.locks[op.lock])
	}
}

// fpRun runs ops on the detector, each operation on its goroutine (real
// goroutines, one step at a time, handed over through channels the
// detector does not see), and reports whether it reported a race.
func fpRun(t *testing.T, ngs int, ops []fpOp, sites uint32) bool {
	arrs := [2][]int64{make([]int64, fpLen), make([]int64, fpLen)}
	var locks [2]int64
	n, _ := run(t, func(parent *G) {
		type step struct {
			op   fpOp
			done chan struct{}
		}
		cmds := make([]chan step, ngs)
		var exits []<-chan struct{}
		for i := range cmds {
			cmds[i] = make(chan step)
			c := cmds[i]
			exits = append(exits, spawn(parent, func(g *G) {
				for s := range c {
					fpApply(g, s.op, &arrs, &locks, sites)
					close(s.done)
				}
			}))
		}
		for _, op := range ops {
			done := make(chan struct{})
			cmds[op.g] <- step{op, done}
			<-done
		}
		for i, c := range cmds {
			close(c)
			<-exits[i] // Exit commits what is left
		}
	})
	return n > 0
}

// fpApply performs op as instrumented code does: a loop through one
// footprint in a function of its own (popped at its return), a copy, a
// check, or a release or acquire of a lock's clock.
func fpApply(g *G, op fpOp, arrs *[2][]int64, locks *[2]int64, sites uint32) {
	a := arrs[op.arr]
	switch op.kind {
	case "loop":
		site := sites + uint32(op.arr)
		f := g.Footprint(site, op.write)
		for _, i := range op.idx {
			if op.write {
				*F(f, &a[i], site) = 1
			} else {
				_ = *F(f, &a[i], site)
			}
		}
		g.PopFootprints(f)
	case "copy":
		Copy(g, sites+2, a[op.lo:op.lo+op.n], arrs[1-op.arr][op.lo:op.lo+op.n])
	case "check":
		p := &a[op.idx[0]]
		if op.write {
			*W(g, p, sites+3) = 1
		} else {
			_ = *R(g, p, sites+3)
		}
	case "release":
		g.release(uintptr(unsafe.Pointer(&locks[op.lock])))
	case "acquire":
		g.acquire(uintptr(unsafe.Pointer(&locks[op.lock])))
	}
}

// TestDeferredDifferential runs random traces of footprints, side sets,
// pending checks, copies and immediate checks by 2 or 3 goroutines: the
// detector reports a race exactly in the traces whose accesses race in
// the FastTrack model. On a disagreement it prints the seed and the
// trace cut down to the operations that still disagree.
func TestDeferredDifferential(t *testing.T) {
	sites := RegisterSites("diff", "diff.go", "1:1:loopA\n2:1:loopB\n3:1:copy\n4:1:check\n")
	traces := 4000
	if testing.Short() {
		traces = 2000
	}
	if *fpLong {
		traces *= 10
	}
	if raceEnabled {
		traces = 50
	}
	raced := 0
	for i := range int64(traces) {
		seed := *fpSeed + i
		ngs, ops := fpTrace(seed)
		m := newFPModel(ngs)
		for _, op := range ops {
			m.apply(op)
		}
		got := fpRun(t, ngs, ops, sites)
		if got == m.race {
			if got {
				raced++
			}
			continue
		}
		// Cut the trace down: drop operations while the verdicts still
		// differ.
		for j := len(ops) - 1; j >= 0; j-- {
			try := append(append([]fpOp(nil), ops[:j]...), ops[j+1:]...)
			m := newFPModel(ngs)
			for _, op := range try {
				m.apply(op)
			}
			if fpRun(t, ngs, try, sites) != m.race {
				ops = try
			}
		}
		var b strings.Builder
		for _, op := range ops {
			fmt.Fprintf(&b, "\t%v\n", op)
		}
		t.Fatalf("seed %d (-bigfoot.seed=%d), %d goroutines: detector race %v, model race %v\nreproducer:\n%s", seed, seed, ngs, got, m.race, b.String())
	}
	t.Logf("%d traces from seed %d, %d with a race, no disagreement", traces, *fpSeed, raced)
	if raced == 0 || raced == traces {
		t.Errorf("%d of %d traces race: the traces do not exercise both verdicts", raced, traces)
	}
}
