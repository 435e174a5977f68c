// Copyright 2026 The bigfoot Authors. All rights reserved.

package shadow

import (
	"flag"
	"fmt"
	"math/rand"
	"runtime"
	"testing"
	"unsafe"
)

// release ends t's epoch and returns the vector clock it published.
func release(t *Thread) []uint64 {
	vc := append([]uint64(nil), t.VC...)
	tid := t.Epoch.TID()
	t.VC[tid]++
	t.Epoch = MakeEpoch(tid, t.VC[tid])
	return vc
}

// acquire joins vc into t's vector clock.
func acquire(t *Thread, vc []uint64) {
	for len(t.VC) < len(vc) {
		t.VC = append(t.VC, 0)
	}
	for i, c := range vc {
		t.VC[i] = max(t.VC[i], c)
	}
}

// barrier orders everything every thread did before everything any of
// them does after, and starts a new epoch for each.
func barrier(ts ...*Thread) {
	var vcs [][]uint64
	for _, t := range ts {
		vcs = append(vcs, release(t))
	}
	for _, t := range ts {
		for _, vc := range vcs {
			acquire(t, vc)
		}
	}
}

func threads(n int) []*Thread {
	var ts []*Thread
	for i := 1; i <= n; i++ {
		ts = append(ts, thread(uint32(i), 1, nil))
	}
	return ts
}

// TestRunCoarse checks that a range check over clean memory makes one run
// per page, that a check over it in the same epoch costs one operation
// per run, and that another thread's check finds the race.
func TestRunCoarse(t *testing.T) {
	quiet(t)
	s := NewSpace()
	const n = 8192 // 16 pages of int64
	v := escape(make([]int64, n))
	p := unsafe.Pointer(&v[0])
	a, b := thread(1, 1, nil), thread(2, 1, nil)
	if _, race := s.AccessRange(a, p, 8, 0, n, 1, true, 1); race {
		t.Fatal("first range write races")
	}
	st := s.ShapeStats()
	if st.Fine != 0 || st.Coarse < n*8/pageSize || st.Coarse > n*8/pageSize+1 || st.RunGranules != n {
		t.Fatalf("shape after one range write: %+v", st)
	}
	before := a.Stats.Checks
	if _, race := s.AccessRange(a, p, 8, 0, n, 1, false, 1); race {
		t.Fatal("read after own write races")
	}
	if _, race := s.AccessRange(a, p, 8, 0, n, 1, true, 1); race {
		t.Fatal("write after own read and write races")
	}
	if c := a.Stats.Checks - before; c > 3*uint64(st.Coarse) {
		t.Fatalf("%d checks for two range checks over %d runs", c, st.Coarse)
	}
	if st2 := s.ShapeStats(); st2.Coarse != st.Coarse || st2.Fine != 0 {
		t.Fatalf("shape changed by whole-run checks: %+v", st2)
	}
	r, race := s.AccessRange(b, p, 8, 100, 200, 1, false, 2)
	if !race || r.Prev != MakeEpoch(1, 1) || r.PrevSite != 1 || r.Addr != uintptr(unsafe.Pointer(&v[100])) {
		t.Fatalf("write-read race in a run: %+v %v", r, race)
	}
	// Single accesses in the run: the element is fine, the rest stays.
	if _, race := s.Write(b, unsafe.Pointer(&v[5000]), 8, 3); !race {
		t.Fatal("no race on a single write into a run")
	}
	if _, race := s.Write(a, unsafe.Pointer(&v[5001]), 8, 3); race {
		t.Fatal("single write next to b's races")
	}
	st = s.ShapeStats()
	if st.Fine != 1 || st.Block < 3 {
		t.Fatalf("shape after refinement: %+v", st)
	}
}

// TestRunBlocks checks refinement into the blocks goroutines own, races
// across block boundaries, and merging back into one run per page when
// one goroutine writes everything after a barrier.
func TestRunBlocks(t *testing.T) {
	quiet(t)
	s := NewSpace()
	const n, P = 4096, 4
	v := escape(make([]float64, n))
	p := unsafe.Pointer(&v[0])
	ts := threads(P)
	if _, race := s.AccessRange(ts[0], p, 8, 0, n, 1, true, 1); race {
		t.Fatal("init")
	}
	barrier(ts...)
	for round := range 3 {
		for i, th := range ts {
			lo, hi := i*n/P, (i+1)*n/P
			if _, race := s.AccessRange(th, p, 8, lo, hi, 1, false, 2); race {
				t.Fatalf("round %d: block read %d races", round, i)
			}
			if _, race := s.AccessRange(th, p, 8, lo, hi, 1, true, 3); race {
				t.Fatalf("round %d: block write %d races", round, i)
			}
		}
		st := s.ShapeStats()
		if st.Fine != 0 || st.RunGranules != n {
			t.Fatalf("round %d: block workload left per-granule state: %+v", round, st)
		}
		barrier(ts...)
	}
	// A check across a block boundary races with the neighbour.
	for i, th := range ts {
		s.AccessRange(th, p, 8, i*n/P, (i+1)*n/P, 1, true, 3)
	}
	if _, race := s.AccessRange(ts[0], p, 8, n/P-10, n/P-1, 1, true, 4); race {
		t.Fatal("race inside the own block")
	}
	if r, race := s.AccessRange(ts[0], p, 8, n/P-10, n/P+10, 1, true, 4); !race || r.Prev.TID() != 2 || r.Addr != uintptr(unsafe.Pointer(&v[n/P])) {
		t.Fatalf("no race across a block boundary: %+v", r)
	}
	barrier(ts...)
	// One goroutine writes everything: the blocks merge.
	if _, race := s.AccessRange(ts[0], p, 8, 0, n, 1, true, 5); race {
		t.Fatal("ordered full write races")
	}
	st := s.ShapeStats()
	if runs := st.Coarse + st.Block; runs > n*8/pageSize+1 || st.Fine != 0 {
		t.Fatalf("blocks did not merge: %+v", st)
	}
	if _, race := s.AccessRange(ts[1], p, 8, 0, n, 1, false, 6); !race {
		t.Fatal("unordered read of the merged run does not race")
	}
	barrier(ts...)
	if _, race := s.AccessRange(ts[2], p, 8, 0, n, 1, false, 6); race {
		t.Fatal("read after barrier races")
	}
}

// TestRunStride checks even/odd partitions of int64 and int32 arrays, a
// field of every element of an array of structs, and the last resort:
// a stride that does not fit the run becomes per-granule state.
func TestRunStride(t *testing.T) {
	quiet(t)
	for _, elem := range []uintptr{8, 4, 2, 1} {
		t.Run(fmt.Sprint(elem), func(t *testing.T) {
			s := NewSpace()
			const n = 2048
			buf := escape(make([]byte, n*elem))
			p := unsafe.Pointer(&buf[0])
			a, b := thread(1, 1, nil), thread(2, 1, nil)
			if _, race := s.AccessRange(a, p, elem, 0, n, 2, true, 1); race {
				t.Fatal("even")
			}
			if _, race := s.AccessRange(b, p, elem, 1, n, 2, true, 2); race {
				t.Fatal("odd races with even")
			}
			st := s.ShapeStats()
			if st.Stride == 0 || st.Fine > 2 {
				t.Fatalf("shape: %+v", st)
			}
			if _, race := s.AccessRange(b, p, elem, 1, n, 2, false, 2); race {
				t.Fatal("odd read after odd write")
			}
			if r, race := s.AccessRange(b, p, elem, 1000, 1001, 1, false, 2); !race || r.Prev.TID() != 1 {
				t.Fatalf("no race on element 1000: %+v", r)
			}
			if _, race := s.AccessRange(a, p, elem, 0, n, 4, false, 1); race {
				t.Fatal("a reads every 4th after its own writes")
			}
			// A contiguous read by a third thread races with both.
			c := thread(3, 1, map[uint32]uint64{1: 1})
			if r, race := s.AccessRange(c, p, elem, 0, n, 1, false, 3); !race || r.Prev.TID() != 2 {
				t.Fatalf("contiguous read: %+v %v", r, race)
			}
		})
	}
}

// TestRunLastResort checks that a stride run refined by a different
// stride becomes per-granule state, exactly.
func TestRunLastResort(t *testing.T) {
	quiet(t)
	s := NewSpace()
	const n = 1024
	v := escape(make([]int32, n))
	p := unsafe.Pointer(&v[0])
	a, b, c := thread(1, 1, nil), thread(2, 1, nil), thread(3, 1, nil)
	s.AccessRange(a, p, 4, 0, n, 2, true, 1)
	s.AccessRange(b, p, 4, 1, n, 2, true, 1)
	if st := s.ShapeStats(); st.Stride == 0 {
		t.Fatalf("no stride run: %+v", st)
	}
	// Every third element: mod 3 classes do not fit mod 2 runs.
	if _, race := s.AccessRange(c, p, 4, 0, n, 3, false, 3); !race {
		t.Fatal("no race")
	}
	st := s.ShapeStats()
	if st.Fine == 0 || st.Parts == 0 || st.Split != 0 {
		t.Fatalf("no per-granule state split by element (int32: two parts per granule): %+v", st)
	}
	// Elements 3k are read by c; 3k+1 that are odd were written by b only.
	d := thread(4, 1, map[uint32]uint64{2: 1, 3: 1})
	if _, race := s.Write(d, unsafe.Pointer(&v[7]), 4, 4); race {
		t.Fatal("v[7]: b's write and c's no read are ordered before d")
	}
	if _, race := s.Write(d, unsafe.Pointer(&v[8]), 4, 4); !race {
		t.Fatal("v[8]: a's write is not ordered before d")
	}
}

// TestLUFactorization runs the triangular pattern of LU factorization:
// in step k, row k (the pivot row) is read by every goroutine over columns
// [k, n), and each row i > k is read and written over columns [k, n) by
// goroutine i%P. Rows are separate arrays. There are no races; the rows
// keep runs (one block per step cut off at the front).
func TestLUFactorization(t *testing.T) {
	quiet(t)
	s := NewSpace()
	const n, P = 96, 4
	rows := make([][]float64, n)
	for i := range rows {
		rows[i] = escape(make([]float64, n))
	}
	ts := threads(P)
	for i := range rows {
		s.AccessRange(ts[0], unsafe.Pointer(&rows[i][0]), 8, 0, n, 1, true, 1)
	}
	barrier(ts...)
	for k := 0; k < n-1; k++ {
		for w, th := range ts {
			piv := unsafe.Pointer(&rows[k][0])
			if _, race := s.AccessRange(th, piv, 8, k, n, 1, false, 2); race {
				t.Fatalf("step %d: pivot row read races", k)
			}
			for i := k + 1; i < n; i++ {
				if i%P != w {
					continue
				}
				row := unsafe.Pointer(&rows[i][0])
				if _, race := s.AccessRange(th, row, 8, k, n, 1, false, 3); race {
					t.Fatalf("step %d: row %d read races", k, i)
				}
				if _, race := s.AccessRange(th, row, 8, k, n, 1, true, 4); race {
					t.Fatalf("step %d: row %d write races", k, i)
				}
			}
		}
		barrier(ts...)
	}
	st := s.ShapeStats()
	// The last columns of each row stay a run of at least minRun granules.
	if st.Coarse+st.Block < n/2 {
		t.Fatalf("triangular pattern lost its runs: %+v", st)
	}
	// A goroutine writing into a row another one owns, unordered: race.
	x := thread(9, 1, nil)
	if _, race := s.AccessRange(x, unsafe.Pointer(&rows[50][0]), 8, 60, 70, 1, true, 5); !race {
		t.Fatal("no race in the factored matrix")
	}
}

// diffSeeds is the number of random traces TestDifferential runs.
var diffSeeds = flag.Int64("diffseeds", 40, "random traces for TestDifferential")

// refSpace is the reference for TestDifferential: one FastTrack cell per
// byte, nothing shared.
type refSpace map[uintptr]*cell

func (m refSpace) access(t *Thread, a, size uintptr, write bool) bool {
	found := false
	for b := a; b < a+size; b++ {
		c := m[b]
		if c == nil {
			c = new(cell)
			m[b] = c
		}
		if _, ok := c.access(t, write, 0); ok {
			found = true
		}
	}
	return found
}

// TestDifferential runs random traces of accesses, range checks, strided
// checks and synchronization by several threads against the shadow and
// against per-byte FastTrack state, and checks that every step finds a
// race in both or in neither.
func TestDifferential(t *testing.T) {
	quiet(t)
	var shapes ShapeStats
	seeds := *diffSeeds
	if raceEnabled && seeds > 8 {
		seeds = 8
	}
	for seed := int64(1); seed <= seeds; seed++ {
		rng := rand.New(rand.NewSource(seed))
		s := NewSpace()
		ref := refSpace{}
		const size = 3*pageSize + 512
		buf := escape(make([]byte, size+pageSize))
		// A fixed position relative to pages, so runs cross page edges.
		off := (pageSize - uintptr(unsafe.Pointer(&buf[0]))&(pageSize-1) + uintptr(rng.Intn(64))*8 + 4096 - 256) % pageSize
		p := unsafe.Pointer(&buf[off])
		base := uintptr(p)
		ts := threads(2 + rng.Intn(3))
		// Even seeds are structured like array programs: one element
		// size, blocks and small strides, few single accesses; odd seeds
		// mix everything.
		structured := seed%2 == 0
		fixedElem := []uintptr{8, 4, 8, 2}[rng.Intn(4)]
		var published [][]uint64
		for step := 0; step < 600; step++ {
			th := ts[rng.Intn(len(ts))]
			write := rng.Intn(2) == 0
			var got, want bool
			desc := ""
			switch op := rng.Intn(20); {
			case op < 2: // release
				published = append(published, release(th))
				continue
			case op < 4: // acquire
				if len(published) > 0 {
					acquire(th, published[rng.Intn(len(published))])
				}
				continue
			case op < 5:
				barrier(ts...)
				continue
			case op < 9 && (!structured || rng.Intn(6) == 0): // single access
				sz := uintptr(1) << rng.Intn(4)
				if structured {
					sz = fixedElem
				}
				a := uintptr(rng.Intn(size-8)) &^ (sz - 1)
				if rng.Intn(8) == 0 && !structured {
					a = uintptr(rng.Intn(size - 8))
				}
				if rng.Intn(2) == 0 {
					_, got = s.AccessSparse(th, ptrOf(base+a), sz, write, 1)
				} else {
					_, got = s.Access(th, ptrOf(base+a), sz, write, 1)
				}
				want = ref.access(th, base+a, sz, write)
				desc = fmt.Sprintf("access %d+%d", a, sz)
			case op < 16 || structured: // range
				elem := []uintptr{1, 2, 4, 8, 8, 8, 12, 16}[rng.Intn(8)]
				stride := []int{1, 1, 1, 2, 2, 3, 4, 7}[rng.Intn(8)]
				if structured {
					elem = fixedElem
					stride = []int{1, 1, 1, 1, 2, 2, 4}[rng.Intn(7)]
					if seed%4 == 0 {
						stride = 1 // blocks only
					}
				}
				nel := int(size / elem)
				lo, hi := rng.Intn(nel), rng.Intn(nel+1)
				if rng.Intn(3) == 0 {
					// Blocks: a multiple of a partition.
					P := 2 + rng.Intn(4)
					b := rng.Intn(P)
					lo, hi = b*nel/P, (b+1)*nel/P
				}
				if rng.Intn(4) == 0 {
					lo, hi = 0, nel
				}
				_, got = s.AccessRange(th, ptrOf(base), elem, lo, hi, stride, write, 2)
				for i := lo; i < hi; i += stride {
					if ref.access(th, base+uintptr(i)*elem, elem, write) {
						want = true
					}
				}
				desc = fmt.Sprintf("range elem %d [%d,%d) stride %d", elem, lo, hi, stride)
			default: // strided footprint
				sz := uintptr(1 + rng.Intn(8))
				stp := sz + uintptr(rng.Intn(24))
				if rng.Intn(4) == 0 {
					stp = 0
				}
				a := uintptr(rng.Intn(size / 2))
				maxN := 1
				if stp > 0 {
					maxN = int((size - a - sz) / stp)
				}
				n := 1 + rng.Intn(maxN)
				_, got = s.AccessStrided(th, ptrOf(base+a), sz, stp, n, write, 3)
				if stp == 0 {
					n = 1
				}
				for i := 0; i < n; i++ {
					if ref.access(th, base+a+uintptr(i)*stp, sz, write) {
						want = true
					}
				}
				desc = fmt.Sprintf("strided %d+%d step %d n %d", a, sz, stp, n)
			}
			if got != want {
				t.Fatalf("seed %d step %d: thread %d write=%v %s: shadow race %v, per-byte race %v\n%+v",
					seed, step, th.Epoch.TID(), write, desc, got, want, s.ShapeStats())
			}
			if step%50 == 0 {
				st := s.ShapeStats()
				shapes.Coarse += st.Coarse
				shapes.Block += st.Block
				shapes.Stride += st.Stride
				shapes.Mapped += st.Mapped
				shapes.Fine += st.Fine
				shapes.Split += st.Split
			}
		}
	}
	// The traces must exercise every representation.
	if shapes.Coarse == 0 || shapes.Block == 0 || shapes.Stride == 0 || shapes.Mapped == 0 || shapes.Fine == 0 || shapes.Split == 0 {
		t.Fatalf("representations not exercised: %+v", shapes)
	}
	t.Logf("sampled shapes: %+v", shapes)
}

// TestRunStencilShape runs the red-black stencil pattern over one row: a
// stride-2 write from element 2 creates a stride run; later phases read
// the row contiguously from one element before their first write
// (row[j-1]), write either colour with stride 2, and read one colour with
// stride 2 from element 1, as the stencil reads its neighbour rows. The
// row must keep its runs (a span that starts before the run's first
// element still has its element grid), so each check stays one operation
// per run; a write unordered with another thread's read of the same
// elements is still a race.
func TestRunStencilShape(t *testing.T) {
	quiet(t)
	s := NewSpace()
	const n = 1000
	v := escape(make([]float64, n))
	p := unsafe.Pointer(&v[0])
	ts := threads(2)
	for phase := 0; phase < 4; phase++ {
		th := ts[phase%2]
		first := 2 - phase%2
		if _, race := s.AccessRange(th, p, 8, first, n-1, 2, true, 2); race {
			t.Fatalf("phase %d: write races", phase)
		}
		if _, race := s.AccessRange(th, p, 8, first-1, n, 1, false, 1); race {
			t.Fatalf("phase %d: read races", phase)
		}
		barrier(ts...)
		if _, race := s.AccessRange(ts[(phase+1)%2], p, 8, 1, n-1, 2, false, 3); race {
			t.Fatalf("phase %d: neighbour read races", phase)
		}
		barrier(ts...)
	}
	st := s.ShapeStats()
	if st.Fine > 8 || st.Stride == 0 {
		t.Fatalf("stencil refined the row to per-granule state: %+v", st)
	}
	ops := ts[0].Stats.Checks
	s.AccessRange(ts[0], p, 8, 1, n-1, 2, true, 2)
	if d := ts[0].Stats.Checks - ops; d > 8 {
		t.Fatalf("a strided write over runs took %d shadow operations", d)
	}
	// Thread 2 reads without synchronizing with thread 1's write.
	if _, race := s.AccessRange(ts[1], p, 8, 0, n, 1, false, 3); !race {
		t.Fatal("unordered read after write: no race")
	}
}

// TestRunMapped runs the sparse pattern of a block-partitioned array: a
// goroutine writes its block, and after a barrier a conditional a[i]
// (every fourth element here) reads a sparse set of it, then one element
// per 256 is read with a stride. The block keeps no per-granule state:
// its pages become mapped runs, with exact per-element races, and a later
// read of the whole block and a sweep make them block runs again.
func TestRunMapped(t *testing.T) {
	quiet(t)
	s := NewSpace()
	const n = 4096 // 4 pages of uint32
	v := escape(make([]uint32, n))
	p := unsafe.Pointer(&v[0])
	ts := threads(3)
	a, b, c := ts[0], ts[1], ts[2]
	s.AccessRange(a, p, 4, 0, n, 1, true, 1)
	barrier(ts...)
	for i := 0; i < n; i += 4 {
		if _, race := s.AccessSparse(b, unsafe.Pointer(&v[i]), 4, false, 2); race {
			t.Fatalf("sparse read of v[%d] races", i)
		}
	}
	s.AccessStrided(b, unsafe.Pointer(&v[1]), 4, 256*4, n/256, false, 3)
	st := s.ShapeStats()
	if st.Fine != 0 || st.Mapped == 0 {
		t.Fatalf("sparse reads split the block: %+v", st)
	}
	// c is ordered after a's write, not after b's reads.
	if _, race := s.Write(c, unsafe.Pointer(&v[2]), 4, 4); race {
		t.Fatal("v[2] was not read by b: no race")
	}
	if _, race := s.Write(c, unsafe.Pointer(&v[257]), 4, 4); !race {
		t.Fatal("v[257] was read by b's strided check: race")
	}
	if _, race := s.AccessRange(c, p, 4, 8, 12, 1, true, 4); !race {
		t.Fatal("v[8] was read by b: race")
	}
	barrier(ts...)
	// A byte of an element: a finer map, still exact.
	if _, race := s.AccessSparse(a, unsafe.Add(p, 4*100+1), 1, true, 5); race {
		t.Fatal("byte write after the barrier races")
	}
	barrier(ts...)
	if _, race := s.AccessRange(a, p, 4, 0, n, 1, false, 6); race {
		t.Fatal("whole read after the barrier races")
	}
	// The pages stay mapped, their elements in one entry (unify); the
	// sweep makes them block runs. Byte 1 of v[100] has its own write
	// epoch: its page stays mapped.
	s.Sweep()
	if st := s.ShapeStats(); st.Mapped != 1 || st.Fine != 0 {
		t.Fatalf("a whole read and a sweep did not make the other pages block runs: %+v", st)
	}
	if _, race := s.AccessRange(a, p, 4, 0, n, 1, true, 6); race {
		t.Fatal("whole write after the barrier races")
	}
	s.Sweep()
	if st := s.ShapeStats(); st.Mapped != 0 || st.Fine != 0 {
		t.Fatalf("a whole write and a sweep did not make the block one run per page: %+v", st)
	}
}

// mappedRunAt returns the mapped run that holds the state of p, or nil.
func mappedRunAt(s *Space, p unsafe.Pointer) *run {
	a := uintptr(p)
	pg := s.pages.Load(a >> pageShift)
	if pg == nil {
		return nil
	}
	g := pg.slot(a & (pageSize - 1) >> 3)
	if g == nil || !g.isRun() || asRun(g).m == nil {
		return nil
	}
	return asRun(g)
}

// TestRunMappedUnify alternates a sparse check and a whole one over a
// block, the passes of a compaction: a page that a check makes uniform
// stays the same mapped run, its elements in entry 0 (unify), so the next
// sparse check allocates nothing; its state, wherever it was in the
// palette, is entry 0's, and the races stay exact. The sweep makes a
// uniform run a block run.
func TestRunMappedUnify(t *testing.T) {
	quiet(t)
	s := NewSpace()
	const n = 1024 // a page of uint32
	v := escape(make([]uint32, n))
	p := unsafe.Pointer(&v[0])
	whole := &span{start: uintptr(p), end: uintptr(p) + 4*n, elem: 4, period: 4}
	ts := threads(3)
	a, b, c := ts[0], ts[1], ts[2]
	s.AccessRange(a, p, 4, 0, n, 1, true, 1)
	barrier(ts...)
	var r0 *run
	unified := func(what string) {
		t.Helper()
		r := mappedRunAt(s, p)
		if r == nil || r != r0 || !r.m.one.Load() || r.m.refs[0] != n {
			t.Fatalf("%s did not unify the mapped run", what)
		}
		// Same epoch: the fast path checks entry 0.
		if _, ok := r.sameMapped(a, whole, whole.start, whole.end, true, true); !ok {
			t.Fatalf("after %s, the same-epoch fast path failed", what)
		}
	}
	for pass := 0; pass < 3; pass++ {
		for i := pass; i < n; i += 3 {
			s.AccessSparse(a, unsafe.Pointer(&v[i]), 4, true, 2)
		}
		r := mappedRunAt(s, p)
		if r == nil || r0 != nil && r != r0 {
			t.Fatalf("pass %d: the sparse write left no mapped run, or a new one", pass)
		}
		r0 = r
		if r.m.one.Load() {
			t.Fatalf("pass %d: a sparse write left every element in one entry", pass)
		}
		barrier(ts...)
		if _, race := s.AccessRange(a, p, 4, 0, n, 1, true, 3); race {
			t.Fatalf("pass %d: whole write after the barrier races", pass)
		}
		unified("a whole write")
		barrier(ts...)
	}
	// Every element written one at a time: the elements move to a new
	// entry one by one, and the last write finds them all in one state.
	for i := 0; i < n; i++ {
		s.AccessSparse(a, unsafe.Pointer(&v[i]), 4, true, 4)
	}
	unified("writes of every element")
	s.Sweep()
	if st := s.ShapeStats(); st.Mapped != 0 || st.Fine != 0 || st.Block != 1 {
		t.Fatalf("the sweep did not make the unified run a block run: %+v", st)
	}
	// b is ordered after those writes, c is not.
	acquire(b, release(a))
	if _, race := s.Read(b, unsafe.Pointer(&v[5]), 4, 5); race {
		t.Fatal("ordered read after the unified writes races")
	}
	if _, race := s.Read(c, unsafe.Pointer(&v[6]), 4, 6); !race {
		t.Fatal("unordered read after the unified writes: no race")
	}
}

// TestRunMappedOverflow gives one page of a mapped run more distinct
// states than its map holds: it falls back to per-granule state, with
// the same races.
func TestRunMappedOverflow(t *testing.T) {
	quiet(t)
	s := NewSpace()
	const n = 1024
	v := escape(make([]uint32, n))
	p := unsafe.Pointer(&v[0])
	ts := threads(2)
	a, b := ts[0], ts[1]
	s.AccessRange(a, p, 4, 0, n, 1, true, 1)
	barrier(ts...)
	for i := 0; i < 2*maxEntries; i++ {
		s.AccessSparse(a, unsafe.Pointer(&v[i*8]), 4, true, uint32(10+i))
	}
	if st := s.ShapeStats(); st.Fine == 0 {
		t.Fatalf("no per-granule state after %d states: %+v", 2*maxEntries, st)
	}
	if _, race := s.Write(b, unsafe.Pointer(&v[8*7]), 4, 2); !race {
		t.Fatal("v[56]: a's write is not ordered before b")
	}
	barrier(ts...)
	if _, race := s.AccessRange(b, p, 4, 0, n, 1, true, 3); race {
		t.Fatal("write after the barrier races")
	}
}

// TestSpanStaysInside: a range check over elements of several granules
// whose word loop stops inside an element (per-granule state, then one
// clean granule too few for a run) checks the rest of that element, not
// a whole element from there: nothing past the span gets state (it may
// be another object's memory, or none).
func TestSpanStaysInside(t *testing.T) {
	quiet(t)
	s := NewSpace()
	a := thread(1, 1, nil)
	buf := escape(new([64]uint64)) // 512 bytes; the range covers the first 256
	base := unsafe.Pointer(buf)
	for g := 24; g < 31; g++ { // element 3's granules but its last
		s.Write(a, unsafe.Add(base, g*8), 8, 0)
	}
	if _, race := s.AccessRange(a, base, 64, 0, 4, 1, true, 0); race {
		t.Fatal("a goroutine's range check races with its own writes")
	}
	past := uintptr(base) + 256
	if pg := s.pages.Load(past >> pageShift); pg != nil {
		if gr := pg.slot((past & (pageSize - 1)) >> 3); gr != nil {
			t.Errorf("the range check left state past its span, at +256: %+v", gr)
		}
	}
	b := thread(2, 1, nil) // unordered with a
	if _, race := s.Write(b, unsafe.Add(base, 256), 8, 0); race {
		t.Error("a write past the range races with it")
	}
	if _, race := s.Write(b, unsafe.Add(base, 248), 8, 0); !race {
		t.Error("the range's last granule was not checked")
	}
	runtime.KeepAlive(buf)
}

// TestRunCutAllocs checks that a lone access that cuts one granule out of a
// run allocates that granule and nothing else: the pivot column of an LU
// factorization, read element by element at every step, used to make a
// run piece per cut that refinement then dropped.
func TestRunCutAllocs(t *testing.T) {
	quiet(t)
	s := NewSpace()
	const n = 4096 // 32 KiB: a large object, page-aligned
	a := escape(make([]float64, n))
	ts := threads(2)
	s.AccessRange(ts[0], unsafe.Pointer(&a[0]), 8, 0, n, 1, true, 1)
	barrier(ts...)
	i := 0
	allocs := testing.AllocsPerRun(100, func() {
		// The run's first element: the run keeps the rest.
		if _, race := s.Read(ts[1], unsafe.Pointer(&a[i]), 8, 2); race {
			t.Fatalf("element %d: ordered read races", i)
		}
		i++
	})
	if allocs > 1 {
		t.Errorf("a cut of one granule out of a run: %v allocations, want 1", allocs)
	}
	if g := slotAt(s, unsafe.Pointer(&a[i])); g == nil || !g.isRun() {
		t.Errorf("element %d after the cuts is not in a run", i)
	}
	// The cut granules kept the run's state: an unordered write races.
	x := thread(9, 1, nil)
	if _, race := s.Write(x, unsafe.Pointer(&a[3]), 8, 3); !race {
		t.Error("no race with the state of a cut granule")
	}
	if _, race := s.Write(x, unsafe.Pointer(&a[n-1]), 8, 3); !race {
		t.Error("no race with the state the run kept")
	}
}

// TestRunOfOneClassOneObject checks that a run of one class is allocated
// with its cell (run1): refinement reshapes runs by the hundred thousand
// on a sort, and each was a run and a slice of cells.
func TestRunOfOneClassOneObject(t *testing.T) {
	r := allocRun(3)
	if len(r.cells) != 3 {
		t.Fatalf("allocRun(3): %d cells", len(r.cells))
	}
	var nr *run
	allocs := testing.AllocsPerRun(100, func() { nr = r.reshaped(0, 8, 1) })
	if allocs != 1 {
		t.Errorf("reshaped to one class: %v allocations, want 1", allocs)
	}
	if len(nr.cells) != 1 || uintptr(unsafe.Pointer(&nr.cells[0])) != uintptr(unsafe.Pointer(nr))+unsafe.Sizeof(run{}) {
		t.Errorf("the run's cell is not its own: %p, run at %p", &nr.cells[0], nr)
	}
	if allocs := testing.AllocsPerRun(100, func() { nr = r.reshaped(0, 8, 2) }); allocs != 2 {
		t.Errorf("reshaped to two classes: %v allocations, want 2", allocs)
	}
}

// TestRunReadOwnWrite checks that a goroutine's reads of a run it wrote
// in its current epoch leave the run whole (cell.ownWrite): a sort of a
// copy it just made compares its elements field by field, and each read
// cut the run, a new run on the heap per cut. The write still decides
// what a later access conflicts with.
func TestRunReadOwnWrite(t *testing.T) {
	quiet(t)
	s := NewSpace()
	const n = 512 // a page of float64s
	a := escape(make([]float64, 2*n))
	ts := threads(1)
	s.AccessRange(ts[0], unsafe.Pointer(&a[0]), 8, 0, 2*n, 1, true, 1)
	i := 1
	allocs := testing.AllocsPerRun(100, func() {
		if _, race := s.Read(ts[0], unsafe.Pointer(&a[i]), 8, 2); race {
			t.Fatalf("element %d: a read of the goroutine's own write races", i)
		}
		// Part of an element, and one a range check reads.
		if _, race := s.Read(ts[0], unsafe.Pointer(&a[i+n/2]), 4, 2); race {
			t.Fatalf("element %d: a read of the goroutine's own write races", i+n/2)
		}
		if _, race := s.AccessRange(ts[0], unsafe.Pointer(&a[0]), 8, i+2, i+4, 1, false, 3); race {
			t.Fatalf("elements %d-%d: a read of the goroutine's own write races", i+2, i+4)
		}
		i += 3
	})
	if allocs != 0 {
		t.Errorf("reads of the goroutine's own write: %v allocations, want 0", allocs)
	}
	for j := range a {
		if g := slotAt(s, unsafe.Pointer(&a[j])); g == nil || !g.isRun() {
			t.Fatalf("element %d after the reads is not in a run", j)
		}
	}
	if st := s.ShapeStats(); st.Fine != 0 {
		t.Errorf("%d granules of per-granule state after the reads, want 0", st.Fine)
	}
	// An unordered write conflicts with the write, which every read
	// left in place, and so with each read.
	x := thread(9, 1, nil)
	race, found := s.Write(x, unsafe.Pointer(&a[4]), 8, 4)
	if !found || !race.PrevWrite || race.Prev != ts[0].Epoch {
		t.Errorf("unordered write after the reads: %+v, %v; want a race with t0's write at %v", race, found, ts[0].Epoch)
	}
	// A read in a later epoch is recorded: it cuts the run as before.
	barrier(ts[0], x)
	if _, race := s.Read(ts[0], unsafe.Pointer(&a[n+8]), 8, 5); race {
		t.Fatal("a read after the barrier races")
	}
	if st := s.ShapeStats(); st.Fine == 0 {
		t.Error("a read in a later epoch left the run whole")
	}
}

// TestSmallObjectNoRun checks that a range check over a heap object of
// fewer than minRunObject bytes (112: a [15]int64 is in the size class of
// 128) gives it per-granule state off the heap,
// not a run: a run is a heap object, and a new object's run needs an
// ident, two heap objects per slice an append grows. The state is as
// exact as a run's; a larger object still gets a run.
func TestSmallObjectNoRun(t *testing.T) {
	if !recycleGranules {
		t.Skip("off-heap memory is heap memory under go test -race")
	}
	quiet(t)
	untracked(t)
	s := NewSpace()
	const nobj = 100
	objs := make([]*[minRunObject/8 - 2]int64, nobj+1)
	for i := range objs {
		objs[i] = escape(new([minRunObject/8 - 2]int64))
	}
	a := thread(1, 1, nil)
	// The pages and their slot arrays exist before the count.
	s.AccessRange(a, unsafe.Pointer(&objs[nobj][0]), 8, 0, len(objs[nobj]), 1, true, 1)
	i := 0
	allocs := testing.AllocsPerRun(nobj-1, func() {
		o := unsafe.Pointer(&objs[i][0])
		if _, race := s.AccessRange(a, o, 8, 0, len(objs[i]), 1, true, 1); race {
			t.Fatalf("object %d: a write of a fresh object races", i)
		}
		if _, race := s.AccessRange(a, o, 8, 2, 9, 1, false, 2); race {
			t.Fatalf("object %d: a read of the goroutine's own write races", i)
		}
		i++
	})
	if allocs != 0 {
		t.Errorf("range checks of objects of %d bytes: %v heap allocations, want 0", len(objs[0])*8, allocs)
	}
	for j := range objs[0] {
		if g := slotAt(s, unsafe.Pointer(&objs[0][j])); g == nil || g.isRun() || !g.off {
			t.Fatalf("element %d of a small object: slot %+v, want an off-heap granule", j, g)
		}
	}
	// Each element's state is exact: an unordered write of one races
	// with the write, an ordered one does not.
	b := thread(2, 1, nil)
	race, found := s.Write(b, unsafe.Pointer(&objs[0][5]), 8, 3)
	if !found || !race.PrevWrite || race.Prev != a.Epoch {
		t.Errorf("unordered write: %+v, %v; want a race with a's write at %v", race, found, a.Epoch)
	}
	c := thread(3, 1, map[uint32]uint64{1: 1})
	if _, race := s.Write(c, unsafe.Pointer(&objs[1][5]), 8, 4); race {
		t.Error("ordered write races")
	}
	// An object of minRunObject bytes gets a run.
	big := escape(new([minRunObject / 8]int64))
	s.AccessRange(a, unsafe.Pointer(&big[0]), 8, 0, len(big), 1, true, 5)
	if g := slotAt(s, unsafe.Pointer(&big[3])); g == nil || !g.isRun() {
		t.Errorf("an object of %d bytes: slot %+v, want a run", len(big)*8, g)
	}
}

// TestRunStrideFromInside checks that strided spans whose elements all
// start inside granules (a pixel row's second, third and fourth bytes,
// committed before its first) make a stride run over clean memory, one
// class each, and that the run keeps each class's epoch and site.
func TestRunStrideFromInside(t *testing.T) {
	quiet(t)
	s := NewSpace()
	const n = 64 // pixels
	buf := escape(make([]byte, 4*n))
	p := unsafe.Pointer(&buf[0])
	a := thread(1, 1, nil)
	for _, ch := range []uintptr{3, 2, 1, 0} {
		if _, race := s.AccessStrided(a, unsafe.Add(p, ch), 1, 4, n, true, uint32(10+ch)); race {
			t.Fatalf("channel %d races", ch)
		}
	}
	if st := s.ShapeStats(); st.Stride != 1 || st.Fine != 0 || st.Split != 0 {
		t.Fatalf("shape: %+v, want one stride run", st)
	}
	b := thread(2, 1, nil)
	if r, race := s.Write(b, unsafe.Pointer(&buf[4*17+2]), 1, 20); !race || r.Prev != a.Epoch || r.PrevSite != 12 {
		t.Fatalf("race with channel 2: %+v %v", r, race)
	}
	c := thread(3, 1, map[uint32]uint64{1: 1})
	if _, race := s.AccessStrided(c, unsafe.Add(p, 3), 1, 4, n, false, 21); race {
		t.Fatal("ordered read of channel 3 races")
	}
	runtime.KeepAlive(buf)
}

// TestSpanCovers checks which strided spans cover their classes of a
// run that starts before or ends after them (span.covers), and which
// elements may start a run in their granule (span.startsIn).
func TestSpanCovers(t *testing.T) {
	for _, tc := range []struct {
		sp      span
		S, E    uintptr
		aligned bool
		want    bool
	}{
		{span{start: 1003, end: 1100, elem: 1, period: 4}, 1000, 1096, true, true},    // from byte 3 of a granule
		{span{start: 1007, end: 1100, elem: 1, period: 4}, 1000, 1096, true, false},   // misses byte 1003
		{span{start: 1003, end: 1092, elem: 1, period: 4}, 1000, 1096, true, false},   // misses byte 1095
		{span{start: 1008, end: 1096, elem: 16, period: 16}, 1000, 1096, true, false}, // misses [1000, 1008) of an element
		{span{start: 1003, end: 1100, elem: 1, period: 4}, 1000, 1096, false, false},
		{span{start: 1000, end: 1096, elem: 1, period: 1}, 1000, 1096, true, true},
	} {
		if got := tc.sp.covers(tc.S, tc.E, tc.aligned); got != tc.want {
			t.Errorf("%+v covers [%d, %d) aligned %v: %v, want %v", tc.sp, tc.S, tc.E, tc.aligned, got, tc.want)
		}
	}
	sp := span{start: 1001, end: 1100, elem: 1, period: 4}
	for x, want := range map[uintptr]bool{1001: true, 1005: false, 1009: true, 1013: false} {
		if got := sp.startsIn(x); got != want {
			t.Errorf("startsIn(%d) = %v, want %v", x, got, want)
		}
	}
	if c := (span{start: 1001, end: 1100, elem: 1, period: 1}); c.startsIn(1001) {
		t.Error("a contiguous span's run would hold bytes before it")
	}
}
