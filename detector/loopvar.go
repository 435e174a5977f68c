// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import "unsafe"

// A LoopVar is the address of one per-iteration variable of a three-clause
// for loop (Go 1.22 and later), kept in a hidden variable declared beside
// it in the loop's init statement. That hidden variable is itself copied
// into each new iteration, so after the copy it still points at the
// previous iteration's variable: the copy, which reads that variable (as
// go -race sees it), is checked through it. See docs/instrument.md, "Loop
// variables".
type LoopVar struct {
	p    unsafe.Pointer
	size uintptr
}

// LoopNext checks the read of the previous iteration's variable that
// initialized this one (if there was one) and returns the LoopVar of p, the
// current iteration's variable: __bfl = __bf.LoopNext(__bfg, __bfl, &i, s),
// the first statement of the loop body.
func LoopNext[T any](g *G, prev LoopVar, p *T, site uint32) LoopVar {
	prev.Copied(g, site)
	return LoopOf(p)
}

// Copied checks the read of the variable l points to, made when the loop
// copied it into the next iteration's variable, and reports true: the loop
// condition becomes __bfl.Copied(__bfg, s) && (cond). A zero LoopVar (the
// first iteration) checks nothing.
func (l LoopVar) Copied(g *G, site uint32) bool {
	if l.p != nil {
		g.check(l.p, l.size, false, site)
	}
	return true
}

// LoopOf returns the LoopVar of p, the current iteration's variable, in a
// loop whose condition checks the copy (Copied): __bfl = __bf.LoopOf(&i).
func LoopOf[T any](p *T) LoopVar {
	return LoopVar{unsafe.Pointer(p), unsafe.Sizeof(*p)}
}

// ChanVar returns c and a zero value of its element type: the init of the
// loop that renders `for k := range c` where k is one variable for the
// whole loop (before Go 1.22).
func ChanVar[T any](c <-chan T) (<-chan T, T) {
	var zero T
	return c, zero
}
