package instrument

import (
	"fmt"
	"go/ast"
	"go/types"
	"strings"

	"github.com/bigfoot-go/bigfoot/placement"
)

// Indexing a type parameter without a core type.
//
// A type parameter whose type set holds both strings and byte slices
// (func f[T ~string | ~[]byte](s T) byte { return s[i] }, as in
// encoding/json, unicode/utf8 and time) has no core type: s[i] has no
// address the rewriter could spell for every type of the set (a string
// element has none). The read is checked by a helper that looks at the
// value: a byte slice's element is checked, a string's (immutable) is
// not. The index is passed through, so s[i] becomes
// s[__bfIdx_…(g, s, i, S)] and keeps its type, its value and its panic.

// byteString reports whether t is a type parameter without a core type
// whose type set holds only strings and byte slices.
func byteString(t types.Type) bool {
	tp, ok := types.Unalias(t).(*types.TypeParam)
	if !ok || placement.CoreType(t) != nil {
		return false
	}
	iface, _ := tp.Constraint().Underlying().(*types.Interface)
	if iface == nil {
		return false
	}
	terms := 0
	for i := range iface.NumEmbeddeds() {
		switch e := iface.EmbeddedType(i).(type) {
		case *types.Union:
			for j := range e.Len() {
				if !byteStringType(e.Term(j).Type()) {
					return false
				}
				terms++
			}
		default:
			if ei, ok := e.Underlying().(*types.Interface); ok && ei.IsMethodSet() {
				continue
			}
			if !byteStringType(e) {
				return false
			}
			terms++
		}
	}
	return terms > 0
}

// byteStringType reports whether t's underlying type is a string or a
// slice of bytes.
func byteStringType(t types.Type) bool {
	switch u := t.Underlying().(type) {
	case *types.Basic:
		return u.Info()&types.IsString != 0
	case *types.Slice:
		b, ok := u.Elem().Underlying().(*types.Basic)
		return ok && b.Kind() == types.Byte
	}
	return false
}

// byteStringIndex renders the read s[i] of a byte-string type parameter
// s, a variable (evaluated twice), or "" if it does not apply.
func (r *fileRewriter) byteStringIndex(e *ast.IndexExpr, idx string) string {
	id, ok := ast.Unparen(e.X).(*ast.Ident)
	if !ok || r.fn == nil || !byteString(r.typeOf(e.X)) {
		return ""
	}
	if v := r.varOf(id); v == nil || r.sharedVar(v) {
		return ""
	}
	name := "__bfIdx_" + strings.TrimPrefix(r.siteVar, "__bfS_")
	if !r.byteIdxEmitted {
		r.byteIdxEmitted = true
		r.usesUnsafe = true
		r.trailer.WriteString(fmt.Sprintf(byteIndexHelperText, name))
	}
	r.noteCheck(e.Lbrack, false)
	call := name + "(" + r.g() + ", " + id.Name + ", " + idx + ", " + r.site(e.Pos()) + ")"
	return r.spliceNode(e, subOf(e.Index, call))
}

// byteIndexHelperText is the helper (%[1]s its name) that checks the
// read of s[i] when s holds a byte slice, and returns i.
const byteIndexHelperText = `func %[1]s[T ~string | ~[]byte, I ~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr](g *__bf.G, s T, i I, site uint32) I {
	if __bfu.Sizeof(s) != __bfu.Sizeof("") && i >= 0 && uint64(i) < uint64(len(s)) {
		__bf.R(g, (*byte)(__bfu.Add(*(*__bfu.Pointer)(__bfu.Pointer(&s)), int(i))), site)
	}
	return i
}
`
