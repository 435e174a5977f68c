package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"

	"github.com/bigfoot-go/bigfoot/placement"
)

// compareSiteDecisions checks, site by site, that the drops, field
// groups, unpublished sites and covered calls analyze prints (sites) are
// what the overlay of the same build (files: instrumented source by path)
// contains: a site whose drop, membership of a group or unpublished
// object the instrumenter rendered has no check of its own there (no R,
// W, F, RG, WG or FG wrapper of its expression and kind), a group it
// rendered is checked at its anchor by RG, WG or FG, and its covered
// calls are the overlay's calls of copies (compareCoveredCalls); a site
// the plan states not shared, where the instrumenter left a check out,
// has none. Every check the overlay makes at an access is one the plan
// states: none is an "unplanned check" of the instrumenter's own, and
// each check the plan prints as rendered is an R or W wrapper of the
// site's expression and kind, a runtime helper's check (helperChecks)
// of the expression there, or a check of a return statement's store. Every decision is rendered
// or refused with a reason, none left unreached. A wrapper is matched to
// its site through the file's site table (the line and column of the
// expression it checks) and the shape of the expression it wraps (the
// selected field, an index, a dereference, a variable).
func compareSiteDecisions(t *testing.T, sites []placement.SiteDecision, files map[string][]byte) {
	t.Helper()
	origs := map[string]map[[2]int]exprShape{} // file -> line, column of the SSA position -> the expression
	checks := map[string]map[exprShape]int{}   // file -> wrappers of the overlay, by expression and kind
	groups := map[string]map[exprShape]int{}   // file -> group wrappers
	count := map[string]int{}
	coveredAt := map[string]int{}           // file:line -> covered calls rendered there
	helpers := map[string]map[[2]int]bool{} // file -> the starts of the overlay's helper checks
	for _, d := range sites {
		file := d.Pos.Filename
		if origs[file] == nil {
			origs[file] = sitePositions(t, file)
			src, ok := files[file]
			if !ok {
				t.Errorf("%v: a decision on a file the overlay does not replace", d)
				continue
			}
			checks[file], groups[file] = overlayWrappers(t, file, src)
			helpers[file] = helperChecks(t, file, src)
		}
		switch {
		case d.Decision == "unplanned check":
			t.Errorf("%v: the overlay checks an access the plan does not have", d)
			continue
		case d.Decision == placement.EntryCheck.String():
			count[fmt.Sprintf("check, rendered %v", d.Rendered)]++
			if !d.Rendered {
				continue // checked by a runtime helper (a map, copy, append), or not at all
			}
			e, ok := origs[file][[2]int{d.Pos.Line, d.Pos.Column}]
			if !ok {
				t.Errorf("%v: no expression has its SSA position there", d)
				continue
			}
			e.write = d.Write
			if checks[file][e] == 0 && !helpers[file][[2]int{e.line, e.col}] && !(e.shape == "return" && atReturn(checks[file], e)) {
				t.Errorf("%v: rendered, but the overlay has no check of %v", d, e)
			}
			continue
		case d.Rendered && d.Decision == placement.EntryCall.String():
			count[d.Decision]++
			coveredAt[fmt.Sprintf("%s:%d", file, d.Pos.Line)]++
			continue
		case d.Rendered:
			count[d.Decision]++
		case d.Refused != "":
			count["refused: "+d.Refused]++
			continue
		default:
			t.Errorf("%v: placement decides, the instrumenter neither rendered nor refused it", d)
			continue
		}
		e, ok := origs[file][[2]int{d.Pos.Line, d.Pos.Column}]
		if !ok {
			t.Errorf("%v: no expression has its SSA position there", d)
			continue
		}
		e.write = d.Write
		switch d.Decision {
		case "group":
			if groups[file][e] == 0 {
				t.Errorf("%v: rendered, but the overlay has no group check of %v", d, e)
			}
		default:
			if n := checks[file][e] + groups[file][e]; n > 0 {
				t.Errorf("%v: rendered, but the overlay checks %v %d times", d, e, n)
			}
		}
	}
	t.Logf("site decisions rendered: %v", count)
	compareCoveredCalls(t, coveredAt, files)
}

// compareCoveredCalls checks that the overlay (files) calls a function's
// F__bfnc copy, on each line of the original source, as many times as
// the plan has covered calls rendered there (coveredAt, by file:line).
// The copies of functions the overlay appends after the file's lines are
// left out.
func compareCoveredCalls(t *testing.T, coveredAt map[string]int, files map[string][]byte) {
	t.Helper()
	over := map[string]int{}
	for file, src := range files {
		if !strings.HasSuffix(file, ".go") || !bytes.Contains(src, []byte(placement.CoverSuffix+"(")) {
			continue
		}
		orig, err := os.ReadFile(file)
		if err != nil {
			continue // a file the overlay adds
		}
		lines := bytes.Count(orig, []byte("\n")) + 1
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, file, src, 0)
		if err != nil {
			t.Fatalf("the overlay of %s: %v", file, err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			c, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if id, ok := c.Fun.(*ast.Ident); ok && strings.HasSuffix(id.Name, placement.CoverSuffix) {
				if line := fset.Position(c.Pos()).Line; line <= lines {
					over[fmt.Sprintf("%s:%d", file, line)]++
				}
			}
			return true
		})
	}
	for k := range mergeLineKeys(coveredAt, over) {
		if coveredAt[k] != over[k] {
			t.Errorf("%s: %d covered calls rendered in the plan, %d calls of a copy in the overlay", k, coveredAt[k], over[k])
		}
	}
}

func mergeLineKeys(a, b map[string]int) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

// An exprShape is an access's expression as the overlay's wrappers name
// it: where it starts, its shape, and the access's kind.
type exprShape struct {
	line, col int
	shape     string // ".f" for a selector of f, "[]", "*", or a variable's name
	write     bool
}

// shapeOf is the shape of the expression e, or "".
func shapeOf(e ast.Expr) string {
	switch e := ast.Unparen(e).(type) {
	case *ast.SelectorExpr:
		return "." + e.Sel.Name
	case *ast.IndexExpr:
		return "[]"
	case *ast.StarExpr:
		return "*"
	case *ast.Ident:
		return e.Name
	case *ast.CallExpr:
		return "()"
	}
	return ""
}

// atReturn reports whether the overlay's checks (by expression and kind)
// hold a check of kind write whose site entry is at the return statement
// e: the check of a store to a named result.
func atReturn(checks map[exprShape]int, e exprShape) bool {
	for c := range checks {
		if c.line == e.line && c.col == e.col && c.write == e.write {
			return true
		}
	}
	return false
}

// sitePositions maps the line and column of each position go/ssa gives
// an access in file (the Sel of x.f, the bracket of a[i], the star of *p,
// a variable, a call's parenthesis, a return statement, a go or defer
// statement) or placement gives it (a range statement's for keyword: its
// map) to its expression.
func sitePositions(t *testing.T, file string) map[[2]int]exprShape {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[[2]int]exprShape{}
	// keyword maps a go or defer statement's keyword, where go/ssa puts
	// its call, to the call: its receiver copy is checked there.
	keyword := func(kw token.Pos, call *ast.CallExpr) {
		p, c := fset.Position(kw), fset.Position(call.Pos())
		out[[2]int{p.Line, p.Column}] = exprShape{line: c.Line, col: c.Column, shape: "()"}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		var at token.Pos
		switch n := n.(type) {
		case *ast.SelectorExpr:
			at = n.Sel.Pos()
		case *ast.IndexExpr:
			at = n.Lbrack
		case *ast.StarExpr:
			at = n.Star
		case *ast.Ident:
			at = n.Pos()
		case *ast.CallExpr:
			at = n.Lparen // a builtin's, a conversion's, a receiver copy's
		case *ast.ReturnStmt:
			at = n.Return // its stores to named results
			p := fset.Position(at)
			out[[2]int{p.Line, p.Column}] = exprShape{line: p.Line, col: p.Column, shape: "return"}
			return true
		case *ast.GoStmt:
			keyword(n.Go, n.Call)
			return true
		case *ast.DeferStmt:
			keyword(n.Defer, n.Call)
			return true
		case *ast.RangeStmt:
			// Its steps over a map, checked at the map's expression.
			p, x := fset.Position(n.For), fset.Position(n.X.Pos())
			out[[2]int{p.Line, p.Column}] = exprShape{line: x.Line, col: x.Column, shape: "range"}
			return true
		default:
			return true
		}
		p, start := fset.Position(at), fset.Position(n.Pos())
		if _, ok := out[[2]int{p.Line, p.Column}]; !ok { // a selector before its Sel
			out[[2]int{p.Line, p.Column}] = exprShape{line: start.Line, col: start.Column, shape: shapeOf(n.(ast.Expr))}
		}
		return true
	})
	return out
}

// overlayWrappers counts the check wrappers of the instrumented file
// (its original at file) by the expression they check and its kind: the
// per-access and footprint wrappers, and the group wrappers.
func overlayWrappers(t *testing.T, file string, src []byte) (checks, groups map[exprShape]int) {
	t.Helper()
	checks, groups = map[exprShape]int{}, map[exprShape]int{}
	for _, w := range wrapperCalls(t, file, src) {
		if strings.HasSuffix(w.name, "G") {
			groups[w.at]++
		} else {
			checks[w.at]++
		}
	}
	return checks, groups
}

// helperChecks returns where the checks of the instrumented file (its
// original at file) that are not R or W wrappers of an address start:
// the site entries (line and column of the expression) of the runtime's
// map, copy, append, conversion and whole-slice helpers (__bf.MapRead(g,
// m, S), __bf.Copy(g, S, dst, src), ...), of the file's byte-string
// index helper (__bfIdx_…(g, s, i, S)), of the copies of loop variables
// (__bf.LoopNext, v.Copied) and of receiver copies ((*__bf.R(g, p, S))
// of a pointer p).
func helperChecks(t *testing.T, file string, src []byte) map[[2]int]bool {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, 0)
	if err != nil {
		t.Fatalf("the overlay of %s: %v", file, err)
	}
	entries, _ := siteTable(f)
	out := map[[2]int]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		switch name := runtimeCall(c); name {
		case "MapRead", "MapWrite", "Copy", "CopyString", "Append", "AppendPre", "AppendString", "ReadAll", "ReadAll1", "WriteAll", "WriteAll1", "LoopNext":
		case "R", "R1":
			if len(c.Args) >= 2 {
				if u, ok := c.Args[len(c.Args)-2].(*ast.UnaryExpr); !ok || u.Op != token.AND {
					break // a receiver copy
				}
			}
			return true
		default:
			id, isID := c.Fun.(*ast.Ident)
			sel, isSel := c.Fun.(*ast.SelectorExpr)
			switch {
			case isID && strings.HasPrefix(id.Name, "__bfIdx_"): // the file's helper indexing a byte string of a type parameter
			case isSel && sel.Sel.Name == "Copied": // a loop variable's copy (__bf.LoopVar)
			default:
				return true
			}
		}
		for _, a := range c.Args {
			site, ok := a.(*ast.BinaryExpr)
			if !ok {
				continue
			}
			x, ok1 := site.X.(*ast.Ident)
			lit, ok2 := site.Y.(*ast.BasicLit)
			if !ok1 || !ok2 || !strings.HasPrefix(x.Name, "__bfS_") {
				continue
			}
			if at, ok := entryPos(entries, lit); ok {
				out[at] = true
			}
		}
		return true
	})
	return out
}

// runtimeCall is the name of the runtime function c calls (__bf.Name or
// __bfg.Name), or "".
func runtimeCall(c *ast.CallExpr) string {
	sel, ok := c.Fun.(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	if x, ok := sel.X.(*ast.Ident); ok && (x.Name == "__bf" || x.Name == "__bfg") {
		return sel.Sel.Name
	}
	return ""
}
