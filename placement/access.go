package placement

import (
	"fmt"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ssa"

	"github.com/bigfoot-go/bigfoot/placement/entail"
)

// An Access is one SSA instruction that touches shared memory: what the
// fasttrack placement checks in place. Path names the location in terms of
// SSA values; Write distinguishes the two kinds of §3.5
// (Rhodes' thesis §3.5.1).
type Access struct {
	Instr ssa.Instruction
	Path  Path
	Write bool
	Pos   token.Pos
	ID    int // index in Plan.Accesses
}

func (a *Access) String() string { return kindName(a.Write) + " " + a.Path.String() }

// A Step is one selector of a Path after its base: a field, or a strided
// index range Lo..Hi:Stride, the set {Lo + i·Stride : Lo ≤ Lo + i·Stride <
// Hi} of BFJ (Rhodes' thesis §3.3.1).
type Step struct {
	Field  int           // field index, or stepIndex, or stepDeref
	Name   string        // field name
	Struct *types.Struct // the struct type whose field this is
	Loaded types.Type    // deref step: the type of the pointer or slice loaded
	Lo, Hi entail.Term
	Stride int64
}

// IsIndex reports whether s selects array or slice elements.
func (s Step) IsIndex() bool { return s.Field == stepIndex }

// IsDeref reports whether s loads a pointer (or slice header) from the
// location so far and continues from what it points to: the p in s.p.x
// when p is a *T, the buf in s.buf[i] when buf is a slice.
func (s Step) IsDeref() bool { return s.Field == stepDeref }

// Step.Field values that are not field indices.
const (
	stepIndex = -1
	stepDeref = -2
)

// A Path designates heap locations: a base SSA value followed by field and
// index selectors, as the BFJ paths x.f and x[r] and the extended paths
// a[i].f, b.f.g of §3.5 (Rhodes' thesis §3.3.1, 912). With no steps
// it is the whole pointee of Base (*p), or with Map the map object Base.
type Path struct {
	Base  ssa.Value
	Steps []Step
	Map   bool

	names      *namer // for printing; nil prints raw SSA names
	key, shape string // memoized Key and Shape; see finish
}

// finish memoizes p's key and shape. Code that builds or changes a path
// calls it last.
func (p *Path) finish() {
	p.key, p.shape = "", ""
	p.key, p.shape = p.render(false, true), p.render(true, true)
}

// Key returns a string identifying the path within its function.
func (p Path) Key() string {
	if p.key != "" {
		return p.key
	}
	return p.render(false, true)
}

// Shape returns the key with index ranges erased: paths of equal shape
// differ at most in the ranges they select.
func (p Path) Shape() string {
	if p.shape != "" {
		return p.shape
	}
	return p.render(true, true)
}

// String prints the path in the notation of doc.go: p.x, a[i], a[0..n],
// a[0..n:2], *p, m{}.
func (p Path) String() string { return p.render(false, false) }

func (p Path) render(shape, raw bool) string {
	var b strings.Builder
	name := func(v ssa.Value) string {
		if raw || p.names == nil {
			return valueKey(v)
		}
		return p.names.pretty(v)
	}
	term := func(t entail.Term) string {
		if raw || p.names == nil {
			return t.String()
		}
		return p.names.term(t)
	}
	steps := p.Steps
	if len(steps) == 0 && !p.Map {
		b.WriteString("*")
	}
	if n := len(steps); n > 0 && steps[n-1].IsDeref() && !raw {
		b.WriteString("*") // *s.p: the whole pointee
		steps = steps[:n-1]
	}
	b.WriteString(name(p.Base))
	if p.Map {
		b.WriteString("{}")
	}
	for _, s := range steps {
		switch {
		case s.IsDeref():
			if raw {
				b.WriteString("→") // printed implicitly, as Go does
			}
		case !s.IsIndex():
			b.WriteString("." + s.Name)
		case shape:
			b.WriteString("[]")
		case s.Stride == 1 && s.Hi.Equal(s.Lo.AddConst(1)):
			fmt.Fprintf(&b, "[%s]", term(s.Lo))
		case s.Stride == 1:
			fmt.Fprintf(&b, "[%s..%s]", term(s.Lo), term(s.Hi))
		default:
			fmt.Fprintf(&b, "[%s..%s:%d]", term(s.Lo), term(s.Hi), s.Stride)
		}
	}
	return b.String()
}

// index returns the position of p's last index step, or -1.
func (p Path) index() int {
	for i := len(p.Steps) - 1; i >= 0; i-- {
		if p.Steps[i].IsIndex() {
			return i
		}
	}
	return -1
}

// withRange returns p with its index step at position i replaced.
func (p Path) withRange(i int, lo, hi entail.Term, stride int64) Path {
	q := p
	q.Steps = append([]Step(nil), p.Steps...)
	q.Steps[i] = Step{Field: -1, Lo: lo, Hi: hi, Stride: stride}
	q.finish()
	return q
}

// values returns the SSA values p mentions: its base and the atoms of its
// index terms.
func (p Path) atoms(n *namer) []ssa.Value {
	vs := []ssa.Value{p.Base}
	for _, s := range p.Steps {
		if s.IsIndex() {
			for _, t := range []entail.Term{s.Lo, s.Hi} {
				for _, v := range t.Vars() {
					vs = append(vs, n.atom(v))
				}
			}
		}
	}
	return vs
}

// valueKey names an SSA value uniquely within its function.
func valueKey(v ssa.Value) string {
	switch v := v.(type) {
	case *ssa.Global:
		return "g:" + v.Pkg.Pkg.Path() + "." + v.Name()
	case *ssa.Parameter:
		return "p:" + v.Name()
	case *ssa.FreeVar:
		return "f:" + v.Name()
	case *ssa.Function:
		return "fn:" + v.String()
	case *ssa.Const:
		return "c:" + v.String()
	}
	return v.Name()
}

// A namer maps term variables back to SSA values and prints them the way
// the source names them.
type namer struct {
	vals   map[string]ssa.Value // term variable → value (len atoms: the operand)
	lens   map[string]bool      // variables that are len(v)
	fn     *ssa.Function
	local  map[ssa.Value]bool // fresh: allocations that do not escape
	safe   *SafeVars          // the static safe class: variables that need no check
	derefs int                // depth of base's recursion
}

func newNamer(fn *ssa.Function, safe *SafeVars) *namer {
	return &namer{vals: make(map[string]ssa.Value), lens: make(map[string]bool), fn: fn, local: make(map[ssa.Value]bool), safe: safe}
}

func (n *namer) atom(name string) ssa.Value { return n.vals[name] }

func (n *namer) variable(v ssa.Value) entail.Term {
	k := valueKey(v)
	n.vals[k] = v
	return entail.Var(k)
}

func (n *namer) length(v ssa.Value) entail.Term {
	k := "len(" + valueKey(v) + ")"
	n.vals[k] = v
	n.lens[k] = true
	return entail.Var(k)
}

// term returns the linear term for integer value v, expanding constant
// arithmetic, additions, subtractions, scaling by constants and integer
// conversions (overflow is ignored), so that i+1 is the term i + 1 over the
// atom i. The product of two atoms is a product variable (entail.Product).
// Every other value is an atom.
func (n *namer) termOf(v ssa.Value) entail.Term {
	switch v := v.(type) {
	case *ssa.Const:
		if v.Value != nil && isInteger(v.Type()) {
			if c, ok := constInt(v); ok {
				return entail.Const(c)
			}
		}
	case *ssa.BinOp:
		if isInteger(v.Type()) {
			switch v.Op {
			case token.ADD:
				return n.termOf(v.X).Add(n.termOf(v.Y))
			case token.SUB:
				return n.termOf(v.X).Sub(n.termOf(v.Y))
			case token.MUL:
				if c, ok := v.Y.(*ssa.Const); ok {
					if k, ok := constInt(c); ok {
						return n.termOf(v.X).Scale(k)
					}
				}
				if c, ok := v.X.(*ssa.Const); ok {
					if k, ok := constInt(c); ok {
						return n.termOf(v.Y).Scale(k)
					}
				}
				// x*y of two atoms: a product variable, the same
				// for every computation of x*y (entail.Product).
				x, y := n.termOf(v.X), n.termOf(v.Y)
				if xv, ok := single(x); ok {
					if yv, ok := single(y); ok {
						name := entail.Product(xv, yv)
						n.vals[name] = v
						return entail.Var(name)
					}
				}
			}
		}
	case *ssa.Convert:
		if isInteger(v.Type()) && isInteger(v.X.Type()) {
			return n.termOf(v.X)
		}
	case *ssa.Call:
		if b, ok := v.Call.Value.(*ssa.Builtin); ok && b.Name() == "len" && len(v.Call.Args) == 1 {
			return n.length(v.Call.Args[0])
		}
	}
	return n.variable(v)
}

// single returns the variable of t if t is exactly one variable.
func single(t entail.Term) (string, bool) {
	if t.Const != 0 || len(t.Monos) != 1 || t.Monos[0].Coef != 1 {
		return "", false
	}
	return t.Monos[0].Var, true
}

func constInt(c *ssa.Const) (int64, bool) {
	defer func() { recover() }()
	if c.Value == nil {
		return 0, true
	}
	return c.Int64(), true
}

func isInteger(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsInteger != 0
}

// pretty prints v as the source names it where it can.
func (n *namer) pretty(v ssa.Value) string {
	switch v := v.(type) {
	case *ssa.Parameter, *ssa.FreeVar, *ssa.Global:
		return v.Name()
	case *ssa.Phi:
		if v.Comment != "" {
			return v.Comment
		}
	case *ssa.Alloc:
		if v.Comment != "" {
			return v.Comment
		}
	case *ssa.Const:
		switch {
		case v.IsNil():
			return "nil"
		case v.Value == nil:
			return v.Name() // the zero value of a struct or array type
		}
		return v.Value.String()
	case *ssa.BinOp:
		if _, ok := recomputable(v); ok {
			if v.Op == token.MUL {
				return n.pretty(v.X) + "*" + n.pretty(v.Y)
			}
			return "(" + n.pretty(v.X) + v.Op.String() + n.pretty(v.Y) + ")"
		}
	case *ssa.UnOp:
		if v.Op == token.MUL && n.safe.Value(v.X) {
			return n.pretty(v.X) // a load of a variable of the safe class
		}
		if v.Op == token.MUL {
			if p, ok := n.addrPath(v.X); ok {
				s := p.String()
				return strings.TrimPrefix(s, "*")
			}
		}
	}
	return v.Name()
}

// addrPath is pathOf for printing only (no canonicalization).
func (n *namer) addrPath(addr ssa.Value) (Path, bool) {
	p, local := pathOf(addr, n, nil)
	return p, !local
}

// term prints t with source names, compactly ("i+1").
func (n *namer) term(t entail.Term) string {
	return t.Format(func(name string) string {
		v := n.vals[name]
		switch {
		case v == nil:
			return name
		case n.lens[name]:
			return "len(" + n.pretty(v) + ")"
		}
		return n.pretty(v)
	}, "")
}

// pathOf returns the path of the location addr points to, and whether that
// location is thread-local (a non-escaping Alloc: the Java implementation
// of Rhodes' thesis, §3.5, treats locals as unshared). canon maps a load to an equal earlier load (alias facts); nil
// means no canonicalization.
func pathOf(addr ssa.Value, n *namer, canon map[ssa.Value]ssa.Value) (p Path, local bool) {
	switch a := addr.(type) {
	case *ssa.FieldAddr:
		p, local = pathOf(a.X, n, canon)
		if local {
			return p, true
		}
		st := a.X.Type().Underlying().(*types.Pointer).Elem().Underlying().(*types.Struct)
		p.Steps = append(append([]Step(nil), p.Steps...), Step{Field: a.Field, Name: st.Field(a.Field).Name(), Struct: st})
		return p, false
	case *ssa.IndexAddr:
		i := n.termOf(a.Index)
		step := Step{Field: -1, Lo: i, Hi: i.AddConst(1), Stride: 1}
		if _, isPtr := a.X.Type().Underlying().(*types.Pointer); isPtr {
			p, local = pathOf(a.X, n, canon)
			if local {
				return p, true
			}
			p.Steps = append(append([]Step(nil), p.Steps...), step)
			return p, false
		}
		if n.fresh(a.X) {
			return Path{}, true
		}
		p = n.base(a.X, canon)
		p.Steps = append(append([]Step(nil), p.Steps...), step)
		return p, false
	case *ssa.Alloc:
		if !a.Heap || strings.Contains(a.Comment, "$") || n.fresh(a) || n.safe.Value(a) {
			// Not escaping, or compiler-made state such as the jump
			// variable of range-over-func: thread-local.
			return Path{}, true
		}
	case *ssa.Global, *ssa.FreeVar:
		if strings.Contains(a.Name(), "$") {
			return Path{}, true // synthetic (init$guard, jump$1): not user memory
		}
		if n.safe.Value(a) {
			return Path{}, true // the static safe class (safe.go)
		}
	case *ssa.Phi:
		if n.safe.Value(a) {
			return Path{}, true // a per-iteration variable's cells
		}
	case *ssa.ChangeType:
		return pathOf(a.X, n, canon)
	}
	return n.base(addr, canon), false
}

// maxDerefs bounds the loads an extended path looks through.
const maxDerefs = 2

// base returns the path that designates the object v points to: v itself,
// or, when v was loaded from a shared location p, the extended path p→
// (Rhodes' thesis §3.5, "extended paths containing multiple
// field/array references"). An extended path names the same object only
// while nothing stores to p; the rules invalidate it at stores that may
// alias p and at calls (see invalidates).
func (n *namer) base(v ssa.Value, canon map[ssa.Value]ssa.Value) Path {
	v = canonical(v, canon)
	if ld, ok := v.(*ssa.UnOp); ok && ld.Op == token.MUL && n.safe.stable(ld.X, n.fn) {
		// A variable of the safe class that this function never
		// stores: every load gives the same value, so its extended
		// path names one object, although the variable itself is not
		// an access.
		return Path{Base: ld.X, Steps: []Step{{Field: stepDeref, Loaded: ld.Type()}}, names: n}
	}
	if ld, ok := v.(*ssa.UnOp); ok && ld.Op == token.MUL && n.derefs < maxDerefs {
		n.derefs++
		p, local := pathOf(ld.X, n, canon)
		n.derefs--
		if !local && p.Base != nil && !p.Map {
			p.Steps = append(append([]Step(nil), p.Steps...), Step{Field: stepDeref, Struct: nil, Loaded: ld.Type()})
			return p
		}
	}
	return Path{Base: v, names: n}
}

func canonical(v ssa.Value, canon map[ssa.Value]ssa.Value) ssa.Value {
	for canon != nil {
		w, ok := canon[v]
		if !ok || w == v {
			break
		}
		v = w
	}
	return v
}

// wholeSlice returns the path s[lo..hi] of slice (or array pointer) s.
func wholeSlice(s ssa.Value, lo, hi entail.Term, n *namer, canon map[ssa.Value]ssa.Value) (Path, bool) {
	step := Step{Field: -1, Lo: lo, Hi: hi, Stride: 1}
	switch s.Type().Underlying().(type) {
	case *types.Slice:
		if n.fresh(s) {
			return Path{}, false
		}
		p := n.base(s, canon)
		p.Steps = append(append([]Step(nil), p.Steps...), step)
		return p, true
	case *types.Pointer:
		p, local := pathOf(s, n, canon)
		if local {
			return p, false
		}
		p.Steps = append(append([]Step(nil), p.Steps...), step)
		return p, true
	}
	return Path{}, false // strings are immutable
}

// accessesOf returns the accesses instr performs, in evaluation order,
// and its loads and stores of memory no other goroutine can reach (local:
// a variable whose address does not leave the function, a fresh object,
// the static safe class), which are not accesses; the site plan states
// them (SitePlan.NotShared), so that the instrumenter leaves out the
// checks its syntax alone would make there.
func accessesOf(instr ssa.Instruction, n *namer, canon map[ssa.Value]ssa.Value) (out, local []*Access) {
	pos := instr.Pos()
	if !pos.IsValid() {
		pos = implicitPos(instr)
	}
	add := func(p Path, write bool) {
		p.names = n
		p.finish()
		out = append(out, &Access{Instr: instr, Path: p, Write: write, Pos: pos})
	}
	addLocal := func(write bool) {
		if pos.IsValid() {
			local = append(local, &Access{Instr: instr, Write: write, Pos: pos})
		}
	}
	mem := func(addr ssa.Value, write bool) {
		if p, isLocal := pathOf(addr, n, canon); !isLocal {
			add(p, write)
		} else {
			addLocal(write)
		}
	}
	mapObj := func(m ssa.Value, write bool) {
		if n.fresh(m) {
			addLocal(write)
			return
		}
		add(Path{Base: canonical(m, canon), Map: true}, write)
	}
	// slice adds the access of s[lo..hi], or notes it local.
	slice := func(s ssa.Value, lo, hi entail.Term, write bool) {
		if p, ok := wholeSlice(s, lo, hi, n, canon); ok {
			add(p, write)
			return
		}
		switch s.Type().Underlying().(type) {
		case *types.Slice, *types.Pointer:
			addLocal(write) // not a string: a fresh slice, a local array
		}
	}
	switch in := instr.(type) {
	case *ssa.UnOp:
		if in.Op == token.MUL {
			mem(in.X, false)
		}
	case *ssa.Store:
		mem(in.Addr, true)
	case *ssa.Lookup:
		if _, ok := in.X.Type().Underlying().(*types.Map); ok {
			mapObj(in.X, false)
		}
	case *ssa.MapUpdate:
		mapObj(in.Map, true)
	case *ssa.Next:
		if r, ok := in.Iter.(*ssa.Range); ok && !in.IsString {
			mapObj(r.X, false)
		}
	case *ssa.Convert:
		if _, ok := in.X.Type().Underlying().(*types.Slice); ok {
			slice(in.X, entail.Const(0), n.length(in.X), false)
		}
	case *ssa.Call:
		b, ok := in.Call.Value.(*ssa.Builtin)
		if !ok {
			break
		}
		args := in.Call.Args
		switch b.Name() {
		case "delete":
			mapObj(args[0], true)
		case "len", "cap":
			if _, ok := args[0].Type().Underlying().(*types.Map); ok {
				mapObj(args[0], false)
			}
		case "clear":
			if _, ok := args[0].Type().Underlying().(*types.Map); ok {
				mapObj(args[0], true)
			} else {
				slice(args[0], entail.Const(0), n.length(args[0]), true)
			}
		case "copy":
			cnt := n.variable(in)
			slice(args[1], entail.Const(0), cnt, false)
			slice(args[0], entail.Const(0), cnt, true)
		case "append":
			if len(args) == 2 {
				slice(args[1], entail.Const(0), n.length(args[1]), false)
			}
			slice(in, n.length(args[0]), n.length(in), true)
		}
	}
	return out, local
}

// implicitPos is the position of an access go/ssa makes at none, where
// the instrumenter checks it: the copy of a method's value receiver read
// through a pointer, at the call that passes it (its parenthesis; the go
// or defer keyword of the statement that calls it) or at the method value
// that binds it (the method's name); a range statement's step over a map,
// at its for keyword (the Range's); the load of a named result that a
// return statement returns, after the deferred calls ran, at the
// statement; the read of a three-clause loop's variable that copies it
// into the next iteration's, at the variable's declaration.
func implicitPos(instr ssa.Instruction) token.Pos {
	if nx, ok := instr.(*ssa.Next); ok {
		if rng, ok := nx.Iter.(*ssa.Range); ok {
			return rng.Pos()
		}
		return token.NoPos
	}
	ld, ok := instr.(*ssa.UnOp)
	if !ok || ld.Op != token.MUL {
		return token.NoPos
	}
	switch ld.X.(type) {
	case *ssa.IndexAddr, *ssa.FieldAddr:
		// A range statement's element, an embedded pointer field on
		// the way to a promoted method: not the receiver's copy.
		return token.NoPos
	}
	refs := ld.Referrers()
	if refs == nil || len(*refs) != 1 {
		return token.NoPos
	}
	switch r := (*refs)[0].(type) {
	case *ssa.MakeClosure:
		if len(r.Bindings) == 1 && r.Bindings[0] == ld {
			return r.Pos()
		}
	case ssa.CallInstruction: // a call, a go or defer statement
		if c := r.Common(); !c.IsInvoke() && c.Signature().Recv() != nil && len(c.Args) > 0 && c.Args[0] == ld {
			return r.Pos()
		}
	case *ssa.Return:
		return r.Pos() // a named result, reloaded after the deferred calls
	case *ssa.Store:
		if phi, ok := ld.X.(*ssa.Phi); ok && r.Val == ld {
			// A Go 1.22 loop's variable, copied into the next
			// iteration's: at its declaration.
			return phi.Pos()
		}
	}
	return token.NoPos
}

func kindName(write bool) string {
	if write {
		return "W"
	}
	return "R"
}
