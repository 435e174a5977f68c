// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

// Go, Go1, Go2 and Go3 run a goroutine created by an instrumented go
// statement whose call is plain (a function of at most three parameters
// and no results) where the runtime does not start and end goroutines
// (gohook.go): go f(a, b) becomes
//
//	{ __bft1 := a; __bft2 := b; __bft3 := __bfg.Fork(site); go __bf.Go2(__bft3, f, __bft1, __bft2) }
//
// They install the state Fork prepared, run f, and end the goroutine's
// state like Exit. Unlike a wrapper function literal they leave the
// numbering of the user's closures as the compiler gives it in the
// uninstrumented program, and their frames are dropped from reports.
func Go(c *Child, f func()) {
	g := Start(c)
	defer g.Exit()
	f()
}

// Go1 is Go for a function of one parameter.
func Go1[A any](c *Child, f func(A), a A) {
	g := Start(c)
	defer g.Exit()
	f(a)
}

// Go2 is Go for a function of two parameters.
func Go2[A, B any](c *Child, f func(A, B), a A, b B) {
	g := Start(c)
	defer g.Exit()
	f(a, b)
}

// Go3 is Go for a function of three parameters.
func Go3[A, B, C any](c *Child, f func(A, B, C), a A, b B, cc C) {
	g := Start(c)
	defer g.Exit()
	f(a, b, cc)
}
