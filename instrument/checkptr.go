package instrument

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/bigfoot-go/bigfoot/placement"
)

// Pointer checks the compiler makes (docs/build.md, "Pointer checks
// proved to pass").
//
// Under -race the compiler compiles every package but the runtime's with
// -d=checkptr, and bigfoot does the same (driver/checkptr.go). The
// compiler then calls into the runtime at
//
//   - a conversion from unsafe.Pointer to *E (unless E is one byte or
//     empty): checkptrAlignment, which throws if the pointer is misaligned
//     for an E with pointers or if the E straddles two objects;
//   - a conversion from uintptr to unsafe.Pointer, unless the uintptr is a
//     call's result: checkptrArithmetic, which throws if the result
//     leaves the objects the arithmetic started from;
//   - unsafe.Add (the same), unsafe.Slice and unsafe.String.
//
// Each is a call on the conversion's path, which in math's Float64bits
// (inlined into Pow, Exp, Frexp, ...) costs more than the arithmetic
// around it. pointerChecksPass proves, for a package, that every such
// call would return: then compiling the package without -d=checkptr
// changes nothing go -race could report there, as placement's proofs
// change nothing about the races it reports.

// pointerChecksPass reports whether every pointer check the compiler's
// -d=checkptr would make in the code of pkg's files provably passes. It
// proves one form only, the one the bit conversions of math and similar
// packages use: a conversion (*E)(unsafe.Pointer(&v)) of the address of a
// variable v (or of a field or array element within one), where an E
// fits in v and, if E has pointers, v is aligned for it. Any other pointer
// check, cgo, and code it cannot type fail the proof.
//
// The proof covers the package's own code only: code the compiler
// inlines into it from its imports is checked in the package's compile
// too, so the driver exempts a package only if its imports are exempt.
func pointerChecksPass(pkg *packages.Package) bool {
	if pkg.IllTyped || pkg.TypesInfo == nil || pkg.TypesSizes == nil || len(pkg.Syntax) == 0 {
		return false
	}
	info, sizes := pkg.TypesInfo, pkg.TypesSizes
	ok := true
	for _, f := range pkg.Syntax {
		if usesCgo(f) {
			return false
		}
		// The X of a three-index slice of a converted pointer is
		// checked for the slice's capacity, not for the array.
		sliced := map[ast.Expr]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			if !ok {
				return false
			}
			switch n := n.(type) {
			case *ast.SliceExpr:
				if n.Slice3 {
					sliced[ast.Unparen(n.X)] = true
				}
			case *ast.CallExpr:
				if !callChecksPass(n, sliced[n], info, sizes) {
					ok = false
				}
			}
			return true
		})
	}
	return ok
}

// callChecksPass reports whether the call or conversion call makes no
// pointer check or one that provably passes (pointerChecksPass). sliced
// says call is the pointer a three-index slice expression slices.
func callChecksPass(call *ast.CallExpr, sliced bool, info *types.Info, sizes types.Sizes) bool {
	fun := ast.Unparen(call.Fun)
	if tv, ok := info.Types[fun]; ok && tv.IsType() {
		if len(call.Args) != 1 {
			return true
		}
		to, from := info.TypeOf(call), info.TypeOf(call.Args[0])
		if to == nil || from == nil {
			return false
		}
		switch {
		case mayBe(from, isUnsafePointer) && mayBe(to, isPointerType):
			return alignmentCheckPasses(call, to, sliced, info, sizes)
		case mayBe(from, isUintptr) && mayBe(to, isUnsafePointer):
			// The compiler checks no arithmetic on a call's result
			// (reflect.Value.Pointer and the like).
			arg, ok := ast.Unparen(call.Args[0]).(*ast.CallExpr)
			return ok && !isConversion(arg, info) && !isBuiltin(arg, info)
		}
		return true
	}
	if b, ok := typeutil.Callee(info, call).(*types.Builtin); ok {
		switch b.Name() {
		case "Add", "Slice", "String":
			return b.Pkg() == nil || b.Pkg().Path() != "unsafe"
		}
	}
	return true
}

// alignmentCheckPasses reports whether the conversion conv, from
// unsafe.Pointer to the pointer type to, provably passes checkptr's
// alignment and straddling check.
func alignmentCheckPasses(conv *ast.CallExpr, to types.Type, sliced bool, info *types.Info, sizes types.Sizes) bool {
	ptr, ok := to.Underlying().(*types.Pointer)
	if !ok || placement.MentionsTypeParam(to) {
		return false
	}
	elem := ptr.Elem()
	if sizes.Alignof(elem) == 1 && sizes.Sizeof(elem) <= 1 {
		return true // the compiler checks nothing
	}
	if sliced {
		return false
	}
	// The operand must be unsafe.Pointer(&v).
	inner, ok := ast.Unparen(conv.Args[0]).(*ast.CallExpr)
	if !ok || !isConversion(inner, info) || len(inner.Args) != 1 {
		return false
	}
	addr, ok := ast.Unparen(inner.Args[0]).(*ast.UnaryExpr)
	if !ok || addr.Op != token.AND || !isVariablePath(addr.X, info) {
		return false
	}
	v := info.TypeOf(addr.X)
	if v == nil || placement.MentionsTypeParam(v) {
		return false
	}
	return sizes.Sizeof(elem) <= sizes.Sizeof(v) &&
		(!hasPointers(elem) || sizes.Alignof(elem) <= sizes.Alignof(v))
}

// isVariablePath reports whether e denotes a variable, or a field or
// array element stored within one: its address is that of a whole value
// of e's type inside one object.
func isVariablePath(e ast.Expr, info *types.Info) bool {
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		_, ok := info.Uses[e].(*types.Var)
		return ok
	case *ast.SelectorExpr:
		sel, ok := info.Selections[e]
		return ok && sel.Kind() == types.FieldVal && !sel.Indirect() && isVariablePath(e.X, info)
	case *ast.IndexExpr:
		t := info.TypeOf(e.X)
		if t == nil {
			return false
		}
		_, isArray := t.Underlying().(*types.Array)
		return isArray && isVariablePath(e.X, info)
	}
	return false
}

// isConversion reports whether call converts a value to a type.
func isConversion(call *ast.CallExpr, info *types.Info) bool {
	tv, ok := info.Types[ast.Unparen(call.Fun)]
	return ok && tv.IsType()
}

// isBuiltin reports whether call calls a built-in function.
func isBuiltin(call *ast.CallExpr, info *types.Info) bool {
	tv, ok := info.Types[ast.Unparen(call.Fun)]
	return ok && tv.IsBuiltin()
}

// mayBe reports whether t, or a type its type parameter's constraint
// admits, has an underlying type for which pred holds. A constraint with
// no type terms admits every type.
func mayBe(t types.Type, pred func(types.Type) bool) bool {
	tp, ok := types.Unalias(t).(*types.TypeParam)
	if !ok {
		return pred(t.Underlying())
	}
	iface, ok := tp.Constraint().Underlying().(*types.Interface)
	if !ok {
		return true
	}
	return interfaceMayBe(iface, pred)
}

// interfaceMayBe is mayBe for the type set of a constraint interface.
func interfaceMayBe(iface *types.Interface, pred func(types.Type) bool) bool {
	if iface.NumEmbeddeds() == 0 {
		return true
	}
	for i := range iface.NumEmbeddeds() {
		if !termsMayBe(iface.EmbeddedType(i), pred) {
			return false // the type set is an intersection
		}
	}
	return true
}

// termsMayBe reports whether a type of the term list t may satisfy pred.
func termsMayBe(t types.Type, pred func(types.Type) bool) bool {
	switch t := types.Unalias(t).(type) {
	case *types.Union:
		for i := range t.Len() {
			if termsMayBe(t.Term(i).Type(), pred) {
				return true
			}
		}
		return false
	case *types.TypeParam:
		return mayBe(t, pred)
	}
	if iface, ok := t.Underlying().(*types.Interface); ok {
		return interfaceMayBe(iface, pred)
	}
	return pred(t.Underlying())
}

func isUnsafePointer(t types.Type) bool {
	b, ok := t.(*types.Basic)
	return ok && b.Kind() == types.UnsafePointer
}

func isUintptr(t types.Type) bool {
	b, ok := t.(*types.Basic)
	return ok && b.Kind() == types.Uintptr
}

func isPointerType(t types.Type) bool {
	_, ok := t.(*types.Pointer)
	return ok
}

// hasPointers reports whether a value of type t holds a pointer the
// garbage collector scans.
func hasPointers(t types.Type) bool {
	switch t := t.Underlying().(type) {
	case *types.Basic:
		return t.Kind() == types.String || t.Kind() == types.UnsafePointer || t.Kind() == types.UntypedNil
	case *types.Array:
		return t.Len() > 0 && hasPointers(t.Elem())
	case *types.Struct:
		for i := range t.NumFields() {
			if hasPointers(t.Field(i).Type()) {
				return true
			}
		}
		return false
	}
	return true
}
