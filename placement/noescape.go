package placement

import (
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"
)

// Parameters that do not publish (beyond BigFoot).
//
// A caller that passes a pointer to an unpublished object (Unpublished)
// to a function publishes it, unless the function only accesses the
// object through it: it neither stores the pointer, nor returns it, nor
// captures it, nor passes it on other than to another such parameter, nor
// stores a pointer into the object (which would let the caller load a
// foreign pointer from it), and the same holds for the pointers it loads
// from the object (which may point into the caller's other unpublished
// objects). Then the call keeps the object unpublished,
// and the function's accesses through the parameter are accesses to an
// unpublished object: a copy of the function that does not check them
// (instrument/unpublished.go) serves such calls.

// NoEscape holds, for the functions of a package, which pointer
// parameters only serve to access their pointee (see above).
type NoEscape struct {
	params map[*ssa.Function][]bool
}

// FindNoEscape computes the parameters of the functions fns (a package's
// functions: a call of any other function publishes its arguments) that
// do not publish their pointee: a greatest fixed point, so that mutual
// calls passing the pointer along keep it unpublished.
func FindNoEscape(fns []*ssa.Function) *NoEscape {
	ne := &NoEscape{params: map[*ssa.Function][]bool{}}
	for _, fn := range fns {
		if len(fn.Blocks) == 0 || fn.Parent() != nil || len(fn.FreeVars) > 0 || fn.Recover != nil ||
			fn.TypeParams().Len() > 0 || len(fn.TypeArgs()) > 0 || fn.Synthetic != "" {
			continue
		}
		ps := make([]bool, len(fn.Params))
		for i, p := range fn.Params {
			ps[i] = isPointer(p.Type())
		}
		ne.params[fn] = ps
	}
	for changed := true; changed; {
		changed = false
		for fn, ps := range ne.params {
			for i, ok := range ps {
				if ok && !ne.onlyAccessed(fn.Params[i]) {
					ps[i] = false
					changed = true
				}
			}
		}
	}
	return ne
}

// Param reports whether parameter i of fn does not publish its pointee.
func (ne *NoEscape) Param(fn *ssa.Function, i int) bool {
	if ne == nil {
		return false
	}
	ps := ne.params[fn]
	return i < len(ps) && ps[i]
}

// onlyAccessed reports whether the pointer p (the addresses derived from
// it by fields, indices and slicing, and the pointers loaded from them)
// is only loaded through, stored through (values without pointers),
// compared, measured, or passed to a parameter that does not publish, as
// the current fixed point says.
func (ne *NoEscape) onlyAccessed(p ssa.Value) bool {
	seen := map[ssa.Value]bool{p: true}
	work := []ssa.Value{p}
	for len(work) > 0 {
		v := work[len(work)-1]
		work = work[:len(work)-1]
		refs := v.Referrers()
		if refs == nil {
			return false
		}
		for _, r := range *refs {
			switch r := r.(type) {
			case *ssa.FieldAddr, *ssa.IndexAddr, *ssa.Slice:
				if w := r.(ssa.Value); !seen[w] {
					seen[w] = true
					work = append(work, w)
				}
			case *ssa.UnOp:
				if r.Op != token.MUL {
					return false
				}
				// A pointer loaded from the pointee is the caller's too
				// (its object may be in the caller's component): it
				// must not be published either.
				if hasPointers(r.Type()) && !seen[r] {
					seen[r] = true
					work = append(work, r)
				}
			case *ssa.Store:
				if r.Val == v || hasPointers(r.Val.Type()) {
					return false
				}
			case *ssa.BinOp:
				if r.Op != token.EQL && r.Op != token.NEQ {
					return false
				}
			case *ssa.DebugRef:
			case *ssa.Call:
				if b, ok := r.Call.Value.(*ssa.Builtin); ok {
					if n := b.Name(); n != "len" && n != "cap" {
						return false
					}
					continue
				}
				callee := r.Call.StaticCallee()
				if callee == nil || r.Call.IsInvoke() {
					return false
				}
				for j, a := range r.Call.Args {
					if a == v && !ne.Param(callee, j) {
						return false
					}
				}
			default:
				return false
			}
		}
	}
	return true
}

// ParamAccess reports whether the load or store in accesses memory
// through parameter i of its function directly (by fields and indices of
// the parameter, not through a loaded pointer).
func ParamAccess(in ssa.Instruction, i int) bool {
	fn := in.Parent()
	return i < len(fn.Params) && DerivedFrom(AddrOf(in), fn.Params[i])
}

// isPointer reports whether t is a pointer type.
func isPointer(t types.Type) bool {
	_, ok := t.Underlying().(*types.Pointer)
	return ok
}

// Functions returns the functions whose parameters ne knows.
func (ne *NoEscape) Functions() []*ssa.Function {
	var out []*ssa.Function
	for fn := range ne.params {
		out = append(out, fn)
	}
	return out
}

// DerivedFrom reports whether the pointer v is p or an address computed
// from it by fields, indices and slicing.
func DerivedFrom(v, p ssa.Value) bool {
	for v != nil {
		if v == p {
			return true
		}
		switch a := v.(type) {
		case *ssa.FieldAddr:
			v = a.X
		case *ssa.IndexAddr:
			v = a.X
		case *ssa.Slice:
			v = a.X
		default:
			return false
		}
	}
	return false
}
