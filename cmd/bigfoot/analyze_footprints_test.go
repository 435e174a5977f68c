package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"testing"

	"github.com/bigfoot-go/bigfoot/placement"
)

// compareFootprints checks, site by site, that the footprints analyze
// prints (fps) are the overlay's (files: instrumented source by path):
// every site of a footprint is rendered or refused with a reason; where
// an expression starts, the overlay's F and FG (a group's) records of a
// kind use as many footprint variables as the plan has footprints with
// a rendered site of that kind starting there (lu[i] and lu[i][j] start
// together), and none where it has none; a footprint whose rendered
// sites start apart from others' records into one variable, which no
// other footprint uses. A range statement's element read is at its
// value variable (the F wraps the element the rewritten statement
// reads).
func compareFootprints(t *testing.T, fps []placement.FootprintDecision, files map[string][]byte) {
	t.Helper()
	type at struct {
		file      string
		line, col int
		write     bool
	}
	origs := map[string]map[[2]int]exprShape{}
	records := map[at]map[string]bool{} // the overlay's F records -> their variables
	plan := map[at]map[int]bool{}       // the plan's rendered sites -> their footprints
	count := map[string]int{}
	for _, d := range fps {
		for _, s := range d.Sites {
			file := s.Pos.Filename
			if origs[file] == nil {
				src, ok := files[file]
				if !ok {
					t.Errorf("%v: a footprint in a file the overlay does not replace", d)
					continue
				}
				origs[file] = sitePositions(t, file)
				for e, vars := range overlayRecords(t, file, src) {
					k := at{file, e.line, e.col, e.write}
					if records[k] == nil {
						records[k] = map[string]bool{}
					}
					for _, v := range vars {
						records[k][v] = true
					}
				}
			}
			switch {
			case s.Rendered:
				count["rendered"]++
			case s.Refused != "":
				count["refused: "+s.Refused]++
				continue
			default:
				t.Errorf("%s: a site of footprint %d (%s %s), neither rendered nor refused", s.Pos, d.ID, d.Func, d.Key)
				continue
			}
			e, ok := origs[file][[2]int{s.Pos.Line, s.Pos.Column}]
			if !ok {
				t.Errorf("%s: no expression has its SSA position there", s.Pos)
				continue
			}
			k := at{file, e.line, e.col, d.Write}
			if plan[k] == nil {
				plan[k] = map[int]bool{}
			}
			plan[k][d.ID] = true
		}
	}
	varOf := map[string]int{} // file:variable -> the footprint of a site alone where it starts
	for k, ids := range plan {
		vars := records[k]
		if len(vars) != len(ids) {
			t.Errorf("%s:%d:%d: the plan has %d footprints with a rendered site of kind write=%v starting there, the overlay records into %d", k.file, k.line, k.col, len(ids), k.write, len(vars))
			continue
		}
		if len(ids) != 1 {
			continue
		}
		for id := range ids {
			for v := range vars {
				if old, ok := varOf[k.file+":"+v]; ok && old != id {
					t.Errorf("%s:%d:%d: footprints %d and %d both record into %s", k.file, k.line, k.col, old, id, v)
				}
				varOf[k.file+":"+v] = id
			}
		}
	}
	for k := range records {
		if plan[k] == nil {
			t.Errorf("%s:%d:%d: the overlay records into a footprint (write=%v), no rendered site of the plan starts there", k.file, k.line, k.col, k.write)
		}
	}
	t.Logf("footprint sites: %v", count)
}

// overlayRecords returns the F, FM and FG records of the instrumented file (its
// original at file), by the expression they record and its kind, with
// the footprint variable of each, and the appends whose writes a
// footprint records (AppendF, AppendPostF), by the call's start.
func overlayRecords(t *testing.T, file string, src []byte) map[exprShape][]string {
	t.Helper()
	out := map[exprShape][]string{}
	for _, w := range wrapperCalls(t, file, src) {
		if (w.name == "F" || w.name == "FM") && len(w.call.Args) == 3 || w.name == "FG" && len(w.call.Args) == 6 {
			out[w.at] = append(out[w.at], identName(w.call.Args[0]))
		}
	}
	f, err := parser.ParseFile(token.NewFileSet(), file, src, 0)
	if err != nil {
		t.Fatalf("the overlay of %s: %v", file, err)
	}
	entries, _ := siteTable(f)
	ast.Inspect(f, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		if name := runtimeCall(c); name != "AppendF" && name != "AppendPostF" || len(c.Args) < 3 {
			return true
		}
		site, ok := c.Args[1].(*ast.BinaryExpr)
		if !ok {
			t.Errorf("%s: an append's site of an unexpected form", file)
			return true
		}
		lit, ok := site.Y.(*ast.BasicLit)
		at, ok2 := entryPos(entries, lit)
		if !ok || !ok2 {
			t.Errorf("%s: an append's site is not in the site table", file)
			return true
		}
		k := exprShape{line: at[0], col: at[1], write: true}
		out[k] = append(out[k], identName(c.Args[0]))
		return true
	})
	return out
}

// wrapperCall is a call of a check wrapper in an instrumented file: the
// runtime function it calls, the call, and the original expression it
// checks (its site's position, its shape and the access's kind).
type wrapperCall struct {
	name string
	call *ast.CallExpr
	at   exprShape
}

// wrapperCalls parses the instrumented file (its original at file) and
// returns its calls of the per-access, group and footprint wrappers
// (R, RG, W, WG, F, FM, FG; R1, RG1, W1, WG1 as R, RG, W, WG) whose
// address is &x and whose site is in the
// file's site table. A footprint wrapper of another form, or any wrapper
// whose site is not in the table, is an error.
func wrapperCalls(t *testing.T, file string, src []byte) []wrapperCall {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, 0)
	if err != nil {
		t.Fatalf("the overlay of %s: %v", file, err)
	}
	entries, write := siteTable(f)
	var out []wrapperCall
	ast.Inspect(f, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		name := runtimeCall(c)
		var w bool
		addrArg := 1 // after the goroutine state or the footprint
		switch name {
		case "R1", "RG1", "W1", "WG1":
			// The forms that find the goroutine state themselves.
			name, addrArg = strings.TrimSuffix(name, "1"), 0
		}
		switch name {
		case "R", "RG":
		case "W", "WG":
			w = true
		case "F", "FM", "FG":
			w = len(c.Args) > 0 && write[identName(c.Args[0])]
		default:
			return true
		}
		if len(c.Args) < addrArg+2 {
			return true
		}
		addr, ok := c.Args[addrArg].(*ast.UnaryExpr)
		site, ok2 := c.Args[len(c.Args)-1].(*ast.BinaryExpr)
		var lit *ast.BasicLit
		if ok2 {
			lit, ok2 = site.Y.(*ast.BasicLit)
		}
		if !ok || !ok2 || addr.Op != token.AND {
			if name == "F" || name == "FM" || name == "FG" {
				t.Errorf("%s: an %s of an unexpected form", fset.Position(c.Pos()), name)
			}
			return true
		}
		at, ok := entryPos(entries, lit)
		if !ok {
			t.Errorf("%s: a wrapper's site %s is not in the site table", fset.Position(c.Pos()), lit.Value)
			return true
		}
		out = append(out, wrapperCall{name, c, exprShape{at[0], at[1], shapeOf(addr.X), w}})
		return true
	})
	return out
}

// entryPos returns the line and column of the site table entry a site
// argument's index (the N of __bfS_x+N) names.
func entryPos(entries []string, index *ast.BasicLit) (at [2]int, ok bool) {
	i, err := strconv.Atoi(index.Value)
	if err != nil || i >= len(entries) {
		return at, false
	}
	parts := strings.SplitN(entries[i], ":", 3)
	at[0], _ = strconv.Atoi(parts[0])
	at[1], _ = strconv.Atoi(parts[1])
	return at, true
}

// siteTable returns the entries of the instrumented file's site table
// and the kind of each footprint variable it declares.
func siteTable(f *ast.File) (entries []string, write map[string]bool) {
	write = map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			if runtimeCall(n) == "RegisterSites" && len(n.Args) == 3 {
				if lit, ok := n.Args[2].(*ast.BasicLit); ok {
					s, _ := strconv.Unquote(lit.Value)
					entries = strings.Split(s, "\n")
				}
			}
		case *ast.AssignStmt:
			for i, r := range n.Rhs {
				if c, ok := r.(*ast.CallExpr); ok && i < len(n.Lhs) && len(c.Args) >= 2 {
					if sel, ok := c.Fun.(*ast.SelectorExpr); ok && (sel.Sel.Name == "Footprint" || sel.Sel.Name == "FootprintFrame") {
						w, _ := strconv.ParseBool(identName(c.Args[1]))
						write[identName(n.Lhs[i])] = w
					}
				}
			}
		}
		return true
	})
	return entries, write
}
