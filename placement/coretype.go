// Copyright 2026 The bigfoot Authors. All rights reserved.

package placement

import "go/types"

// CoreType is the underlying type of t; for a type parameter, its core
// type (the Go spec, "Core types"): the underlying type every type of its
// type set shares (S ~[]E: []E; M ~map[K]V: map[K]V; P interface{ *T }:
// *T), or nil if they do not share one (any, ~[]int | ~[]int64, ~string |
// ~[]byte). The instrumenter does not check the accesses of an operand
// without one; placement gives it no range or footprint.
func CoreType(t types.Type) types.Type {
	if t == nil {
		return nil
	}
	if tp, ok := types.Unalias(t).(*types.TypeParam); ok {
		iface, _ := tp.Constraint().Underlying().(*types.Interface)
		return typeSetCore(iface)
	}
	return t.Underlying()
}

// typeSetCore is the underlying type shared by every type of the type
// set of the constraint iface, or nil. Each embedded element restricts
// the set (an intersection); an element with terms whose underlying
// types all agree gives that type, and every such element must give the
// same one. Elements without terms (methods, comparable) do not change
// it; if no element has terms, the set is all types and there is none.
func typeSetCore(iface *types.Interface) types.Type {
	if iface == nil {
		return nil
	}
	var core types.Type
	for i := range iface.NumEmbeddeds() {
		var u types.Type
		switch e := iface.EmbeddedType(i).(type) {
		case *types.Union:
			for j := range e.Len() {
				tu := termCore(e.Term(j).Type())
				if tu == nil || u != nil && !types.Identical(u, tu) {
					return nil
				}
				u = tu
			}
		default:
			if ei, ok := e.Underlying().(*types.Interface); ok && ei.IsMethodSet() {
				continue
			}
			if u = termCore(e); u == nil {
				return nil
			}
		}
		if core != nil && !types.Identical(core, u) {
			return nil
		}
		core = u
	}
	return core
}

// termCore is the underlying type of a term of a type set: a type, or an
// interface whose own type set gives it.
func termCore(t types.Type) types.Type {
	if ei, ok := t.Underlying().(*types.Interface); ok {
		return typeSetCore(ei)
	}
	return t.Underlying()
}
