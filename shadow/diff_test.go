// Copyright 2026 The bigfoot Authors. All rights reserved.

package shadow

import (
	"flag"
	"fmt"
	"math/rand"
	"runtime"
	"strings"
	"testing"
	"unsafe"
)

// The differential test of the shadow: random traces of the shadow's
// operations by several simulated goroutines (threads with vector
// clocks), each operation's verdict compared with a byte-precise
// FastTrack model (one cell per byte, nothing shared, no representation
// to refine). A verdict is whether the operation conflicts and, if it
// does, the kind and epoch of the earlier access the shadow reports,
// which must be one the model finds at some byte of the operation.
//
// The operations are those the detector makes: single accesses (Access,
// its Same fast path, AccessSparse), range checks (AccessRange, which
// static ranges and merged pending checks become), strided footprint
// commits (AccessStrided), a side set's commit (AccessSparse of several
// elements), releases, acquires and barriers, sweeps with a frontier,
// GC cycles that keep the memory's objects, and GC cycles that reuse an
// object's memory for a new one (its allocation versions advance, and
// the model forgets its bytes, as go -race resets its shadow at a free).

var (
	diffLong = flag.Bool("bigfoot.long", false, "TestShadowDifferential: ten times the traces")
	diffSeed = flag.Int64("bigfoot.seed", 1, "TestShadowDifferential: the first trace's seed")
)

// diffOps is the number of operations of a trace.
const diffOps = 250

// A refConflict is an earlier access the model finds an operation in
// conflict with: what a report may name.
type refConflict struct {
	write bool
	prev  Epoch
}

// A refCell is the FastTrack state of one byte.
type refCell struct {
	w, r Epoch
	rvc  map[uint32]Epoch // by thread, while read-shared (r unused)
	// raced: the byte had a conflict since the last barrier. FastTrack
	// is exact up to the first race of each location; after it, the
	// state is updated as if there were none, and how (a shared read
	// set deflated by the racing write, or dropped earlier as settled)
	// decides whether a later access of the same epoch is checked
	// again. Such a byte's verdicts are not compared until a barrier,
	// after which no earlier state can conflict or match an epoch.
	raced bool
}

// access applies t's access to c and returns the conflicts the byte
// reports (the earlier write, else every unordered earlier read), and
// whether the access is of t's current epoch already.
//
// A read is of t's epoch if t read the byte in it, or wrote it: any
// access a later read would conflict with conflicts with that write as
// well, and a later write is ordered after both or races with the write.
// The shadow may keep either: a write of t deflates the byte's shared
// read set, but leaves an exclusive read of t's epoch in place, and
// whether t's earlier read found the set or an exclusive read depends
// on whether a sweep dropped the settled reads before it.
func (c *refCell) access(t *Thread, write bool) (same bool, cs []refConflict) {
	e := t.Epoch
	if !write {
		if c.w == e || c.rvc == nil && c.r == e || c.rvc != nil && c.rvc[e.TID()] == e {
			return true, nil
		}
		if !HB(c.w, t.VC) {
			cs = append(cs, refConflict{true, c.w})
		}
		switch {
		case c.rvc != nil:
			c.rvc[e.TID()] = e
		case HB(c.r, t.VC):
			c.r = e
		default:
			c.rvc = map[uint32]Epoch{c.r.TID(): c.r, e.TID(): e}
			c.r = 0
		}
		return false, cs
	}
	if c.w == e {
		return true, nil
	}
	if !HB(c.w, t.VC) {
		cs = append(cs, refConflict{true, c.w})
	} else if c.rvc != nil {
		for _, r := range c.rvc {
			if !HB(r, t.VC) {
				cs = append(cs, refConflict{false, r})
			}
		}
	} else if !HB(c.r, t.VC) {
		cs = append(cs, refConflict{false, c.r})
	}
	c.w = e
	if c.rvc != nil {
		c.rvc, c.r = nil, 0
	}
	return false, cs
}

// A diffObj is memory the trace accesses: a heap object (or a global),
// and the model's cells for its bytes.
type diffObj struct {
	name string
	p    uintptr
	n    uintptr
	heap bool
	keep []byte // the heap object, kept reachable
	ref  []refCell
}

// diffGlobal is a global the traces access: memory that is never freed.
var diffGlobal [1024]byte

// A diffOp is one operation of a trace. Its fields say what to do; the
// trace draws them, and a reproducer replays them.
type diffOp struct {
	kind       string // see diffRun.apply
	th         int    // thread index
	obj        int    // object index
	write      bool
	off, size  uintptr // access: bytes [off, off+size) of the object
	elem       uintptr // range: element size
	lo, hi     int     // range: element indices
	stride     int     // range: in elements
	step       uintptr // strided: bytes between elements
	n          int     // strided: elements
	offs       []uintptr
	lock, objN int // sync: lock index; alloc: object size
}

func (op diffOp) String() string {
	w := "read"
	if op.write {
		w = "write"
	}
	switch op.kind {
	case "access", "same", "sparse1":
		return fmt.Sprintf("t%d %s %s obj%d[%d:%d]", op.th+1, op.kind, w, op.obj, op.off, op.off+op.size)
	case "range":
		return fmt.Sprintf("t%d range %s obj%d elem %d [%d,%d) stride %d", op.th+1, w, op.obj, op.elem, op.lo, op.hi, op.stride)
	case "strided":
		return fmt.Sprintf("t%d strided %s obj%d at %d size %d step %d n %d", op.th+1, w, op.obj, op.off, op.size, op.step, op.n)
	case "sparse":
		return fmt.Sprintf("t%d sparse %s obj%d size %d at %v", op.th+1, w, op.obj, op.size, op.offs)
	case "release", "acquire":
		return fmt.Sprintf("t%d %s lock%d", op.th+1, op.kind, op.lock)
	case "alloc":
		return fmt.Sprintf("alloc obj (%d bytes)", op.objN)
	case "reuse":
		return fmt.Sprintf("reuse obj%d (GC cycle)", op.obj)
	}
	return op.kind
}

// A diffRun is the state of one trace: the shadow under test, the model,
// the threads and the objects.
type diffRun struct {
	s     *Space
	fv    fakeVersions
	ts    []*Thread
	locks [][]uint64
	objs  []*diffObj
}

func newDiffRun(fv fakeVersions, nthreads int) *diffRun {
	d := &diffRun{s: &Space{versions: fv.page}, fv: fv, ts: diffThreads(nthreads), locks: make([][]uint64, 3)}
	d.s.SetFrontier(d.frontier)
	// A multi-page array at a fixed offset in its page, so that runs
	// cross page edges at the same places in every replay.
	const arr = 3*pageSize + 512
	buf := escape(make([]byte, arr+2*pageSize))
	off := (pageSize - uintptr(unsafe.Pointer(&buf[0]))&(pageSize-1) + pageSize - 256) % pageSize
	d.addHeap("array", buf, off, arr)
	d.objs = append(d.objs, &diffObj{name: "global", p: uintptr(unsafe.Pointer(&diffGlobal[0])), n: uintptr(len(diffGlobal)), ref: make([]refCell, len(diffGlobal))})
	d.alloc(64)
	d.alloc(24)
	return d
}

// diffTids are the thread ids of a trace's threads, in order: the homes
// of the last two in a read vector clock are the first two's (readVC's
// placement), so that entries also sit past their homes and wrap around
// the clock's end, not only at their homes.
var diffTids = [...]uint32{1, 2, 5, 6}

// diffThreads returns the n threads of a trace (at most len(diffTids)).
func diffThreads(n int) []*Thread {
	ts := make([]*Thread, n)
	for i := range ts {
		ts[i] = thread(diffTids[i], 1, nil)
	}
	return ts
}

// addHeap adds the n bytes of the heap object b from off as an object,
// newly allocated: its words' versions advance.
func (d *diffRun) addHeap(name string, b []byte, off, n uintptr) {
	base := uintptr(unsafe.Pointer(&b[0]))
	d.fv.heap(base, uintptr(len(b)))
	d.fv.advance(base, uintptr(len(b)+7)&^7)
	d.objs = append(d.objs, &diffObj{name: name, p: base + off, n: n, heap: true, keep: b, ref: make([]refCell, n)})
}

// alloc adds a new heap object of n bytes.
func (d *diffRun) alloc(n int) {
	d.addHeap("small", escape(make([]byte, n)), 0, uintptr(n))
}

// frontier is the frontier of the simulated goroutines: every thread's
// clock, its own entry one less (see frontier.go).
func (d *diffRun) frontier() []uint64 {
	var f []uint64
	for i, t := range d.ts {
		vc := append([]uint64(nil), t.VC...)
		vc[t.Epoch.TID()]--
		if i == 0 {
			f = vc
			continue
		}
		for len(vc) < len(f) {
			vc = append(vc, 0)
		}
		f = f[:min(len(f), len(vc))]
		for j := range f {
			f[j] = min(f[j], vc[j])
		}
	}
	return f
}

// cycle completes a GC cycle and brings the shadow's generation up to
// date, as its first access after the cycle would (RefreshGen), without
// waiting for the sentinel.
func cycle() {
	runtime.GC()
	RefreshGen()
}

// A verdict is what the model finds for one operation: the conflicts at
// bytes that had none since the last barrier (clean), at every byte
// (all), and whether the operation touches a byte that had one (raced).
type verdict struct {
	clean, all []refConflict // sets
	raced      bool
	marks      []*refCell // bytes with a conflict, marked raced at the end
}

// add adds x to the set *cs.
func add(cs *[]refConflict, x refConflict) {
	if !has(*cs, x) {
		*cs = append(*cs, x)
	}
}

func has(cs []refConflict, x refConflict) bool {
	for _, c := range cs {
		if c == x {
			return true
		}
	}
	return false
}

// refAccess applies t's access of obj's bytes [off, off+size) to the
// model and reports whether every byte was of t's epoch already.
func refAccess(t *Thread, o *diffObj, off, size uintptr, write bool, v *verdict) (same bool) {
	same = true
	for b := off; b < off+size; b++ {
		c := &o.ref[b]
		s, cs := c.access(t, write)
		same = same && s
		v.raced = v.raced || c.raced
		for _, x := range cs {
			add(&v.all, x)
			if !c.raced {
				add(&v.clean, x)
			}
		}
		if len(cs) > 0 {
			v.marks = append(v.marks, c)
		}
	}
	return same
}

// apply performs op on the shadow and the model and returns a
// description of the disagreement, if any.
func (d *diffRun) apply(op diffOp) string {
	v := new(verdict)
	var (
		got   Race
		found bool
	)
	var o *diffObj
	var t *Thread
	if op.obj < len(d.objs) {
		o = d.objs[op.obj]
	}
	if op.th < len(d.ts) {
		t = d.ts[op.th]
	}
	switch op.kind {
	case "access":
		got, found = d.s.Access(t, ptrOf(o.p+op.off), op.size, op.write, 1)
		refAccess(t, o, op.off, op.size, op.write, v)
	case "sparse1":
		got, found = d.s.AccessSparse(t, ptrOf(o.p+op.off), op.size, op.write, 2)
		refAccess(t, o, op.off, op.size, op.write, v)
	case "same":
		if d.s.Same(t, o.p+op.off, op.size, op.write) {
			if !refAccess(t, o, op.off, op.size, op.write, v) && !v.raced {
				return "Same: the access is not of the thread's epoch in the model"
			}
			return ""
		}
		got, found = d.s.Access(t, ptrOf(o.p+op.off), op.size, op.write, 3)
		refAccess(t, o, op.off, op.size, op.write, v)
	case "range":
		got, found = d.s.AccessRange(t, ptrOf(o.p), op.elem, op.lo, op.hi, op.stride, op.write, 4)
		for i := op.lo; i < op.hi; i += op.stride {
			refAccess(t, o, uintptr(i)*op.elem, op.elem, op.write, v)
		}
	case "strided":
		got, found = d.s.AccessStrided(t, ptrOf(o.p+op.off), op.size, op.step, op.n, op.write, 5)
		n := op.n
		if op.step == 0 {
			n = 1
		}
		for i := 0; i < n; i++ {
			refAccess(t, o, op.off+uintptr(i)*op.step, op.size, op.write, v)
		}
	case "sparse":
		for _, off := range op.offs {
			if r, ok := d.s.AccessSparse(t, ptrOf(o.p+off), op.size, op.write, 6); ok && !found {
				got, found = r, true
			}
			refAccess(t, o, off, op.size, op.write, v)
		}
	case "release":
		vc := release(t)
		l := d.locks[op.lock]
		for len(l) < len(vc) {
			l = append(l, 0)
		}
		for i, c := range vc {
			l[i] = max(l[i], c)
		}
		d.locks[op.lock] = l
	case "acquire":
		acquire(t, d.locks[op.lock])
	case "barrier":
		barrier(d.ts...)
		for _, o := range d.objs {
			for i := range o.ref {
				o.ref[i].raced = false
			}
		}
	case "sweep":
		d.s.Sweep()
	case "gc":
		cycle()
	case "alloc":
		d.alloc(op.objN)
	case "reuse":
		// The object dies and its memory holds a new one after the
		// cycle: its versions advance, and the model forgets it.
		base := uintptr(unsafe.Pointer(&o.keep[0]))
		d.fv.advance(base, uintptr(len(o.keep)+7)&^7)
		clear(o.ref)
		cycle()
	default:
		panic("unknown op " + op.kind)
	}
	for _, c := range v.marks {
		c.raced = true
	}
	switch {
	case len(v.clean) > 0 && !found:
		return fmt.Sprintf("no race in the shadow, model's conflicts are %v", keys(v.all))
	case found && !has(v.all, refConflict{got.PrevWrite, got.Prev}) && !v.raced:
		return fmt.Sprintf("shadow reports an earlier %s t%d@%d, model's conflicts are %v", kindName(got.PrevWrite), got.Prev.TID(), got.Prev.Clock(), keys(v.all))
	}
	return ""
}

func kindName(write bool) string {
	if write {
		return "write"
	}
	return "read"
}

func keys(cs []refConflict) []string {
	var ks []string
	for _, c := range cs {
		ks = append(ks, fmt.Sprintf("%s t%d@%d", kindName(c.write), c.prev.TID(), c.prev.Clock()))
	}
	return ks
}

// release ends d's threads' states: their cached granules go back.
func (d *diffRun) release() {
	for _, t := range d.ts {
		t.Release()
	}
}

// diffTrace draws a trace of diffOps operations from seed.
func diffTrace(seed int64) (nthreads int, ops []diffOp) {
	rng := rand.New(rand.NewSource(seed))
	nthreads = 2 + rng.Intn(3)
	nobj := 4 // newDiffRun's
	// Each trace favours a few element sizes, as programs do.
	elems := []uintptr{1, 2, 4, 8, 8, 8, 12, 16}
	fav := elems[rng.Intn(len(elems))]
	for len(ops) < diffOps {
		op := diffOp{th: rng.Intn(nthreads), write: rng.Intn(2) == 0, lock: rng.Intn(3)}
		// Objects: the array most, then the global and the small ones.
		switch x := rng.Intn(10); {
		case x < 5:
			op.obj = 0
		case x < 7:
			op.obj = 1
		default:
			op.obj = 2 + rng.Intn(nobj-2)
		}
		objSize := []uintptr{3*pageSize + 512, 1024, 64, 24}[min(op.obj, 3)]
		if op.obj >= 4 {
			objSize = uintptr(ops[objIndexOp(ops, op.obj)].objN)
		}
		elem := fav
		if rng.Intn(3) == 0 {
			elem = elems[rng.Intn(len(elems))]
		}
		elem = min(elem, objSize)
		// GC cycles are few (a forced one costs milliseconds), but
		// state lives across one or two in most traces.
		switch x := rng.Intn(1000); {
		case x < 80:
			op.kind = "release"
		case x < 160:
			op.kind = "acquire"
		case x < 190:
			op.kind = "barrier"
		case x < 210:
			op.kind = "sweep"
		case x < 211:
			op.kind = "gc"
		case x < 214:
			op.kind = "reuse"
		case x < 270:
			op.kind = "alloc"
			op.objN = []int{8, 16, 24, 48, 64, 128, 512, 2048}[rng.Intn(8)]
			nobj++
		case x < 500:
			op.kind = []string{"access", "same", "sparse1"}[rng.Intn(3)]
			op.size = uintptr(1) << rng.Intn(4)
			if rng.Intn(3) == 0 {
				op.size = elem
			}
			op.size = min(op.size, objSize, 16)
			op.off = uintptr(rng.Intn(int(objSize - op.size + 1)))
			if rng.Intn(4) != 0 {
				op.off &^= op.size&-op.size - 1 // aligned to its size's power of two
			}
		case x < 720:
			op.kind = "range"
			op.elem = elem
			nel := int(objSize / elem)
			op.stride = []int{1, 1, 1, 2, 2, 3, 4, 7}[rng.Intn(8)]
			op.lo, op.hi = rng.Intn(nel), rng.Intn(nel+1)
			switch rng.Intn(4) {
			case 0: // a block of a partition
				P := 2 + rng.Intn(4)
				b := rng.Intn(P)
				op.lo, op.hi = b*nel/P, (b+1)*nel/P
			case 1:
				op.lo, op.hi = 0, nel
			case 2: // short
				op.hi = min(nel, op.lo+1+rng.Intn(4))
			}
		case x < 900:
			op.kind = "strided"
			op.size = min(elem, 8)
			if rng.Intn(3) == 0 {
				op.size = uintptr(1 + rng.Intn(8))
			}
			op.size = min(op.size, objSize)
			op.step = op.size * uintptr(1+rng.Intn(5))
			if rng.Intn(3) == 0 {
				op.step = op.size + uintptr(rng.Intn(24))
			}
			if rng.Intn(8) == 0 {
				op.step = 0
			}
			op.off = uintptr(rng.Intn(int(objSize - op.size + 1)))
			if rng.Intn(2) == 0 {
				op.off -= op.off % op.size
			}
			maxN := 1
			if op.step > 0 {
				maxN = int((objSize-op.off-op.size)/op.step) + 1
			}
			op.n = 1 + rng.Intn(maxN)
			if rng.Intn(2) == 0 {
				op.n = 1 + rng.Intn(min(maxN, 8))
			}
		default:
			op.kind = "sparse"
			op.size = min(elem, 8, objSize)
			nel := int(objSize / op.size)
			for range 1 + rng.Intn(6) {
				op.offs = append(op.offs, uintptr(rng.Intn(nel))*op.size)
			}
		}
		if op.kind == "reuse" && op.obj == 1 {
			op.obj = 0 // globals are never freed
		}
		ops = append(ops, op)
	}
	return nthreads, ops
}

// objIndexOp returns the index in ops of the alloc that made object obj
// (objects 0 to 3 are newDiffRun's).
func objIndexOp(ops []diffOp, obj int) int {
	k := 4
	for i, op := range ops {
		if op.kind == "alloc" {
			if k == obj {
				return i
			}
			k++
		}
	}
	panic("no alloc for object")
}

// replay runs ops on a new diffRun and returns the index of the first
// operation whose verdicts differ and the difference, or -1.
func replay(fv fakeVersions, nthreads int, ops []diffOp) (int, string) {
	d := newDiffRun(fv, nthreads)
	defer d.release()
	for i, op := range ops {
		if msg := d.apply(op); msg != "" {
			return i, msg
		}
	}
	return -1, ""
}

// minimize returns a subsequence of ops, ending at the failing one, from
// which no single operation can be removed without the failure going.
// Objects are renumbered when an alloc is removed, so allocs stay.
func minimize(fv fakeVersions, nthreads int, ops []diffOp, fail int) []diffOp {
	ops = append([]diffOp(nil), ops[:fail+1]...)
	for i := len(ops) - 2; i >= 0; i-- {
		if ops[i].kind == "alloc" {
			continue
		}
		try := append(append([]diffOp(nil), ops[:i]...), ops[i+1:]...)
		if at, _ := replay(fv, nthreads, try); at == len(try)-1 {
			ops = try
		}
	}
	return ops
}

// withVersions makes fv the runtime's allocation versions for the test,
// as bigfoot's driver makes the runtime's (version.go): idents are proven
// by them too. Idents made meanwhile are forgotten after it.
func withVersions(t *testing.T) fakeVersions {
	fv := fakeVersions{}
	old := runtimeVersionPage
	runtimeVersionPage = fv.page
	t.Cleanup(func() {
		runtimeVersionPage = old
		for i := range identCache {
			identCache[i].Store(nil)
		}
	})
	return fv
}

// TestShadowDifferential runs random traces against the byte-precise
// model: 500 traces of 250 operations with -short (125,000 verdicts),
// ten times that with -bigfoot.long, fewer under the race detector. On a
// disagreement it prints the seed, and the trace cut down to the
// operations that still make it fail.
func TestShadowDifferential(t *testing.T) {
	quiet(t)
	fv := withVersions(t)
	traces := 500
	if *diffLong {
		traces *= 10
	}
	if raceEnabled {
		traces = 40
	}
	verdicts := 0
	for i := range int64(traces) {
		seed := *diffSeed + i
		nthreads, ops := diffTrace(seed)
		at, msg := replay(fv, nthreads, ops)
		verdicts += len(ops)
		if at < 0 {
			continue
		}
		min := minimize(fv, nthreads, ops, at)
		var b strings.Builder
		for _, op := range min {
			fmt.Fprintf(&b, "\t%v\n", op)
		}
		t.Fatalf("seed %d (-bigfoot.seed=%d), %d threads, operation %d: %v: %s\nreproducer (%d of %d operations):\n%s",
			seed, seed, nthreads, at, ops[at], msg, len(min), at+1, b.String())
	}
	t.Logf("%d traces from seed %d, %d verdicts, no disagreement", traces, *diffSeed, verdicts)
}

// pastDisagreements are traces that once disagreed with the model, replayed on
// every run: 4979, a read of t's own write's epoch after a sweep had
// dropped the byte's settled shared reads (the shadow's Same answered
// yes, as it may; the model did not count the write).
var pastDisagreements = []int64{4979}

func TestShadowPastDisagreements(t *testing.T) {
	quiet(t)
	fv := withVersions(t)
	for _, seed := range pastDisagreements {
		nthreads, ops := diffTrace(seed)
		if at, msg := replay(fv, nthreads, ops); at >= 0 {
			t.Errorf("seed %d, %d threads, operation %d: %v: %s", seed, nthreads, at, ops[at], msg)
		}
	}
}
