package placement

import (
	"go/token"
	"go/types"
	"sort"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// The static safe class (beyond BigFoot, which checks every shared
// access): a variable that every goroutine other than its creator only
// reads, and only after the creator's last write, cannot be in a race.
// Its accesses need no check, and the instrumenter must not take its
// address (which would move it to the heap and make closures capture it by
// reference). The class holds
//
//   - local variables captured by closures (heap Allocs) whose every store
//     happens before any closure capturing them is created: no store is
//     reachable from a MakeClosure that binds the variable (a store to a
//     fresh instance of a loop's per-iteration variable, whose Alloc lies
//     on every path from the capture to the store, writes another
//     variable), no closure stores to it, and its address is used only to
//     load and store it (directly or through fields and array elements);
//     a method value with a pointer receiver passes the address to the
//     method, so it disqualifies the variable;
//   - unexported package-level variables whose address is used only to
//     load and store them, stored only in the package initializer, init
//     functions, and (in a package main without tests, where nothing but
//     the runtime calls main) in main, each store before anything that
//     may start a goroutine that runs the package's code (see forkPoint),
//     and, for main's stores, with no such point in the package's
//     initialization at all.
//
// A goroutine can reach such a variable only through a closure created
// after its last write or through code started after its last write: the
// creation (or the start) happens after the write in the creator's
// program order, and the goroutine's accesses after the creation or the
// start (the go statement's fork; a closure handed over by other means,
// for instance a racy store of a func value, is itself a checked access).
// So every write happens before every access of another goroutine, and
// no two accesses of distinct goroutines conflict. The elements of a slice
// the variable holds are other memory and keep their checks.

// SafeVars is the static safe class of one package (see above).
type SafeVars struct {
	vals      map[ssa.Value]bool     // safe Allocs, their φ-nodes, FreeVars and Globals
	decls     map[token.Pos]bool     // declaring positions of safe locals
	globals   map[*types.Var]bool    // safe package-level variables
	why       map[token.Pos]string   // locals and globals found unsafe: why (for -v reports and tests)
	forks     map[*ssa.Function]bool // functions that may start a goroutine running package code
	inFix     map[*ssa.Function]bool // the functions of forks' fixed point (the package's)
	wrapDepth int                    // wrappers being looked through by callForks
	// storedIn lists, per safe package-level variable, the functions that
	// store it (initialization and main).
	storedIn map[*ssa.Global]map[*ssa.Function]bool
}

// stable reports whether every load of the address v in fn yields the
// same value: v is a closure's free variable of the safe class (no
// closure stores it), or a package-level variable of the class that fn
// does not store.
func (s *SafeVars) stable(v ssa.Value, fn *ssa.Function) bool {
	if !s.Value(v) {
		return false
	}
	switch v := v.(type) {
	case *ssa.FreeVar:
		return true
	case *ssa.Global:
		return !s.storedIn[v][fn]
	}
	return false
}

// Value reports whether v (an Alloc, a φ of Allocs, a FreeVar or a
// Global) is the address of a safe variable.
func (s *SafeVars) Value(v ssa.Value) bool { return s != nil && s.vals[v] }

// Var reports whether the variable v (local or package-level) is safe.
// Locals are identified by their declaring position: every heap Alloc of
// the variable (one per loop iteration for per-iteration variables) must
// be safe.
func (s *SafeVars) Var(v *types.Var) bool {
	if s == nil || v == nil {
		return false
	}
	if s.globals[v] {
		return true
	}
	return v.Pkg() != nil && v.Parent() != v.Pkg().Scope() && s.decls[v.Pos()]
}

// Why returns the reason the variable declared at pos is not safe, or ""
// if it is safe or was not considered (not captured, not a candidate).
func (s *SafeVars) Why(pos token.Pos) string {
	if s == nil {
		return ""
	}
	return s.why[pos]
}

// SafeOptions restricts FindSafeVars.
type SafeOptions struct {
	// NoGlobals leaves package-level variables out of the class: for an
	// SSA build of the package in which some functions were replaced by
	// stubs, whose stores the analysis cannot see.
	NoGlobals bool
}

// FindSafeVars computes the static safe class of pkg.
func FindSafeVars(pkg *ssa.Package, opts SafeOptions) *SafeVars {
	s := &SafeVars{vals: map[ssa.Value]bool{}, decls: map[token.Pos]bool{}, globals: map[*types.Var]bool{},
		why: map[token.Pos]string{}, storedIn: map[*ssa.Global]map[*ssa.Function]bool{}}
	var fns []*ssa.Function
	for fn := range allFunctions(pkg.Prog) {
		if len(fn.Blocks) > 0 && ownedBy(fn, pkg) {
			fns = append(fns, fn)
		}
	}
	// In a fixed order, so that the reasons recorded are deterministic.
	sort.Slice(fns, func(i, j int) bool { return fns[i].String() < fns[j].String() })
	unsafePos := map[token.Pos]bool{}
	for _, fn := range fns {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				if a, ok := instr.(*ssa.Alloc); ok && a.Heap && !s.vals[a] && isVariable(a) {
					fam, why := localFamily(a)
					for _, m := range fam.members {
						if why == "" {
							s.vals[m] = true
						}
						if al, ok := m.(*ssa.Alloc); ok && al.Pos().IsValid() {
							if why != "" {
								unsafePos[al.Pos()] = true
								s.why[al.Pos()] = why
							} else {
								s.decls[al.Pos()] = true
							}
						}
					}
					if why == "" {
						for _, fv := range fam.freeVars {
							s.vals[fv] = true
						}
					}
				}
			}
		}
	}
	for pos := range unsafePos {
		delete(s.decls, pos)
	}
	if !opts.NoGlobals {
		s.findGlobals(pkg, fns)
	}
	return s
}

// isVariable reports whether the Alloc is a variable of the source, not
// an allocation go/ssa makes for new(T), a composite literal, variadic
// arguments or a range loop's state.
func isVariable(a *ssa.Alloc) bool {
	switch a.Comment {
	case "", "new", "complit", "slicelit", "makeslice", "varargs", "rangeindex", "rangeint.iter":
		return false
	}
	return !strings.Contains(a.Comment, "$")
}

// ownedBy reports whether fn's source belongs to pkg (closures and
// instantiations of its functions included).
func ownedBy(fn *ssa.Function, pkg *ssa.Package) bool {
	for fn.Parent() != nil {
		fn = fn.Parent()
	}
	if fn.Origin() != nil {
		fn = fn.Origin()
	}
	return fn.Pkg == pkg
}

// A family is one local variable's heap cells: its Allocs, joined by the
// φ-nodes that select among them (a per-iteration loop variable has one
// Alloc per iteration), and the closures' free variables bound to them.
type family struct {
	members  []ssa.Value
	in       map[ssa.Value]bool
	stores   []*ssa.Store // stores into the variable, by the creating function
	roots    map[*ssa.Store]ssa.Value
	closures []*ssa.MakeClosure
	freeVars []*ssa.FreeVar
}

// localFamily collects the family of the heap Alloc a and returns "" if
// the variable is safe, or why it is not.
func localFamily(a *ssa.Alloc) (*family, string) {
	f := &family{in: map[ssa.Value]bool{}, roots: map[*ssa.Store]ssa.Value{}}
	work := []ssa.Value{a}
	f.in[a] = true
	why := ""
	fail := func(reason string) {
		if why == "" {
			why = reason
		}
	}
	join := func(v ssa.Value) {
		if !f.in[v] {
			f.in[v] = true
			work = append(work, v)
		}
	}
	for len(work) > 0 {
		m := work[len(work)-1]
		work = work[:len(work)-1]
		f.members = append(f.members, m)
		if phi, ok := m.(*ssa.Phi); ok {
			for _, e := range phi.Edges {
				switch e := e.(type) {
				case *ssa.Alloc:
					if !e.Heap {
						fail("merged with a stack cell")
					}
					join(e)
				case *ssa.Phi:
					join(e)
				default:
					fail("address merged with another pointer")
				}
			}
		}
		refs := m.Referrers()
		if refs == nil {
			fail("no referrers")
			continue
		}
		for _, r := range *refs {
			switch r := r.(type) {
			case *ssa.Phi:
				join(r)
			case *ssa.MakeClosure:
				if r.Fn == m {
					fail("address used as a function")
					continue
				}
				f.closures = append(f.closures, r)
				fn := r.Fn.(*ssa.Function)
				for i, b := range r.Bindings {
					if b == m {
						if reason := f.readOnlyFreeVar(fn, i); reason != "" {
							fail(reason)
						}
					}
				}
			default:
				if reason := f.use(m, r, m); reason != "" {
					fail(reason)
				}
			}
		}
	}
	if why != "" {
		return f, why
	}
	for _, st := range f.stores {
		for _, mc := range f.closures {
			avoid, _ := f.roots[st].(*ssa.Alloc)
			if reachable(mc, st, avoid) {
				return f, "written after capture (" + mc.Parent().Prog.Fset.Position(st.Pos()).String() + ")"
			}
		}
	}
	return f, ""
}

// use classifies the use r of the address v (the variable root, or a
// field or element address derived from it) in the creating function:
// "" if it loads or stores the variable, or why the address escapes.
func (f *family) use(v ssa.Value, r ssa.Instruction, root ssa.Value) string {
	switch r := r.(type) {
	case *ssa.UnOp:
		if r.Op == token.MUL && r.X == v {
			return ""
		}
	case *ssa.Store:
		if r.Addr == v && r.Val != v {
			f.stores = append(f.stores, r)
			f.roots[r] = root
			return ""
		}
		return "address stored"
	case *ssa.FieldAddr, *ssa.IndexAddr:
		sub := r.(ssa.Value)
		refs := sub.Referrers()
		if refs == nil {
			return "no referrers"
		}
		for _, rr := range *refs {
			if reason := f.use(sub, rr, root); reason != "" {
				return reason
			}
		}
		return ""
	case *ssa.DebugRef:
		return ""
	case *ssa.Call:
		return "address passed to a call (" + callName(r.Common()) + ")"
	}
	return "address taken (" + strings.TrimPrefix(strings.SplitN(r.String(), " ", 2)[0], "*ssa.") + ")"
}

// callName names a call's callee for a reason.
func callName(c *ssa.CallCommon) string {
	if c.IsInvoke() {
		return c.Method.Name()
	}
	if fn := c.StaticCallee(); fn != nil {
		return fn.Name()
	}
	return c.Value.Name()
}

// readOnlyFreeVar checks that the closure fn only loads its i'th free
// variable (directly, through fields and elements, or through nested
// closures), and records it.
func (f *family) readOnlyFreeVar(fn *ssa.Function, i int) string {
	if i >= len(fn.FreeVars) || len(fn.Blocks) == 0 {
		return "captured by a function without a body"
	}
	fv := fn.FreeVars[i]
	f.freeVars = append(f.freeVars, fv)
	// A bound method wrapper (x.m binds &x) has no parent; the loop body
	// of a range-over-func loop is a synthetic closure of its function,
	// whose loads and stores are the source's, checked as any closure's.
	if fn.Synthetic != "" && fn.Parent() == nil {
		return "captured by a method value"
	}
	return f.readOnly(fv)
}

// readOnly reports "" if every use of the address v in a closure loads.
func (f *family) readOnly(v ssa.Value) string {
	refs := v.Referrers()
	if refs == nil {
		return "no referrers"
	}
	for _, r := range *refs {
		switch r := r.(type) {
		case *ssa.UnOp:
			if r.Op == token.MUL {
				continue
			}
		case *ssa.FieldAddr, *ssa.IndexAddr:
			if reason := f.readOnly(r.(ssa.Value)); reason != "" {
				return reason
			}
			continue
		case *ssa.DebugRef:
			continue
		case *ssa.Store:
			if r.Addr == v {
				return "written inside a closure (" + r.Parent().Prog.Fset.Position(r.Pos()).String() + ")"
			}
		case *ssa.MakeClosure:
			if r.Fn != v {
				if reason := f.nestedClosure(r, v); reason != "" {
					return reason
				}
				continue
			}
		case *ssa.Call:
			return "address passed to a call in a closure (" + callName(r.Common()) + ")"
		}
		return "address taken in a closure"
	}
	return ""
}

// nestedClosure checks the free variables of a closure created inside a
// closure that bind the address v.
func (f *family) nestedClosure(mc *ssa.MakeClosure, v ssa.Value) string {
	fn := mc.Fn.(*ssa.Function)
	for i, b := range mc.Bindings {
		if b == v {
			if reason := f.readOnlyFreeVar(fn, i); reason != "" {
				return reason
			}
		}
	}
	return ""
}

// reachable reports whether instruction to can execute after instruction
// from in one activation of their function, on a path that does not
// execute avoid (nil: any path). Both are in the same function.
func reachable(from, to, avoid ssa.Instruction) bool {
	type item struct {
		b     *ssa.BasicBlock
		start int
	}
	fb := from.Block()
	idx := 0
	for i, in := range fb.Instrs {
		if in == from {
			idx = i + 1
			break
		}
	}
	seen := map[*ssa.BasicBlock]bool{}
	work := []item{{fb, idx}}
	for len(work) > 0 {
		it := work[len(work)-1]
		work = work[:len(work)-1]
		blocked := false
		for _, in := range it.b.Instrs[it.start:] {
			if in == to {
				return true
			}
			if avoid != nil && in == avoid {
				blocked = true
				break
			}
		}
		if blocked {
			continue
		}
		for _, s := range it.b.Succs {
			if !seen[s] {
				seen[s] = true
				work = append(work, item{s, 0})
			}
		}
	}
	return false
}

// findGlobals adds the safe package-level variables of pkg; fns are the
// package's functions with bodies.
func (s *SafeVars) findGlobals(pkg *ssa.Package, fns []*ssa.Function) {
	var cands []*ssa.Global
	for _, m := range pkg.Members {
		if g, ok := m.(*ssa.Global); ok && g.Object() != nil && !g.Object().Exported() && !strings.Contains(g.Name(), "$") {
			cands = append(cands, g)
		}
	}
	if len(cands) == 0 {
		return
	}
	s.forkingFuncs(fns)
	w := newWriters(pkg, fns, s)
	isCand := map[ssa.Value]bool{}
	for _, g := range cands {
		isCand[g] = true
	}
	// Every use of a candidate, in every function of the package.
	type use struct {
		g     *ssa.Global
		instr ssa.Instruction
	}
	var uses []use
	for _, fn := range fns {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				var ops [8]*ssa.Value
				for _, op := range instr.Operands(ops[:0]) {
					if *op != nil && isCand[*op] {
						uses = append(uses, use{(*op).(*ssa.Global), instr})
					}
				}
			}
		}
	}
	why := map[*ssa.Global]string{}
	stores := map[*ssa.Global][]*ssa.Store{}
	for _, u := range uses {
		if why[u.g] != "" {
			continue
		}
		f := &family{roots: map[*ssa.Store]ssa.Value{}}
		if reason := f.use(u.g, u.instr, u.g); reason != "" {
			why[u.g] = reason
			continue
		}
		stores[u.g] = append(stores[u.g], f.stores...)
	}
	for _, g := range cands {
		if why[g] == "" {
			for _, st := range stores[g] {
				if reason := w.allowed(st); reason != "" {
					why[g] = reason
					break
				}
			}
		}
		if why[g] != "" {
			s.why[g.Pos()] = why[g]
			continue
		}
		s.vals[g] = true
		s.storedIn[g] = map[*ssa.Function]bool{}
		for _, st := range stores[g] {
			s.storedIn[g][st.Parent()] = true
		}
		if v, ok := g.Object().(*types.Var); ok {
			s.globals[v] = true
		}
	}
}

// writers decides where a package-level variable of the safe class may be
// stored: before the first point of the package's initialization, or of
// main, that may start a goroutine running package code.
type writers struct {
	pkg      *ssa.Package
	s        *SafeVars
	init     *ssa.Function // the package initializer
	main     *ssa.Function // main.main of a package main without tests, or nil
	initCall map[*ssa.Function]*ssa.Call
	after    map[*ssa.Function]map[ssa.Instruction]bool // instructions after a fork point
}

func newWriters(pkg *ssa.Package, fns []*ssa.Function, s *SafeVars) *writers {
	w := &writers{pkg: pkg, s: s, initCall: map[*ssa.Function]*ssa.Call{}, after: map[*ssa.Function]map[ssa.Instruction]bool{}}
	w.init = pkg.Func("init")
	if w.init != nil {
		for _, b := range w.init.Blocks {
			for _, instr := range b.Instrs {
				if c, ok := instr.(*ssa.Call); ok {
					if fn := c.Call.StaticCallee(); fn != nil && fn.Pkg == pkg && strings.HasPrefix(fn.Name(), "init#") {
						w.initCall[fn] = c
					}
				}
			}
		}
	}
	if pkg.Pkg.Name() == "main" && !hasTests(pkg, fns) {
		if m := pkg.Func("main"); m != nil && m.Signature.Recv() == nil && m.Signature.Params().Len() == 0 {
			w.main = m
		}
	}
	return w
}

// hasTests reports whether the package has functions from _test.go
// files: a test binary's tests may call main, and they run on goroutines.
func hasTests(pkg *ssa.Package, fns []*ssa.Function) bool {
	for _, fn := range fns {
		if f := pkg.Prog.Fset.File(fn.Pos()); f != nil && strings.HasSuffix(f.Name(), "_test.go") {
			return true
		}
	}
	return false
}

// allowed returns "" if the store st of a package-level variable happens
// before any goroutine running package code may start, or why not.
func (w *writers) allowed(st *ssa.Store) string {
	fn := st.Parent()
	switch {
	case fn == w.init:
		if w.afterFork(fn)[st] {
			return "stored in the initializer after a possible goroutine start"
		}
	case w.initCall[fn] != nil:
		if w.afterFork(fn)[st] || w.afterFork(w.init)[w.initCall[fn]] {
			return "stored in " + fn.Name() + " after a possible goroutine start"
		}
	case fn == w.main:
		if w.afterFork(fn)[st] {
			return "stored in main after a possible goroutine start"
		}
		if w.init != nil && w.forksAnywhere(w.init) {
			return "stored in main, and the package's initialization may start a goroutine"
		}
	default:
		return "stored in " + fn.String()
	}
	return ""
}

// forksAnywhere reports whether fn has a fork point.
func (w *writers) forksAnywhere(fn *ssa.Function) bool {
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			if w.s.forkPoint(instr, fn == w.init) {
				return true
			}
		}
	}
	return false
}

// afterFork returns the instructions of fn that may execute after one of
// its fork points (in the same activation).
func (w *writers) afterFork(fn *ssa.Function) map[ssa.Instruction]bool {
	if a, ok := w.after[fn]; ok {
		return a
	}
	a := map[ssa.Instruction]bool{}
	seen := map[*ssa.BasicBlock]bool{}
	var work []*ssa.BasicBlock
	for _, b := range fn.Blocks {
		for i, instr := range b.Instrs {
			if !w.s.forkPoint(instr, fn == w.init) {
				continue
			}
			for _, rest := range b.Instrs[i+1:] {
				a[rest] = true
			}
			for _, s := range b.Succs {
				if !seen[s] {
					seen[s] = true
					work = append(work, s)
				}
			}
		}
	}
	for len(work) > 0 {
		b := work[len(work)-1]
		work = work[:len(work)-1]
		for _, instr := range b.Instrs {
			a[instr] = true
		}
		for _, s := range b.Succs {
			if !seen[s] {
				seen[s] = true
				work = append(work, s)
			}
		}
	}
	w.after[fn] = a
	return a
}

// forkingFuncs returns the functions of fns (and the wrappers they call)
// that may start a goroutine running package code: the least fixed point
// of forkPoint over static calls.
func (s *SafeVars) forkingFuncs(fns []*ssa.Function) {
	s.forks = map[*ssa.Function]bool{}
	s.inFix = map[*ssa.Function]bool{}
	for _, fn := range fns {
		s.inFix[fn] = true
	}
	for changed := true; changed; {
		changed = false
		for _, fn := range fns {
			if s.forks[fn] {
				continue
			}
			for _, b := range fn.Blocks {
				for _, instr := range b.Instrs {
					if s.forkPoint(instr, false) {
						s.forks[fn], changed = true, true
					}
				}
			}
		}
	}
}

// forkPoint reports whether instr may start a goroutine that runs code of
// the package (so that the goroutine may read its variables): a go
// statement; a call (or defer) of a package function that may; a dynamic
// call; a call of a function without a body in the program that is
// handed code of the program (an argument whose type may carry a function
// value or a method set the program defines, see carriesCode); and a store
// or send that hands such a value to memory outside the package's own
// variables (from where code outside the package may start it later). In
// the package initializer (inInit), calls of the imported packages'
// initializers are not fork points: they run no code of this package.
func (s *SafeVars) forkPoint(instr ssa.Instruction, inInit bool) bool {
	switch in := instr.(type) {
	case *ssa.Go:
		return true
	case *ssa.Call:
		if inInit {
			if fn := in.Call.StaticCallee(); fn != nil && fn.Name() == "init" && fn.Pkg != instr.Parent().Pkg {
				return false
			}
		}
		return s.callForks(in.Common())
	case *ssa.Defer:
		return s.callForks(in.Common())
	case *ssa.Store:
		if !carriesCode(in.Val.Type(), map[types.Type]bool{}) {
			return false
		}
		switch rootOf(in.Addr).(type) {
		case *ssa.Alloc:
			return false
		case *ssa.Global:
			return rootOf(in.Addr).(*ssa.Global).Pkg != instr.Parent().Pkg
		}
		return true
	case *ssa.Send:
		return carriesCode(in.X.Type(), map[types.Type]bool{})
	case *ssa.MapUpdate:
		if _, ok := in.Map.(*ssa.MakeMap); ok {
			return false
		}
		return carriesCode(in.Key.Type(), map[types.Type]bool{}) || carriesCode(in.Value.Type(), map[types.Type]bool{})
	}
	return false
}

// rootOf is the variable or object an address is derived from through
// fields and elements.
func rootOf(v ssa.Value) ssa.Value {
	for {
		switch a := v.(type) {
		case *ssa.FieldAddr:
			v = a.X
		case *ssa.IndexAddr:
			v = a.X
		default:
			return v
		}
	}
}

func (s *SafeVars) callForks(c *ssa.CallCommon) bool {
	if _, ok := c.Value.(*ssa.Builtin); ok {
		return false
	}
	fn := c.StaticCallee()
	if fn == nil {
		return true // an interface method or a func value: unknown
	}
	if s.inFix[fn] {
		return s.forks[fn] // after the fixed point, or in it: not (yet) known to fork
	}
	if len(fn.Blocks) > 0 && fn.Synthetic != "" && fn.Parent() == nil && fn.Origin() == nil {
		// A wrapper (bound method, thunk, promoted method): its own
		// instructions decide.
		if s.wrapDepth > 4 {
			return true
		}
		s.wrapDepth++
		defer func() { s.wrapDepth-- }()
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				if s.forkPoint(instr, false) {
					return true
				}
			}
		}
		return false
	}
	// A function of another package (with a body in a whole-program
	// build, or not): it can run code of this package only if handed
	// some, now or before (a fork point then).
	if fn.Origin() != nil || fn.TypeParams().Len() > 0 {
		return true // generic: its type arguments' methods may run
	}
	for _, a := range c.Args {
		if carriesCode(a.Type(), map[types.Type]bool{}) {
			return true
		}
	}
	return false
}

// carriesCode reports whether a value of type t may hold code of the
// program: a function value, an interface value, a value of a named type
// outside the standard library with methods, or something holding one.
func carriesCode(t types.Type, seen map[types.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	switch t := types.Unalias(t).(type) {
	case *types.TypeParam:
		return true
	case *types.Named:
		if obj := t.Obj(); obj.Pkg() != nil && !isStdPath(obj.Pkg().Path()) {
			if t.NumMethods() > 0 || types.NewMethodSet(types.NewPointer(t)).Len() > 0 {
				return true
			}
		}
		return carriesCode(t.Underlying(), seen)
	case *types.Signature, *types.Interface:
		return true
	case *types.Pointer:
		return carriesCode(t.Elem(), seen)
	case *types.Slice:
		return carriesCode(t.Elem(), seen)
	case *types.Array:
		return carriesCode(t.Elem(), seen)
	case *types.Chan:
		return carriesCode(t.Elem(), seen)
	case *types.Map:
		return carriesCode(t.Key(), seen) || carriesCode(t.Elem(), seen)
	case *types.Struct:
		for i := 0; i < t.NumFields(); i++ {
			if carriesCode(t.Field(i).Type(), seen) {
				return true
			}
		}
	case *types.Tuple:
		for i := 0; i < t.Len(); i++ {
			if carriesCode(t.At(i).Type(), seen) {
				return true
			}
		}
	}
	return false
}

// isStdPath reports whether an import path belongs to the standard
// library (its first element has no dot).
func isStdPath(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}
