package placement

import (
	"go/token"
	"go/types"
	"sort"
	"sync"

	"golang.org/x/tools/go/ssa"
)

// Effects says which kinds of synchronization an operation may perform.
// KillSetHistory and KillSetAnticipated of [Call] follow from it: an acquire
// kills anticipated accesses, a release kills past accesses and past checks
// (Rhodes' thesis §3.3.3).
type Effects uint8

const (
	Acquire Effects = 1 << iota // may acquire: later checks do not cover earlier accesses
	Release                     // may release: earlier checks do not cover later accesses
	Both    = Acquire | Release
)

func (e Effects) String() string {
	switch e {
	case Acquire:
		return "acquire"
	case Release:
		return "release"
	case Both:
		return "acquire+release"
	}
	return "none"
}

// KillSets holds each function's transitive synchronization effects, the
// whole-program pass of §3.5 (Rhodes' thesis §3.5). Calls are
// resolved statically (ssa.CallCommon.StaticCallee); a call through an
// interface or a func value, or to a function without a body in the
// program, may do anything (Both), except the known synchronization
// functions of sync and sync/atomic, which are classified exactly, and the
// sync-free standard packages of pureStd.
//
// A KillSets is safe for concurrent use.
type KillSets struct {
	mu  sync.Mutex // guards fx, which lazy extends, and sum
	fx  map[*ssa.Function]Effects
	sum map[*ssa.Function]FuncSummary // summaryOf's memo
	// ext holds the summaries of functions whose bodies the program
	// lacks (other packages of the build, summary.go).
	ext FuncSummaries
	// bodies, if set, says which packages' bodies count: the functions
	// of the others are treated as if the program had no body for them.
	bodies func(*ssa.Package) bool
}

// KillSetOptions configures NewKillSetsWith.
type KillSetOptions struct {
	// Summaries of the functions of other packages of the build whose
	// bodies the program lacks (it imports them from export data).
	Summaries FuncSummaries
	// Bodies, if set, restricts the bodies the kill sets look into to
	// the packages it accepts: the others' functions are effects-unknown
	// unless a table (sync, sync/atomic, pureStd) or Summaries knows
	// them. bigfoot analyze, which builds the whole program, restricts
	// itself to the packages the build instruments so that the report
	// and the binary agree.
	Bodies func(*ssa.Package) bool
}

// pureStd lists standard packages whose functions never synchronize and
// never call back into user code, provided no parameter or receiver holds
// a func or an interface (through which user code could run: sort.Slice's
// less, the Stringer that fmt calls, strconv.NumError's Err). fmt and
// sort are therefore absent, and so is hash/crc32: its Update loads an
// atomic.Bool and its tables are built by sync.OnceFunc, which the
// detector, instrumenting the standard library, makes synchronization
// (TestPureStdDoesNotSynchronize checks the list against the bodies).
var pureStd = map[string]bool{
	"math": true, "math/bits": true, "math/cmplx": true, "strings": true,
	"strconv": true, "unicode": true, "unicode/utf8": true, "unicode/utf16": true,
	"bytes": true, "errors": true, "unsafe": true, "slices": true, "maps": true,
	"cmp": true, "hash/fnv": true, "encoding/binary": true,
}

// NewKillSets computes the effects of every function with a body in prog.
func NewKillSets(prog *ssa.Program) *KillSets {
	return NewKillSetsWith(prog, KillSetOptions{})
}

// NewKillSetsWith computes the effects of every function of prog whose
// body opts lets it see, using opts.Summaries for calls of functions
// without one.
func NewKillSetsWith(prog *ssa.Program, opts KillSetOptions) *KillSets {
	ks := &KillSets{fx: make(map[*ssa.Function]Effects), sum: make(map[*ssa.Function]FuncSummary),
		ext: opts.Summaries, bodies: opts.Bodies}
	var fns []*ssa.Function
	for fn := range allFunctions(prog) {
		if ks.hasBody(fn) {
			fns = append(fns, fn)
		}
	}
	callees := make(map[*ssa.Function][]*ssa.Function)
	for _, fn := range fns {
		var direct Effects
		if handlerSig(fn.Signature) {
			direct = Both // the instrumenter gives it I/O hooks
		}
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				e, callee := ks.instrEffects(instr, true)
				direct |= e
				if callee != nil {
					callees[fn] = append(callees[fn], callee)
				}
			}
		}
		ks.fx[fn] = direct
	}
	// Propagate to callers until nothing changes (effects only grow).
	for changed := true; changed; {
		changed = false
		for _, fn := range fns {
			e := ks.fx[fn]
			for _, c := range callees[fn] {
				e |= ks.fx[c]
			}
			if e != ks.fx[fn] {
				ks.fx[fn], changed = e, true
			}
		}
	}
	return ks
}

// allFunctions returns the functions of prog's packages: members, the
// declared methods of named types (generic ones too), their closures, and
// the instantiations of generic functions they call.
func allFunctions(prog *ssa.Program) map[*ssa.Function]bool {
	seen := make(map[*ssa.Function]bool)
	var work []*ssa.Function
	visit := func(fn *ssa.Function) {
		if fn != nil && !seen[fn] {
			seen[fn] = true
			work = append(work, fn)
		}
	}
	for _, pkg := range prog.AllPackages() {
		for _, mem := range pkg.Members {
			switch m := mem.(type) {
			case *ssa.Function:
				visit(m)
			case *ssa.Type:
				if named, ok := m.Type().(*types.Named); ok {
					for i := 0; i < named.NumMethods(); i++ {
						visit(prog.FuncValue(named.Method(i)))
					}
				}
			}
		}
	}
	for len(work) > 0 {
		fn := work[len(work)-1]
		work = work[:len(work)-1]
		for _, an := range fn.AnonFuncs {
			visit(an)
		}
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				if c, ok := instr.(ssa.CallInstruction); ok {
					if f := c.Common().StaticCallee(); f != nil && f.Origin() != nil {
						visit(f)
					}
				}
			}
		}
	}
	return seen
}

// AnalyzedFunctions returns the functions of pkg whose source placement
// emits: members, methods (of generic types too) and closures, including
// generic functions themselves (their bodies are the source) and excluding
// instantiations and synthetic wrappers, sorted by name.
func AnalyzedFunctions(pkg *ssa.Package) []*ssa.Function {
	var fns []*ssa.Function
	for fn := range allFunctions(pkg.Prog) {
		if fn.Pkg == pkg && len(fn.Blocks) > 0 && fn.Origin() == nil && (fn.Synthetic == "" || fn.Parent() != nil) {
			fns = append(fns, fn)
		}
	}
	sort.Slice(fns, func(i, j int) bool { return fns[i].String() < fns[j].String() })
	return fns
}

// Of returns the effects of calling fn (Both if unknown).
func (ks *KillSets) Of(fn *ssa.Function) Effects {
	if ks == nil {
		return ks.of(fn)
	}
	ks.mu.Lock()
	defer ks.mu.Unlock()
	return ks.of(fn)
}

func (ks *KillSets) of(fn *ssa.Function) Effects {
	if e, ok := syncFunc(fn); ok {
		return e
	}
	if ks != nil {
		if e, ok := ks.fx[fn]; ok {
			return e
		}
		if ks.hasBody(fn) {
			return ks.lazy(fn)
		}
		// The vetted table first: a summary computed from the body of
		// an instrumented standard package sees only the runtime's
		// unknown functions below it.
		if s, ok := ks.external(fn); ok && !isPure(fn) {
			return s.Effects
		}
	}
	if len(fn.Blocks) > 0 && ks == nil {
		return Both
	}
	if isPure(fn) {
		return 0
	}
	return Both
}

// lazy computes the effects of a function with a body that the initial
// pass did not see (a synthetic wrapper: bound method, thunk,
// instantiation). A function reached again while its effects are being
// computed counts as Both until done, which keeps recursion sound.
func (ks *KillSets) lazy(fn *ssa.Function) Effects {
	ks.fx[fn] = Both
	var e Effects
	if handlerSig(fn.Signature) {
		e = Both
	}
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			x, callee := ks.instrEffects(instr, false)
			e |= x
			if callee != nil {
				e |= ks.of(callee)
			}
		}
	}
	ks.fx[fn] = e
	return e
}

// Instr returns the synchronization effects of one instruction.
func (ks *KillSets) Instr(instr ssa.Instruction) Effects {
	if ks != nil {
		ks.mu.Lock()
		defer ks.mu.Unlock()
	}
	e, _ := ks.instrEffects(instr, false)
	return e
}

// instrEffects classifies instr. When building (collect), a call to a
// function with a body in the program is returned as callee and
// contributes no direct effects.
func (ks *KillSets) instrEffects(instr ssa.Instruction, collect bool) (Effects, *ssa.Function) {
	switch in := instr.(type) {
	case *ssa.Go:
		return Release, nil // fork: the parent's prior accesses happen before the child
	case *ssa.Send, *ssa.Select:
		// An unbuffered send completes after the receive (acquire) and
		// a receive completes after the send (release): channel
		// operations are both.
		return Both, nil
	case *ssa.UnOp:
		if in.Op == token.ARROW {
			return Both, nil
		}
	case *ssa.RunDefers:
		return ks.deferEffects(in.Parent()), nil
	case *ssa.Defer:
		return 0, nil // runs at RunDefers or on panic
	case *ssa.Call:
		return ks.callEffects(in.Common(), collect)
	}
	return 0, nil
}

func (ks *KillSets) callEffects(c *ssa.CallCommon, collect bool) (Effects, *ssa.Function) {
	if b, ok := c.Value.(*ssa.Builtin); ok {
		if b.Name() == "close" {
			return Release, nil
		}
		return 0, nil // len, cap, append, copy, delete, ...: no synchronization
	}
	fn := c.StaticCallee()
	if fn == nil {
		return Both, nil // interface method or func value: unknown
	}
	if e, ok := syncFunc(fn); ok {
		return e, nil
	}
	if collect && ks.hasBody(fn) {
		return 0, fn
	}
	return ks.of(fn), nil
}

// hasBody reports whether the kill sets look into fn's body: it has one,
// and its package (that of its origin, for an instantiation) is one whose
// bodies count. Synthetic wrappers without a package (bound methods,
// thunks, promoted methods) only call the function they wrap.
func (ks *KillSets) hasBody(fn *ssa.Function) bool {
	if len(fn.Blocks) == 0 {
		return false
	}
	if ks == nil || ks.bodies == nil {
		return true
	}
	pkg := fn.Pkg
	if pkg == nil && fn.Origin() != nil {
		pkg = fn.Origin().Pkg
	}
	return pkg == nil || ks.bodies(pkg)
}

func (ks *KillSets) deferEffects(fn *ssa.Function) Effects {
	var e Effects
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			if d, ok := instr.(*ssa.Defer); ok {
				x, callee := ks.callEffects(d.Common(), false)
				if callee != nil {
					x = ks.of(callee)
				}
				e |= x
			}
		}
	}
	return e
}

// syncFunc classifies the functions of sync and sync/atomic (ARCHITECTURE.md
// §3 "Go synchronization").
func syncFunc(fn *ssa.Function) (Effects, bool) {
	if fn.Pkg == nil && fn.Origin() != nil {
		fn = fn.Origin()
	}
	pkg := fn.Package()
	if pkg == nil && fn.Signature.Recv() != nil {
		if n, ok := derefNamed(fn.Signature.Recv().Type()); ok && n.Obj().Pkg() != nil {
			return classify(n.Obj().Pkg().Path(), n.Obj().Name(), fn.Name())
		}
	}
	if pkg == nil {
		if fn.Object() != nil && fn.Object().Pkg() != nil {
			return classify(fn.Object().Pkg().Path(), recvName(fn), fn.Name())
		}
		return 0, false
	}
	return classify(pkg.Pkg.Path(), recvName(fn), fn.Name())
}

func recvName(fn *ssa.Function) string {
	if r := fn.Signature.Recv(); r != nil {
		if n, ok := derefNamed(r.Type()); ok {
			return n.Obj().Name()
		}
	}
	return ""
}

func derefNamed(t types.Type) (*types.Named, bool) {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := t.(*types.Named)
	return n, ok
}

// classify returns the effects on the kill sets of package pkg's function
// name (a method of its type recv, if recv is not ""), if it is in sync or
// sync/atomic: those the table of synchronizing calls states
// (synccalls.go), else both.
func classify(pkg, recv, name string) (Effects, bool) {
	key := pkg + "." + name
	if recv != "" {
		key = pkg + "." + recv + "." + name
	}
	if c, ok := syncCalls[key]; ok && c.Effects != 0 {
		return c.Effects, true
	}
	switch pkg {
	case "sync":
		return Both, true // Once.Do, Cond.Wait, Map, Pool, OnceFunc, WaitGroup.Go, ...
	case "sync/atomic":
		// The detector makes every atomic operation an acquire and a
		// release of the variable's clock (detector/atomic.go), so that
		// atomics never race with each other: a load releases too, and a
		// store acquires. A check before a load covering an access after
		// it would cross that release.
		return Both, true
	}
	return 0, false
}

// isPure reports whether fn is a sync-free standard function that cannot
// call back into user code.
func isPure(fn *ssa.Function) bool {
	var path string
	switch {
	case fn.Pkg != nil:
		path = fn.Pkg.Pkg.Path()
	case fn.Object() != nil && fn.Object().Pkg() != nil:
		path = fn.Object().Pkg().Path()
	case fn.Origin() != nil && fn.Origin().Pkg != nil:
		path = fn.Origin().Pkg.Pkg.Path()
	}
	if !pureStd[path] {
		return false
	}
	sig := fn.Signature
	params := sig.Params()
	for i := 0; i < params.Len(); i++ {
		if callsBack(params.At(i).Type()) {
			return false
		}
	}
	if r := sig.Recv(); r != nil && callsBack(r.Type()) {
		return false
	}
	return true
}

// callsBack reports whether a value of type t may hold a func or an
// interface, in itself or in the memory it reaches: a pure function
// given one may call user code through it (strconv.NumError.Error calls
// its Err's Error; strings.Replacer.Replace its replacer's, behind a
// sync.Once).
func callsBack(t types.Type) bool {
	return holdsCall(t, map[types.Type]bool{})
}

func holdsCall(t types.Type, seen map[types.Type]bool) bool {
	if _, ok := t.(*types.TypeParam); ok {
		return true // may be instantiated with a type whose methods run
	}
	if seen[t] {
		return false
	}
	seen[t] = true
	switch u := t.Underlying().(type) {
	case *types.Signature, *types.Interface:
		return true
	case *types.Pointer:
		return holdsCall(u.Elem(), seen)
	case *types.Slice:
		return holdsCall(u.Elem(), seen)
	case *types.Array:
		return holdsCall(u.Elem(), seen)
	case *types.Map:
		return holdsCall(u.Key(), seen) || holdsCall(u.Elem(), seen)
	case *types.Chan:
		return true // a channel operation synchronizes
	case *types.Struct:
		for i := range u.NumFields() {
			if holdsCall(u.Field(i).Type(), seen) {
				return true
			}
		}
	}
	return false
}
