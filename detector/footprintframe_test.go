// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import "testing"

// panicsWithFootprint pushes a footprint as an instrumented function's
// prologue does, records an access in it, and panics; its caller
// recovers.
//
//go:noinline
func panicsWithFootprint(x *[4]int) {
	__bfg := Cur()
	f := __bfg.FootprintFrame(1, false, &__bfg)
	_ = *F(f, &x[0], 1)
	panic("fail")
}

// recovers calls panicsWithFootprint and recovers from its panic, as a
// decoder's entry point recovers from the error its parser panics with.
func recovers(x *[4]int) {
	defer func() { recover() }()
	panicsWithFootprint(x)
}

// TestFootprintsOfRecoveredFrames checks that the footprints of frames a
// recovered panic unwound are popped at the next function's first
// footprint at their depth or above, and that their pending accesses are
// committed then: a goroutine that recovers many times keeps its stack of
// footprints, where they once piled up until every footprint was a heap
// object (direct).
func TestFootprintsOfRecoveredFrames(t *testing.T) {
	g := Cur()
	if g.t.GP == nil {
		t.Skip("the goroutine's stack bounds are unknown in this build")
	}
	base := g.fp.top
	x := new([4]int)
	for range 2 * fpChunk * fpMaxChunks {
		recovers(x)
	}
	if got := g.fp.top; got != base+1 {
		t.Fatalf("after %d recovered panics, %d footprints on the stack; want %d (the last one's)", 2*fpChunk*fpMaxChunks, got, base+1)
	}
	__bfg := g
	f := g.FootprintFrame(2, false, &__bfg)
	if f.direct {
		t.Fatal("a footprint pushed after the recovered panics checks each access at once: the stack is full")
	}
	if got := g.fp.top; got != base+1 {
		t.Errorf("the dead frame's footprint was not popped: %d on the stack, want %d", got, base+1)
	}
	g.PopFootprints(f)
	if got := g.fp.top; got != base {
		t.Errorf("after the pop, %d footprints on the stack, want %d", got, base)
	}
}
