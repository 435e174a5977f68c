package instrument

import (
	"go/ast"
	"go/token"
	"go/types"
)

// Accesses through package reflect (uninstrumented): a reflect.Value method
// that reads or writes the memory an addressable Value designates is
// announced at the call site by wrapping the receiver,
// __bf.ReflectW(g, site, v).SetInt(1) and __bf.ReflectR(g, site, v).Int(),
// and reflect.Copy becomes __bf.ReflectCopy, which checks the element
// ranges as copy does (docs/instrument.md). Map operations check the map
// as the runtime's map functions do under go -race (mapaccess reads it,
// mapassign writes it).

// reflectReads and reflectWrites are the reflect.Value methods that read
// or write the memory of the Value itself.
var (
	reflectReads = map[string]bool{
		"Bool": true, "Int": true, "Uint": true, "Float": true, "Complex": true,
		"String": true, "Bytes": true, "Interface": true, "Pointer": true, "UnsafePointer": true,
	}
	reflectWrites = map[string]bool{
		"Set": true, "SetBool": true, "SetInt": true, "SetUint": true, "SetFloat": true,
		"SetComplex": true, "SetString": true, "SetBytes": true, "SetPointer": true,
		"SetLen": true, "SetCap": true, "SetZero": true,
	}
	// reflectHeaderReads are the reflect.Value methods that read the
	// Value's memory only where it is a header (slice, string, pointer,
	// interface, map, channel) and, on a map, the map (ReflectHdr): on
	// an array or a struct they read nothing, and checking the whole
	// value would race with writes of its other elements.
	reflectHeaderReads = map[string]bool{
		"Len": true, "Cap": true, "Index": true, "Elem": true, "IsNil": true,
		"Slice": true, "Slice3": true, "MapIndex": true, "MapKeys": true, "MapRange": true,
	}
	// reflectPure are the functions of package reflect that may appear in
	// the arguments of a wrapped setter: they cannot synchronize.
	reflectPure = map[string]bool{"ValueOf": true, "Zero": true, "New": true, "Indirect": true, "TypeOf": true}
)

// reflectHook returns the hook wrapping the receiver of a call of the
// method selected by s, or "" if the method is not a reflect.Value access.
func reflectHook(s *types.Selection) rtName {
	fn, ok := s.Obj().(*types.Func)
	if !ok || fn.Pkg() == nil || fn.Pkg().Path() != "reflect" || !isReflectValue(s.Recv()) {
		return ""
	}
	switch {
	case reflectReads[fn.Name()]:
		return "ReflectR"
	case reflectWrites[fn.Name()]:
		return "ReflectW"
	case reflectHeaderReads[fn.Name()]:
		return "ReflectHdr"
	case fn.Name() == "SetMapIndex":
		return "ReflectMapW"
	}
	return ""
}

func isReflectValue(t types.Type) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "reflect" && n.Obj().Name() == "Value"
}

// isReflectFunc reports whether fun denotes the function reflect.name.
func (r *fileRewriter) isReflectFunc(fun ast.Expr, name string) bool {
	sel, ok := ast.Unparen(fun).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	fn, ok := r.info.Uses[sel.Sel].(*types.Func)
	return ok && fn.Pkg() != nil && fn.Pkg().Path() == "reflect" && fn.Name() == name &&
		fn.Type().(*types.Signature).Recv() == nil
}

// reflectArgsSyncFree reports whether evaluating the arguments cannot
// synchronize, so that a write check made before them (when the receiver
// is evaluated) is where the write happens as far as synchronization goes:
// no receive, and no call other than builtins, conversions and the pure
// functions of package reflect.
func (r *fileRewriter) reflectArgsSyncFree(args []ast.Expr) bool {
	free := true
	for _, a := range args {
		ast.Inspect(a, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.CallExpr:
				if r.info.Types[n.Fun].IsType() || r.builtinName(n.Fun) != "" {
					return true
				}
				for name := range reflectPure {
					if r.isReflectFunc(n.Fun, name) {
						return true
					}
				}
				free = false
			case *ast.UnaryExpr:
				if n.Op == token.ARROW {
					free = false
				}
			}
			return free
		})
	}
	return free
}
