// Copyright 2026 The bigfoot Authors. All rights reserved.

//go:build (amd64 || arm64) && !bigfoot_portable

package detector

import (
	"slices"
	"sync"
	"testing"
	"unsafe"
)

// TestCurSlot checks Cur's load from the goroutine's g (curG) where the
// runtime has the goroutine hooks, which only a bigfoot build of the test
// has: cmd/bigfoot's TestCurSlotUnderBigfoot runs it so. Each goroutine
// gets a G of its own, kept in its g; a go statement's prepared state is
// adopted by the goroutine it creates and leaves the parent's G to the
// registry until the parent's next Cur; a g the runtime reuses for a new
// goroutine never yields its previous goroutine's G.
func TestCurSlot(t *testing.T) {
	if runtimeSetChild == nil {
		t.Skip("the runtime has no goroutine hooks: a plain build (Cur uses the registry)")
	}
	if slotOff == 0 {
		t.Fatal("the runtime has the goroutine hooks, but calibrateSlot found no slot in runtime.g")
	}
	g := Cur()
	if curG() != g || Cur() != g {
		t.Fatalf("the goroutine's slot does not hold its G after Cur")
	}

	// Goroutines started one after another, so that the runtime reuses
	// their gs: each has a G of its own, with its own goid.
	seen := map[uint64]bool{}
	for range 200 {
		done := make(chan *G)
		go func() {
			if curG() != nil {
				t.Errorf("a new goroutine's slot holds a G before its first Cur")
			}
			c := Cur()
			if curG() != c || c.goid != curGoid(getg()) {
				t.Errorf("goroutine %d: Cur's G is not in its slot or has goid %d", curGoid(getg()), c.goid)
			}
			done <- c
		}()
		c := <-done
		if c == g || seen[c.serial] {
			t.Fatalf("a new goroutine got another goroutine's G (serial %d)", c.serial)
		}
		seen[c.serial] = true
	}

	// A goroutine whose state Start replaces (WaitGroupGo's, whose
	// goroutine may have adopted the standard library's go statement's
	// state first) finds the new one.
	done := make(chan bool)
	go func() {
		old := Cur()
		c := g.Fork(0)
		if n := Start(c); Cur() != n || curG() != n || n == old {
			t.Errorf("after Start, Cur is the goroutine's replaced state")
		}
		close(done)
	}()
	<-done

	// A go statement after ForkNext: the child adopts the prepared state;
	// the parent finds its own again.
	var wg sync.WaitGroup
	for range 20 {
		g.ForkNext(0)
		if curG() != nil {
			t.Fatal("the parent's slot holds its own G while a go statement's state waits there")
		}
		wg.Add(1)
		parent := g.serial
		go func() {
			defer wg.Done()
			c := Cur()
			if c == g || c.parent != g.goid || c.serial <= parent || curG() != c {
				t.Errorf("the child did not adopt the state its go statement prepared")
			}
		}()
		if Cur() != g || curG() != g {
			t.Fatal("the parent's Cur after a go statement is not its own G")
		}
	}
	wg.Wait()
}

// TestForkAllocs counts the heap objects of a go statement's detector
// state, beyond the goroutine's closure: the G and its vector clock, no
// more. Fork made six (the Child, a thread id's owners slice trimmed with
// a copy, and a second copy of the clock when the child's id was beyond
// the parent's clock), each one the pacer counts against a program that
// starts a goroutine per request.
func TestForkAllocs(t *testing.T) {
	g := Cur()
	done := make(chan bool)
	fork := func() {
		c := g.Fork(0)
		go func() { Start(c).Exit(); done <- true }()
		<-done
	}
	// Past the quarantine, ids come back spare: no new id, no new
	// history, as in a program's steady state.
	for range 2 * quarantine {
		fork()
	}
	// 2: the closure of the go statement and the G (its clock is
	// outside the heap).
	if n := testing.AllocsPerRun(200, fork); n > 2 {
		t.Errorf("a go statement allocates %v objects, want at most 2", n)
	}
}

// TestForkClockArray checks the life of a go statement's clock array
// outside the heap (forkG): freed at the goroutine's Exit, and moved to
// the heap when Start replaces the state while the goroutine may still
// use it (a WaitGroupGo's goroutine that adopted the standard library's
// go statement's state first).
func TestForkClockArray(t *testing.T) {
	g := Cur()
	c := g.Fork(0)
	if c.g.clockArray == nil || unsafe.SliceData(c.g.t.VC) != unsafe.SliceData(c.g.clockArray) {
		t.Fatal("a forked state's clock is not in its clock array")
	}
	done := make(chan bool)
	go func() { Start(c).Exit(); done <- true }()
	<-done
	if c.g.clockArray != nil || c.g.t.VC != nil {
		t.Error("Exit kept the clock array")
	}

	c1, c2 := g.Fork(0), g.Fork(0)
	go func() {
		defer close(done)
		a := Start(c1)
		want := slices.Clone(a.t.VC)
		array := a.clockArray
		b := Start(c2)
		defer b.Exit()
		if a.clockArray != nil || unsafe.SliceData(a.t.VC) == unsafe.SliceData(array) {
			t.Error("the replaced state still uses its clock array")
		}
		if !slices.Equal(a.t.VC, want) {
			t.Errorf("the replaced state's clock is %v, was %v", a.t.VC, want)
		}
		a.tick() // its frames may still run
	}()
	<-done
}

// TestSelectAllocs: a goroutine's select takes its cases' array from
// selectBufs and gives it back at Exit, so that a go statement whose
// goroutine selects allocates what one that does not select allocates
// (TestForkAllocs); the cases' slice grown from nothing was two objects.
func TestSelectAllocs(t *testing.T) {
	g := Cur()
	done := make(chan bool)
	a, b := make(chan int, 1), make(chan int, 1)
	fork := func() {
		c := g.Fork(0)
		go func() {
			h := Start(c)
			a <- 1
			SelectPre(h, "rr", a, b)
			select {
			case <-a:
				SelectPost(h, a, 1, true)
			case <-b:
				SelectPost(h, b, 1, true)
			}
			h.Exit()
			done <- true
		}()
		<-done
	}
	for range 2 * quarantine {
		fork()
	}
	if n := testing.AllocsPerRun(200, fork); n > 2 {
		t.Errorf("a go statement whose goroutine selects allocates %v objects, want at most 2", n)
	}
}
