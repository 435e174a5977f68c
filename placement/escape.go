package placement

import (
	"go/types"

	"golang.org/x/tools/go/ssa"
)

// fresh reports whether v (through reslicing) is memory this function
// allocated and that never escapes it: another goroutine cannot reach it,
// so its accesses are thread-local and need no check. This extends SSA's
// own criterion for Alloc (Heap == false after lifting) to make([]T, n),
// make(map), []byte(s), composite literals and new(T) whose address is
// only used to load, store, index, slice, copy, append, range and len.
func (n *namer) fresh(v ssa.Value) bool {
	for {
		s, ok := v.(*ssa.Slice)
		if !ok {
			break
		}
		v = s.X
	}
	switch v := v.(type) {
	case *ssa.MakeSlice, *ssa.MakeMap, *ssa.Alloc:
	case *ssa.Convert:
		if _, ok := v.X.Type().Underlying().(*types.Basic); !ok {
			return false // only string → []byte/[]rune copies
		}
	default:
		return false
	}
	if r, ok := n.local[v]; ok {
		return r
	}
	n.local[v] = false // in progress: escaping until shown otherwise
	r := !escapes(v)
	n.local[v] = r
	return r
}

// escapes reports whether the memory v refers to may be reachable by
// code other than the current function's own loads, stores and builtins.
func escapes(root ssa.Value) bool {
	seen := map[ssa.Value]bool{root: true}
	work := []ssa.Value{root}
	derive := func(w ssa.Value) {
		if !seen[w] {
			seen[w] = true
			work = append(work, w)
		}
	}
	for len(work) > 0 {
		v := work[len(work)-1]
		work = work[:len(work)-1]
		refs := v.Referrers()
		if refs == nil {
			return true
		}
		for _, r := range *refs {
			switch r := r.(type) {
			case *ssa.IndexAddr, *ssa.FieldAddr, *ssa.Slice:
				derive(r.(ssa.Value))
			case *ssa.UnOp:
				// A load through the address (or a deref of an array
				// pointer): the loaded value is a copy.
			case *ssa.Store:
				if r.Val == v {
					return true // the address itself is stored
				}
			case *ssa.Lookup:
				if r.Index == v {
					return true
				}
			case *ssa.MapUpdate:
				if r.Key == v || r.Value == v {
					return true
				}
			case *ssa.Range, *ssa.DebugRef:
			case *ssa.Convert:
				// []byte → string copies.
			case *ssa.Call:
				b, ok := r.Call.Value.(*ssa.Builtin)
				if !ok {
					return true
				}
				switch b.Name() {
				case "len", "cap", "copy", "clear", "delete":
				case "append":
					if r.Call.Args[0] == v {
						derive(r) // the result may share v's array
					} // else v is only read from
				default:
					return true
				}
			default:
				return true
			}
		}
	}
	return false
}
