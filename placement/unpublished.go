package placement

import (
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"
)

// Unpublished objects (beyond BigFoot).
//
// An object a function allocates is reachable by its goroutine alone until
// the function publishes it: stores a pointer into it somewhere another
// goroutine may read, passes it to a call, returns it, captures it in a
// closure, sends it, converts it to an interface. Until then no access to
// it can be in a race, so it needs no check; escape analysis (fresh) only
// covers objects that are never published at all. montecarlo's simulate
// builds a path of fresh steps, linked through prev and appended to
// p.steps, and publishes them only by returning p.
//
// The analysis groups the function's allocations (heap Allocs and
// make([]T)) into components: objects one of which may hold a pointer to
// another (a store, an append, a copy, a φ merging them) are in one
// component. It requires the components to be closed: every pointer
// stored into an object of a component, appended or copied into it, is a
// pointer into the same component or nil, so a pointer loaded from one
// points into it too. A value is published where it is used other than to
// compute an address, load, store into its component, append, copy, len,
// cap or compare; an access to a component is unpublished if no
// publication of that component may run before it in the same call (an
// earlier instruction of its block, or any instruction of a block from
// which its block is reachable, loops included).
//
// A race on an unpublished object's memory needs another goroutine that
// reached it, hence a publication that is itself a race (on the pointer,
// which is checked) or that synchronizes (which orders the accesses): the
// first race of the trace is reported, as for the fields that composite
// literals of fresh objects initialize, which are not accesses either.

// maxUnpubBlocks bounds the functions Unpublished analyzes (block
// reachability is quadratic in the blocks).
const maxUnpubBlocks = 400

// Unpublished returns the loads and stores of fn whose memory belongs to
// an object fn allocated and has not published when they run (see above),
// the calls of append whose slice is such an object, and the calls that
// pass such an object to a parameter that does not publish it (ne; nil:
// every call publishes its arguments). The value is the index of that
// parameter for a call, -1 otherwise.
func Unpublished(fn *ssa.Function, ne *NoEscape) map[ssa.Instruction]int {
	u := &unpub{openRoots: map[ssa.Value]bool{}, ne: ne}
	if len(fn.Blocks) == 0 || len(fn.Blocks) > maxUnpubBlocks || fn.Recover != nil || !u.build(fn) {
		return nil
	}
	// Publications, by component.
	pubs := map[ssa.Value][]ssa.Instruction{}
	for v := range u.comp {
		refs := v.Referrers()
		if refs == nil {
			return nil
		}
		for _, r := range *refs {
			if !u.internalUse(v, r) {
				c := u.find(u.comp[v])
				pubs[c] = append(pubs[c], r)
			}
		}
	}
	reach := blockReach(fn)
	out := map[ssa.Instruction]int{}
	for _, b := range fn.Blocks {
		for i, in := range b.Instrs {
			addr, param := AddrOf(in), -1
			if c, ok := in.(*ssa.Call); ok {
				if b, ok := c.Call.Value.(*ssa.Builtin); ok && b.Name() == "append" {
					addr = c.Call.Args[0] // writes (and may read) its array
				} else if i := u.passedParam(c); i >= 0 {
					addr, param = c.Call.Args[i], i // the callee accesses it
				}
			}
			root, ok := u.comp[addr]
			if addr == nil || !ok {
				continue
			}
			safe := true
			for _, q := range pubs[u.find(root)] {
				qb := q.Block()
				if qb == nil || reach[qb][b] || qb == b && IndexIn(b.Instrs, q) < i {
					safe = false
					break
				}
			}
			if safe {
				out[in] = param
			}
		}
	}
	return out
}

// unpub is the state of Unpublished: the component (a root allocation,
// with union-find over roots) of each value that points into one.
type unpub struct {
	comp      map[ssa.Value]ssa.Value // value → a root of its component
	parent    map[ssa.Value]ssa.Value // union-find over roots
	openRoots map[ssa.Value]bool      // roots of the components opened so far
	ne        *NoEscape               // parameters that do not publish
}

// passedParam returns the one argument of the static call c that points
// into a component and goes to a parameter that does not publish it, or
// -1 (none, several, or another argument in a component).
func (u *unpub) passedParam(c *ssa.Call) int {
	callee := c.Call.StaticCallee()
	if callee == nil || c.Call.IsInvoke() {
		return -1
	}
	found := -1
	for i, a := range c.Call.Args {
		if _, ok := u.comp[a]; !ok {
			continue
		}
		if found >= 0 || !u.ne.Param(callee, i) {
			return -1
		}
		found = i
	}
	return found
}

func (u *unpub) find(r ssa.Value) ssa.Value {
	for u.parent[r] != r {
		u.parent[r] = u.parent[u.parent[r]]
		r = u.parent[r]
	}
	return r
}

func (u *unpub) union(a, b ssa.Value) { u.parent[u.find(a)] = u.find(b) }

// of returns the component root of v, or nil if v is not a pointer into a
// component (nil constants are in every component: ok is true, root nil).
func (u *unpub) of(v ssa.Value) (root ssa.Value, ok bool) {
	if c, isConst := v.(*ssa.Const); isConst && c.IsNil() {
		return nil, true
	}
	r, ok := u.comp[v]
	return r, ok
}

// build computes the components of fn's values; it reports false if fn
// allocates nothing.
func (u *unpub) build(fn *ssa.Function) bool {
	for {
		u.comp, u.parent = map[ssa.Value]ssa.Value{}, map[ssa.Value]ssa.Value{}
		if !u.derive(fn) {
			return len(u.comp) > 0
		}
	}
}

// derive computes the components of fn's values, loads from open
// components excepted, and reports whether it opened another component.
func (u *unpub) derive(fn *ssa.Function) bool {
	for _, b := range fn.Blocks {
		for _, in := range b.Instrs {
			switch in := in.(type) {
			case *ssa.Alloc:
				u.comp[in], u.parent[in] = in, in
			case *ssa.MakeSlice:
				u.comp[in], u.parent[in] = in, in
			}
		}
	}
	if len(u.comp) == 0 {
		return false
	}
	// Derived values, to a fixed point (φs and loads may come before
	// their operands in block order).
	for changed := true; changed; {
		changed = false
		add := func(v, root ssa.Value) {
			if old, ok := u.comp[v]; ok {
				if u.find(old) != u.find(root) {
					u.union(old, root)
					changed = true
				}
				return
			}
			u.comp[v] = root
			changed = true
		}
		for _, b := range fn.Blocks {
			for _, in := range b.Instrs {
				switch in := in.(type) {
				case *ssa.FieldAddr:
					if r, ok := u.comp[in.X]; ok {
						add(in, r)
					}
				case *ssa.IndexAddr:
					if r, ok := u.comp[in.X]; ok {
						add(in, r)
					}
				case *ssa.Slice:
					if r, ok := u.comp[in.X]; ok {
						add(in, r)
					}
				case *ssa.Convert:
					if r, ok := u.comp[in.X]; ok && samePointer(in) {
						add(in, r)
					}
				case *ssa.ChangeType:
					if r, ok := u.comp[in.X]; ok {
						add(in, r)
					}
				case *ssa.UnOp:
					if r, ok := u.comp[in.X]; ok && in.Op == token.MUL && hasPointers(in.Type()) && !u.isOpen(r) {
						add(in, r) // closed: what it holds points into it
					}
				case *ssa.Phi:
					var root ssa.Value
					all := true
					for _, e := range in.Edges {
						r, ok := u.of(e)
						if !ok {
							all = false
							break
						}
						if r != nil {
							root = r
						}
					}
					if all && root != nil {
						for _, e := range in.Edges {
							if r, _ := u.of(e); r != nil && u.find(r) != u.find(root) {
								u.union(r, root)
								changed = true
							}
						}
						add(in, root)
					}
				case *ssa.Call:
					if b, ok := in.Call.Value.(*ssa.Builtin); ok && b.Name() == "append" {
						if r, ok := u.of(in.Call.Args[0]); ok && r != nil {
							add(in, r)
						}
					}
				}
			}
		}
	}
	// Closure: a component is open if something stored, appended or
	// copied into it may be a pointer out of it; what is loaded from an
	// open component is not derived (it may point anywhere). Opening a
	// component can only remove derived values, so the derivation runs
	// again until nothing opens.
	opened := false
	for _, b := range fn.Blocks {
		for _, in := range b.Instrs {
			switch in := in.(type) {
			case *ssa.Store:
				if r, ok := u.comp[in.Addr]; ok && !u.holds(r, in.Val) {
					opened = u.openComp(r) || opened
				}
			case *ssa.Call:
				b, ok := in.Call.Value.(*ssa.Builtin)
				if !ok || b.Name() != "append" && b.Name() != "copy" {
					continue
				}
				dst, ok := u.comp[in.Call.Args[0]]
				if !ok {
					continue
				}
				for _, a := range in.Call.Args[1:] {
					if !u.holds(dst, a) {
						opened = u.openComp(dst) || opened
					}
				}
			}
		}
	}
	return opened
}

// isOpen reports whether the component of r was opened (in this round or
// a previous one, whose roots the union-find of this round may have merged
// differently: a component is open if any of its roots is).
func (u *unpub) isOpen(r ssa.Value) bool {
	c := u.find(r)
	for o := range u.openRoots {
		if _, ok := u.parent[o]; ok && u.find(o) == c {
			return true
		}
	}
	return false
}

// openComp marks the component of r open and reports whether it was
// closed.
func (u *unpub) openComp(r ssa.Value) bool {
	if u.isOpen(r) {
		return false
	}
	u.openRoots[r] = true
	return true
}

// holds reports whether storing v into component r keeps it closed.
func (u *unpub) holds(r, v ssa.Value) bool {
	if !hasPointers(v.Type()) {
		return true
	}
	vr, ok := u.of(v)
	if !ok {
		return false
	}
	if vr != nil && u.find(vr) != u.find(r) {
		u.union(vr, r)
	}
	return true
}

// internalUse reports whether the use r of v, a pointer into a component,
// keeps it unpublished.
func (u *unpub) internalUse(v ssa.Value, r ssa.Instruction) bool {
	switch r := r.(type) {
	case *ssa.FieldAddr, *ssa.IndexAddr, *ssa.Slice, *ssa.DebugRef, *ssa.ChangeType:
		return true
	case *ssa.Convert:
		return samePointer(r)
	case *ssa.UnOp:
		return r.Op == token.MUL
	case *ssa.Store:
		if r.Addr == v {
			return true
		}
		_, ok := u.comp[r.Addr]
		return ok // stored into a component: merged by holds
	case *ssa.Phi:
		_, ok := u.comp[r]
		return ok
	case *ssa.BinOp:
		return r.Op == token.EQL || r.Op == token.NEQ
	case *ssa.Call:
		b, ok := r.Call.Value.(*ssa.Builtin)
		if !ok {
			callee := r.Call.StaticCallee()
			if callee == nil || r.Call.IsInvoke() {
				return false
			}
			for i, a := range r.Call.Args {
				if a == v && !u.ne.Param(callee, i) {
					return false
				}
			}
			return true
		}
		switch b.Name() {
		case "len", "cap":
			return true
		case "append":
			_, ok := u.comp[r]
			return ok
		case "copy":
			_, ok := u.comp[r.Call.Args[0]]
			return ok
		}
	}
	return false
}

// samePointer reports whether the conversion c is between a pointer and
// unsafe.Pointer (either way), so that its result holds the same address:
// math.Float64bits's *(*uint64)(unsafe.Pointer(&f)) loads its parameter's
// own memory. A conversion to uintptr is not one: arithmetic on the
// integer may yield any address. By the rules of package unsafe (pattern
// (1), "Conversion of a *T1 to Pointer to *T2") the converted pointer
// stays within the object it came from.
func samePointer(c *ssa.Convert) bool {
	isPtr := func(t types.Type) bool {
		_, ok := t.Underlying().(*types.Pointer)
		return ok
	}
	return isPtr(c.X.Type()) && isUnsafePointer(c.Type()) || isUnsafePointer(c.X.Type()) && isPtr(c.Type())
}

func isUnsafePointer(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Kind() == types.UnsafePointer
}

// hasPointers reports whether values of type t may hold a pointer (a
// string's bytes are immutable: not one).
func hasPointers(t types.Type) bool {
	switch t := t.Underlying().(type) {
	case *types.Basic:
		return t.Kind() == types.UnsafePointer
	case *types.Struct:
		for i := 0; i < t.NumFields(); i++ {
			if hasPointers(t.Field(i).Type()) {
				return true
			}
		}
		return false
	case *types.Array:
		return hasPointers(t.Elem())
	}
	return true
}

// blockReach returns, for each block, the blocks reachable from it by a
// path of at least one edge.
func blockReach(fn *ssa.Function) map[*ssa.BasicBlock]map[*ssa.BasicBlock]bool {
	out := map[*ssa.BasicBlock]map[*ssa.BasicBlock]bool{}
	for _, b := range fn.Blocks {
		seen := map[*ssa.BasicBlock]bool{}
		stack := append([]*ssa.BasicBlock(nil), b.Succs...)
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if !seen[x] {
				seen[x] = true
				stack = append(stack, x.Succs...)
			}
		}
		out[b] = seen
	}
	return out
}
