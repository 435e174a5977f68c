package instrument

import (
	"go/ast"
	"go/token"
	"go/types"
	"strconv"

	"github.com/bigfoot-go/bigfoot/placement"
)

// appendInPlace renders s = append(s, x, …) of a local slice variable s
// that is not shared memory, each x a name or a literal, as
//
//	__bf.AppendPre(g, S, s, n); s = append(s, x, …); __bf.AppendPost(g, S, s, n)
//
// with n the number of elements: the checks Appender.Add makes (the old
// elements read if they move, the new ones written) around the builtin
// append, left in the function. The compiler keeps the backing array of
// such an append on the stack while it is small, even for a slice that
// escapes later, which an append inside Appender.Add cannot have (a loop
// appending 100 int32s: 4 allocations plain, 7 through Add;
// docs/instrument.md, "What emitted code may do to escape analysis").
// The elements cannot panic or synchronize, so checking the old elements
// before they are evaluated checks what the append reads.
func (r *fileRewriter) appendInPlace(s *ast.AssignStmt, list bool) (stmtOut, bool) {
	if !list || r.fn == nil || r.p.std || s.Tok != token.ASSIGN || len(s.Lhs) != 1 || len(s.Rhs) != 1 {
		return stmtOut{}, false
	}
	id, ok := s.Lhs[0].(*ast.Ident)
	if !ok {
		return stmtOut{}, false
	}
	call, ok := s.Rhs[0].(*ast.CallExpr)
	if !ok || call.Ellipsis.IsValid() || len(call.Args) < 2 {
		return stmtOut{}, false
	}
	fun, ok := ast.Unparen(call.Fun).(*ast.Ident)
	if !ok {
		return stmtOut{}, false
	}
	if b, ok := r.info.Uses[fun].(*types.Builtin); !ok || b.Name() != "append" {
		return stmtOut{}, false
	}
	v := r.varOf(id)
	if first, ok := call.Args[0].(*ast.Ident); !ok || v == nil || r.info.Uses[first] != v || r.sharedVar(v) {
		return stmtOut{}, false
	}
	if _, ok := placement.CoreType(v.Type()).(*types.Slice); !ok {
		return stmtOut{}, false
	}
	if r.rc != nil && r.rc.pkg.unpubAppend[call.Lparen] {
		return stmtOut{}, false // unpublished: unchecked (unpublishedAppend)
	}
	var subs []sub
	for _, x := range call.Args[1:] {
		switch ast.Unparen(x).(type) {
		case *ast.Ident, *ast.BasicLit:
		default:
			return stmtOut{}, false
		}
		subs = append(subs, subOf(x, r.expr(x, mValue)))
	}
	n := strconv.Itoa(len(call.Args) - 1)
	args := r.g() + ", " + r.site(call.Pos()) + ", " + id.Name + ", " + n
	post := "; __bf.AppendPost(" + args + ")"
	if v := r.appendFootprint(call); v != "" {
		// In a loop, the plan's footprint records the new elements
		// (detector.AppendPostF); the old ones a growth moves are
		// read at once, as before.
		post = "; __bf.AppendPostF(" + v + ", " + r.site(call.Pos()) + ", " + id.Name + ", " + n + ")"
	} else {
		r.noteCheck(call.Lparen, true)
	}
	return stmtOut{
		pre:  "__bf.AppendPre(" + args + "); ",
		text: r.spliceNode(s, subs...),
		post: post,
	}, true
}
