package instrument

import (
	"go/ast"
	"strings"
)

// resultWrites renders a return statement with results (text, rendered)
// of a function whose named results include shared variables: the
// statement stores its results into them, a write go -race checks (a
// goroutine started by the function may read them). It becomes the
// assignment x, y = results, the checks of the shared ones, and a bare
// return, which returns what the assignment stored, as the statement did:
// the results are evaluated first, then stored, then the deferred calls
// run. A result that is its own named result (return x, 10 for the
// results x, y) is not stored, as the compiler drops x = x (Go issue
// 4014): its target is blank. A function with a blank result, or whose
// results a declaration hides at the statement, keeps its return; the
// writes are not checked (-bfv says so).
func (r *fileRewriter) resultWrites(s *ast.ReturnStmt, text string) string {
	var shared []*ast.Ident
	for _, id := range r.fn.results {
		if v := r.varOf(id); v != nil && r.sharedVar(v) {
			shared = append(shared, id)
		}
	}
	if len(shared) == 0 || !strings.HasPrefix(text, "return") {
		return text
	}
	scope := r.p.pkg.Types.Scope().Innermost(s.Pos())
	var names []string
	stored := map[*ast.Ident]bool{}
	for i, id := range r.fn.results {
		_, obj := scope.LookupParent(id.Name, s.Pos())
		if id.Name == "_" || obj != r.varOf(id) {
			r.note(s.Pos(), "write of named results not checked: a result is blank or hidden at the return")
			return text
		}
		if len(s.Results) == len(r.fn.results) && r.sameVar(s.Results[i], id) {
			// return x for the result x stores nothing: the compiler
			// drops the assignment x = x.
			names = append(names, "_")
			continue
		}
		names = append(names, id.Name)
		stored[id] = true
	}
	var b strings.Builder
	b.WriteString(strings.Join(names, ", ") + " =" + text[len("return"):] + "; ")
	for _, id := range shared {
		if stored[id] {
			b.WriteString("__bf.W(" + r.g() + ", &" + id.Name + ", " + r.checkSiteAt(s.Pos(), true) + "); ")
		}
	}
	b.WriteString("return")
	return b.String()
}

// sameVar reports whether the expression e is the variable id declares.
func (r *fileRewriter) sameVar(e ast.Expr, id *ast.Ident) bool {
	x, ok := ast.Unparen(e).(*ast.Ident)
	return ok && r.varOf(x) != nil && r.varOf(x) == r.varOf(id)
}
