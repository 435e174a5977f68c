// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import "unsafe"

// Goroutines started and ended by the runtime's hooks (driver/gohook.go),
// where go -race's racegostart and racegoend run: an instrumented go
// statement stays a go statement of the user's function,
//
//	go f(a, b)  ->  { __bft1 := a; __bft2 := b; __bfg.ForkNext(site); go f(__bft1, __bft2) }
//
// so that no frame of bigfoot's is in the goroutine's stacks. Without the
// hooks (a toolchain whose runtime does not take them), the go statement
// runs Go, Go1, Go2, Go3 or a function literal that calls Start and defers
// Exit.

// runtimeSetChild stores c in the calling goroutine's g (its racectx),
// where the runtime's newproc1 takes it for the goroutine the next go
// statement creates; runtimeTakeChild takes the value of the calling
// goroutine's g and clears it. The runtime sets both in its init; they are
// nil without the hooks.
// runtimeGoidOff is the offset of goid in the runtime's g, which the
// runtime's init sets with them (0 without the hooks): calibrate, which
// finds it by starting goroutines the program would see at its start
// (runtime.NumGoroutine, the goroutine profile, the ids of its own
// goroutines), is then not needed.
var (
	runtimeSetChild  func(c uintptr)
	runtimeTakeChild func() uintptr
	runtimeGoidOff   uintptr
)

// goEnd is what the runtime calls when a goroutine exits (goexit1), after
// its deferred calls ran: goroutineEnd where the runtime has the hooks.
//
//lint:ignore U1000 the runtime reads it through a linkname.
var goEnd func()

func init() {
	if runtimeTakeChild != nil {
		goEnd = goroutineEnd
	}
}

// ForkNext is Fork for the go statement that follows at once: it leaves the
// new goroutine's state in the calling goroutine's g, which the runtime
// hands to the goroutine the statement creates. The goroutine adopts it when
// it first runs instrumented code (adopt) or at its end (goroutineEnd).
//
// The runtime keeps the state as a uintptr. The G stays reachable until it
// is adopted: Fork registers it among the live goroutines
// (registerLive), which only its own Exit undoes.
func (g *G) ForkNext(site uint32) {
	c := g.Fork(site)
	runtimeSetChild(uintptr(unsafe.Pointer(c.g)))
}

// adopt installs the state a go statement prepared for the calling
// goroutine (ForkNext), whose runtime key and g are key and gp, and returns
// it; nil if there is none.
func adopt(key uintptr, gp unsafe.Pointer) *G {
	if runtimeTakeChild == nil {
		return nil
	}
	if slotOff != 0 {
		// The word may hold the goroutine's own state (G.keep).
		if w := *slot(gp); w == 0 || w&1 != 0 {
			return nil
		}
	}
	p := runtimeTakeChild()
	if p == 0 {
		return nil
	}
	g := *(**G)(unsafe.Pointer(&p)) // reachable: see ForkNext
	g.start(key, gp)
	g.yield()
	return g
}

// goroutineEnd ends the calling goroutine's state, as Exit did in the
// deferred call of an instrumented goroutine's wrapper: the state of a
// goroutine an instrumented go statement created, adopted or not, and that
// of a goroutine started elsewhere that ran instrumented code.
func goroutineEnd() {
	key, gp := curKey()
	g := adopt(key, gp)
	if g == nil {
		g = registry.Load(key)
		if g == nil || goidOff != 0 && goidOf(gp) != g.goid {
			return
		}
	}
	g.Exit()
}
