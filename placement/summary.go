package placement

import (
	"go/types"

	"golang.org/x/tools/go/ssa"
)

// Effect summaries.
//
// The build instruments one package at a time, each with an SSA program
// that has bodies for that package only (imports come from export data),
// so a call into another package of the build would be a call of unknown
// effects: it would kill pending checks and break loop ranges. A FuncSummary
// says what calling a function may do, transitively; the instrumenter
// computes the summaries of each package it instruments in import order
// (its imports' summaries already known) and hands them to the kill sets
// of the packages that import it (KillSetOptions.FuncSummaries). The least
// fixed point of the kill sets over the bodies of one package, seeded with
// its imports' summaries, is the least fixed point over the bodies of the
// whole build (Go has no import cycles), so bigfoot analyze, which builds
// the whole program and restricts the kill sets to the same packages
// (KillSetOptions.Bodies), computes the same effects.
//
// Everything unknown is the worst case: a function of a package without
// summaries (not instrumented in this build), a call through an interface
// or a func value, a generic function or method (its summary would depend
// on its type arguments), recursion while a panic or return summary is
// being computed.

// A FuncSummary is what a call of a function may do.
type FuncSummary struct {
	Effects Effects `json:"e,omitempty"` // synchronization, transitively
	// MayPanic: the call may panic (conservatively: any operation that
	// can fail at run time, any call of a function that may panic).
	MayPanic bool `json:"p,omitempty"`
	// MayNotReturn: the call may run forever or block (a loop, recursion,
	// a channel operation, select) or panic.
	MayNotReturn bool `json:"l,omitempty"`
	// Simple: Facts.Simple holds (the emitter may move a field group's
	// check across the call).
	Simple bool `json:"s,omitempty"`
}

// Harmless reports whether a call with summary s returns normally
// without synchronizing: nothing another goroutine can observe separates
// what precedes the call from what follows it.
func (s FuncSummary) Harmless() bool { return s.Effects == 0 && !s.MayPanic && !s.MayNotReturn }

// worst is the summary of an unknown call.
var worst = FuncSummary{Effects: Both, MayPanic: true, MayNotReturn: true}

// FuncSummaries maps SummaryKey of a function to its summary.
type FuncSummaries map[string]FuncSummary

// SummaryKey names fn the same way in every SSA program of the build:
// the full name of its declared function or method. It is "" for the
// functions no other package can call by name: closures, synthetic
// wrappers, package initializers, generic functions, methods of generic
// types and instantiations.
func SummaryKey(fn *ssa.Function) string {
	// A function of a package imported from export data is synthetic
	// ("from type information") and has no body; built wrappers have one.
	if fn == nil || fn.Parent() != nil || fn.Synthetic != "" && len(fn.Blocks) > 0 || fn.TypeParams().Len() > 0 || len(fn.TypeArgs()) > 0 {
		return ""
	}
	obj, ok := fn.Object().(*types.Func)
	if !ok || obj.Pkg() == nil {
		return ""
	}
	if r := fn.Signature.Recv(); r != nil {
		if n, ok := derefNamed(r.Type()); ok && (n.TypeParams().Len() > 0 || n.TypeArgs().Len() > 0) {
			return ""
		}
	}
	return obj.FullName()
}

// external returns the summary ks was given for fn, a function whose body
// it does not look into.
func (ks *KillSets) external(fn *ssa.Function) (FuncSummary, bool) {
	if ks == nil || ks.ext == nil {
		return FuncSummary{}, false
	}
	k := SummaryKey(fn)
	if k == "" {
		return FuncSummary{}, false
	}
	s, ok := ks.ext[k]
	return s, ok
}

// externalLocked is external for callers that do not hold ks.mu.
func (ks *KillSets) externalLocked(fn *ssa.Function) (FuncSummary, bool) {
	if ks == nil {
		return FuncSummary{}, false
	}
	ks.mu.Lock()
	defer ks.mu.Unlock()
	return ks.external(fn)
}

// Summary returns the summary of a call of fn.
func (ks *KillSets) Summary(fn *ssa.Function) FuncSummary {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	return ks.summaryOf(fn)
}

// CallSummary returns the summary of the call (or go or defer statement)
// in: its callee's, or the worst case for a call through an interface or
// a func value. A call of a function with an HTTP handler's signature
// synchronizes (the instrumenter gives it I/O hooks).
func (ks *KillSets) CallSummary(in ssa.CallInstruction) FuncSummary {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	return ks.callSummary(in.Common(), in)
}

func (ks *KillSets) callSummary(c *ssa.CallCommon, in ssa.Instruction) FuncSummary {
	var s FuncSummary
	switch {
	case HandlerCall(in):
		return worst
	case isBuiltin(c):
		e, _ := ks.callEffects(c, false)
		s = FuncSummary{Effects: e, MayPanic: builtinMayPanic(c)}
		s.MayNotReturn = s.MayPanic
	case c.StaticCallee() != nil:
		s = ks.summaryOf(c.StaticCallee())
	default:
		return worst
	}
	switch in.(type) {
	case *ssa.Go:
		// The callee runs in another goroutine; the statement releases
		// (and panics if the func value is nil).
		return FuncSummary{Effects: Release, MayPanic: true, MayNotReturn: true}
	}
	return s
}

func isBuiltin(c *ssa.CallCommon) bool {
	_, ok := c.Value.(*ssa.Builtin)
	return ok
}

// builtinMayPanic reports whether a call of the builtin may panic
// (MayPanicAt's list).
func builtinMayPanic(c *ssa.CallCommon) bool {
	switch c.Value.(*ssa.Builtin).Name() {
	case "append", "len", "cap", "min", "max", "real", "imag", "complex", "copy":
		return false
	}
	return true
}

// summaryOf computes the summary of fn, memoized. A function met again
// while its summary is being computed (recursion) counts as panicking and
// not returning until done, which is sound: recursion may not terminate.
// Effects come from the kill sets' own fixed point.
func (ks *KillSets) summaryOf(fn *ssa.Function) FuncSummary {
	if e, ok := syncFunc(fn); ok {
		return FuncSummary{Effects: e, MayPanic: true, MayNotReturn: true}
	}
	if s, ok := ks.sum[fn]; ok {
		return s
	}
	if !ks.hasBody(fn) {
		s, ok := ks.external(fn)
		if !ok {
			s = worst
		}
		if mathPkg(fn) {
			// math's functions compute and return, also those whose
			// summary (a fact of the standard library's run) saw an
			// assembly implementation it could not look into.
			s.MayPanic, s.MayNotReturn, s.Simple = false, false, true
		}
		s.Effects = ks.of(fn) // the tables, else the summary's
		return s
	}
	ks.sum[fn] = worst
	s := FuncSummary{Effects: ks.of(fn), MayNotReturn: cyclic(fn)}
	for _, b := range fn.Blocks {
		nonNil := map[string]bool{}
		for _, in := range b.Instrs {
			switch in := in.(type) {
			case *ssa.Jump, *ssa.If, *ssa.Return, *ssa.DebugRef, *ssa.RunDefers:
				// RunDefers runs the deferred calls, summarized at
				// their Defer.
			case *ssa.Call, *ssa.Defer, *ssa.Go:
				c := ks.callSummary(in.(ssa.CallInstruction).Common(), in)
				s.MayPanic = s.MayPanic || c.MayPanic
				s.MayNotReturn = s.MayNotReturn || c.MayNotReturn
			case *ssa.Send, *ssa.Select, *ssa.Panic:
				s.MayPanic, s.MayNotReturn = true, true
			default:
				if (*Facts)(nil).MayPanicAt(in, nonNil) {
					s.MayPanic = true
				}
				if u, ok := in.(*ssa.UnOp); ok && u.Op.String() == "<-" {
					s.MayNotReturn = true
				}
			}
			noteNonNil(in, nonNil)
		}
	}
	s.MayNotReturn = s.MayNotReturn || s.MayPanic
	ks.sum[fn] = s
	return s
}

// mathPkg reports whether fn belongs to package math, whose functions
// compute and return (Facts.Simple).
func mathPkg(fn *ssa.Function) bool {
	if fn.Pkg != nil {
		return fn.Pkg.Pkg.Path() == "math"
	}
	obj := fn.Object()
	return obj != nil && obj.Pkg() != nil && obj.Pkg().Path() == "math"
}

// cyclic reports whether fn's control-flow graph has a cycle.
func cyclic(fn *ssa.Function) bool {
	state := map[*ssa.BasicBlock]int{}
	var visit func(b *ssa.BasicBlock) bool
	visit = func(b *ssa.BasicBlock) bool {
		state[b] = 1
		for _, x := range b.Succs {
			if state[x] == 1 || state[x] == 0 && visit(x) {
				return true
			}
		}
		state[b] = 2
		return false
	}
	return len(fn.Blocks) > 0 && visit(fn.Blocks[0])
}

// Export returns the summaries of the functions of pkg that other
// packages can call by name (SummaryKey), for the kill sets of the
// packages that import it.
func (ks *KillSets) Export(pkg *ssa.Package) FuncSummaries {
	out := FuncSummaries{}
	facts := NewFacts(ks, nil)
	for fn := range allFunctions(pkg.Prog) {
		if fn.Pkg != pkg {
			continue
		}
		k := SummaryKey(fn)
		if k == "" {
			continue
		}
		s := ks.Summary(fn)
		s.Simple = facts.Simple(fn)
		out[k] = s
	}
	return out
}
