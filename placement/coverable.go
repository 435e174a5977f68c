package placement

import (
	"go/ast"
	"go/token"

	"golang.org/x/tools/go/ssa"
)

// Which calls in loops a caller can cover (decideCovers).
//
// The caller records the covered bytes as a pending range on a footprint
// of its own, reopened and extended by each execution of the call: the
// call must be made in a loop statement of its function (the body, the
// condition or the post statement of a for, the body of a range; a cycle
// of the CFG that no loop statement makes, through goto, has no
// footprint to extend), and the record is made as the covered argument
// is evaluated, so the arguments after it must not call (a conversion is
// no call), receive or make a closure: nothing between the record and the
// callee's accesses may synchronize. A call with ... passes its last
// argument on as the variadic slice and is not covered.

// callSyntax is what decideCovers needs of the syntax of one function.
type callSyntax struct {
	loops []span                      // the spans a loop statement repeats
	calls map[token.Pos]*ast.CallExpr // by Lparen
	// evals are the positions of the instructions that call, receive or
	// make a closure.
	evals []token.Pos
}

func newCallSyntax(fn *ssa.Function) *callSyntax {
	cs := &callSyntax{calls: map[token.Pos]*ast.CallExpr{}}
	root := fn.Syntax()
	if root == nil {
		return cs
	}
	add := func(n ast.Node) {
		if n != nil {
			cs.loops = append(cs.loops, span{n.Pos(), n.End()})
		}
	}
	ast.Inspect(root, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return n == root // another function's
		case *ast.ForStmt:
			add(n.Cond)
			add(n.Post)
			add(n.Body)
		case *ast.RangeStmt:
			add(n.Body)
		case *ast.CallExpr:
			cs.calls[n.Lparen] = n
		}
		return true
	})
	for _, b := range fn.Blocks {
		for _, in := range b.Instrs {
			switch x := in.(type) {
			case ssa.CallInstruction, *ssa.MakeClosure:
			case *ssa.UnOp:
				if x.Op != token.ARROW {
					continue
				}
			default:
				continue
			}
			if in.Pos().IsValid() {
				cs.evals = append(cs.evals, in.Pos())
			}
		}
	}
	return cs
}

// coverable says whether the call at lparen, whose argument param is
// covered, can be: it is in a loop statement, has no ..., and its
// arguments after param neither call, receive nor make a closure.
func (cs *callSyntax) coverable(lparen token.Pos, param int) bool {
	e := cs.calls[lparen]
	if e == nil || e.Ellipsis.IsValid() || param >= len(e.Args) {
		return false
	}
	in := func(p token.Pos, s span) bool { return s.pos <= p && p < s.end }
	loop := false
	for _, s := range cs.loops {
		loop = loop || in(lparen, s)
	}
	if !loop {
		return false
	}
	for _, a := range e.Args[param+1:] {
		for _, p := range cs.evals {
			if in(p, span{a.Pos(), a.End()}) {
				return false
			}
		}
		free := true
		ast.Inspect(a, func(n ast.Node) bool {
			if _, ok := n.(*ast.FuncLit); ok {
				free = false
			}
			return free
		})
		if !free {
			return false
		}
	}
	return true
}
