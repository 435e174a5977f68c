package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bigfoot-go/bigfoot"
	"github.com/bigfoot-go/bigfoot/driver"
	"github.com/bigfoot-go/bigfoot/mode"
	"github.com/bigfoot-go/bigfoot/placement"
)

// TestAnalyzePlanMatchesOverlay checks that the site plan bigfoot analyze
// -json prints is what the build's overlay contains. The static loop
// ranges it prints as rendered are, statement by statement, those the
// build's overlay opens and extends: for each kind, the loop-body
// statements holding the accesses of a rendered range are exactly those
// after which (or in which, for a read that stores its extent itself) the
// overlay extends a range of that kind, and the loops of rendered ranges
// exactly those whose header opens one. Every range placement admits is
// rendered or refused with a reason, none left unreached; so is every
// merge of ranges, and a rendered one is one range (compareMerges). The drops,
// field groups and unpublished sites are compared site by site
// (compareSiteDecisions). It runs on
// testdata/programs, the benchmark workloads and three modules of the
// corpus from the module proxy (go-humanize, uuid, semver, with their
// tests).
func TestAnalyzePlanMatchesOverlay(t *testing.T) {
	if testing.Short() {
		t.Skip("instruments whole modules; skipped with -short")
	}
	cases := []struct {
		name, dir, pattern string
		tests              bool // with the test files, as bigfoot test
		module             bool // dir is a module@version of the corpus
	}{
		{"programs", "../../testdata/programs", "./...", false, false},
		{"workloads", "../..", "./bench/workloads/...", false, false},
		{"go-humanize", "github.com/dustin/go-humanize@v1.1.0", "./...", true, true},
		{"uuid", "github.com/google/uuid@v1.6.0", "./...", true, true},
		{"semver", "github.com/Masterminds/semver/v3@v3.5.0", "./...", true, true},
	}
	wd, _ := os.Getwd()
	defer os.Chdir(wd)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := c.dir
			if !filepath.IsAbs(dir) {
				dir = filepath.Join(wd, dir)
			}
			if c.module {
				dir = copyModule(t, downloadModule(t, c.dir)) // the build writes beside the module's files
			}
			if err := os.Chdir(dir); err != nil {
				t.Fatal(err)
			}
			var out, errb bytes.Buffer
			args, verb := []string{"-json", "-deps=main"}, "build"
			if c.tests {
				args, verb = append(args, "-test"), "test"
			}
			if code := analyzeMain(context.Background(), append(args, c.pattern), &out, &errb); code != 0 {
				t.Fatalf("analyze exited %d: %s", code, errb.String())
			}
			var rep jsonReport
			if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
				t.Fatalf("bad JSON: %v", err)
			}
			inv, err := driver.ParseArgs(verb, []string{"-mode=" + mode.BigFoot.String(), "-deps=main", c.pattern})
			if err != nil {
				t.Fatal(err)
			}
			a, err := driver.Analyze(context.Background(), &driver.Config{Runtime: bigfoot.Runtime(), Instrument: instrumentFiles}, inv)
			if err != nil {
				t.Fatal(err)
			}
			planStmts, planLoops := map[string]bool{}, map[string]bool{}
			units := map[string]*loopUnits{}
			unitsOf := func(file string) *loopUnits {
				if units[file] == nil {
					units[file] = parseLoopUnits(t, file)
				}
				return units[file]
			}
			rendered := 0
			for _, d := range rep.Ranges {
				switch {
				case d.Rendered:
					rendered++
					for _, s := range d.Sites {
						planStmts[unitsOf(s.Filename).key(s.Line, d.Write)] = true
					}
					planLoops[rangeKey(d.Loop.Filename, d.Loop.Line, d.Write)] = true
				case d.Admitted() && d.Refused == "":
					t.Errorf("%v: placement admits the range, the instrumenter neither rendered nor refused it", d)
				}
			}
			overStmts, overLoops := map[string]bool{}, map[string]bool{}
			for file, src := range a.Files {
				if !strings.HasPrefix(file, dir+string(filepath.Separator)) || !strings.HasSuffix(file, ".go") {
					continue
				}
				overlayRanges(t, file, src, unitsOf, overStmts, overLoops)
			}
			t.Logf("%d static-range decisions, %d rendered; %d statements and %d loops with ranges in the overlay", len(rep.Ranges), rendered, len(overStmts), len(overLoops))
			compareRangeSets(t, "statements extending a range", planStmts, overStmts)
			compareRangeSets(t, "loops opening a range", planLoops, overLoops)
			compareSiteDecisions(t, rep.Sites, a.Files)
			compareMerges(t, rep.Merges, a.Files, unitsOf)
			compareFootprints(t, rep.Footprints, a.Files)
		})
	}
}

// copyModule copies the module at dir (read-only, in the module cache)
// into a temporary directory.
// downloadModule returns the directory of module@version in the module
// cache, downloading it from the module proxy if it is not there yet.
func downloadModule(t *testing.T, modVersion string) string {
	t.Helper()
	cmd := exec.Command("go", "mod", "download", "-json", modVersion)
	cmd.Dir = t.TempDir() // outside any module: the test may be in one
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var m struct{ Dir, Error string }
	if jerr := json.Unmarshal(out, &m); err != nil || jerr != nil || m.Dir == "" {
		t.Fatalf("go mod download %s: %v %s %s%s", modVersion, err, m.Error, out, stderr.Bytes())
	}
	return m.Dir
}

func copyModule(t *testing.T, dir string) string {
	t.Helper()
	dst := t.TempDir()
	if out, err := exec.Command("cp", "-R", dir+"/.", dst).CombinedOutput(); err != nil {
		t.Fatalf("copying %s: %v\n%s", dir, err, out)
	}
	if out, err := exec.Command("chmod", "-R", "u+w", dst).CombinedOutput(); err != nil {
		t.Fatalf("chmod: %v\n%s", err, out)
	}
	return dst
}

func rangeKey(file string, line int, write bool) string {
	kind := "R"
	if write {
		kind = "W"
	}
	return fmt.Sprintf("%s:%d %s", file, line, kind)
}

func compareRangeSets(t *testing.T, what string, plan, overlay map[string]bool) {
	t.Helper()
	var onlyPlan, onlyOverlay []string
	for k := range plan {
		if !overlay[k] {
			onlyPlan = append(onlyPlan, k)
		}
	}
	for k := range overlay {
		if !plan[k] {
			onlyOverlay = append(onlyOverlay, k)
		}
	}
	slices.Sort(onlyPlan)
	slices.Sort(onlyOverlay)
	if len(onlyPlan) > 0 {
		t.Errorf("%s in analyze's plan only: %v", what, onlyPlan)
	}
	if len(onlyOverlay) > 0 {
		t.Errorf("%s in the overlay only: %v", what, onlyOverlay)
	}
}

// loopUnits are the statements of the loop bodies of one source file after
// which a static range's extent is stored: the top-level statements of
// each for and range body, an if condition standing for its if.
type loopUnits struct {
	file  string
	spans [][2]int // first and last line
	loops []int    // the lines of the for and range statements, in order
	lines int      // the file's lines: the overlay may append more
}

func parseLoopUnits(t *testing.T, file string) *loopUnits {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	u := &loopUnits{file: file, lines: fset.File(f.Pos()).LineCount()}
	add := func(n ast.Node) {
		u.spans = append(u.spans, [2]int{fset.Position(n.Pos()).Line, fset.Position(n.End()).Line})
	}
	ast.Inspect(f, func(n ast.Node) bool {
		var body *ast.BlockStmt
		switch n := n.(type) {
		case *ast.ForStmt:
			body = n.Body
		case *ast.RangeStmt:
			body = n.Body
		}
		if body != nil {
			u.loops = append(u.loops, fset.Position(n.Pos()).Line)
			for _, st := range body.List {
				if ifs, ok := st.(*ast.IfStmt); ok && ifs.Init == nil {
					add(ifs.Cond)
					continue
				}
				add(st)
			}
		}
		return true
	})
	return u
}

// key names the innermost unit holding line, by its first line, and kind.
func (u *loopUnits) key(line int, write bool) string {
	best := [2]int{0, 1 << 30}
	for _, s := range u.spans {
		if s[0] <= line && line <= s[1] && s[1]-s[0] < best[1]-best[0] {
			best = s
		}
	}
	return rangeKey(u.file, best[0], write)
}

// loop names the loop whose range an OpenRange at line opens, and kind:
// the first loop statement at line or after it (a range statement's
// ranges open before its label).
func (u *loopUnits) loop(line int, write bool) string {
	i, _ := slices.BinarySearch(u.loops, line)
	if i == len(u.loops) {
		return rangeKey(u.file, 0, write)
	}
	return rangeKey(u.file, u.loops[i], write)
}

// overlayRanges adds the statements and loops of the instrumented file
// (its original at file) where the overlay extends and opens static
// ranges: a footprint declared __bfg.Footprint(site, write) (or
// FootprintFrame(site, write, &__bfg)) is a range if
// __bf.OpenRange or OpenRangeAt opens it; a range is extended by a store
// of its Next or by __bf.Load or LoadGrow. The rewriting keeps every line
// where it was.
func overlayRanges(t *testing.T, file string, src []byte, unitsOf func(string) *loopUnits, stmts, loops map[string]bool) {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, 0)
	if err != nil {
		t.Fatalf("the overlay of %s: %v", file, err)
	}
	call := func(n ast.Node, names ...string) (*ast.CallExpr, string) {
		c, ok := n.(*ast.CallExpr)
		if !ok || len(c.Args) == 0 {
			return nil, ""
		}
		sel, ok := c.Fun.(*ast.SelectorExpr)
		if !ok {
			return nil, ""
		}
		x, ok := sel.X.(*ast.Ident)
		if !ok || !slices.Contains(names, x.Name+"."+sel.Sel.Name) {
			return nil, ""
		}
		id, _ := c.Args[0].(*ast.Ident)
		if id == nil {
			return c, ""
		}
		return c, id.Name
	}
	write := map[string]bool{} // footprint -> kind
	ranges := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if as, ok := n.(*ast.AssignStmt); ok && len(as.Lhs) == len(as.Rhs) {
			for i, r := range as.Rhs {
				if c, _ := call(r, "__bfg.Footprint", "__bfg.FootprintFrame"); c != nil && len(c.Args) >= 2 {
					if id, ok := as.Lhs[i].(*ast.Ident); ok {
						w, _ := strconv.ParseBool(identName(c.Args[1]))
						write[id.Name] = w
					}
				}
			}
		}
		if _, fp := call(n, "__bf.OpenRange", "__bf.OpenRangeAt"); fp != "" {
			ranges[fp] = true
		}
		return true
	})
	units := unitsOf(file)
	ast.Inspect(f, func(n ast.Node) bool {
		if n != nil && fset.Position(n.Pos()).Line > units.lines {
			return false // appended: the function copies and helpers
		}
		if c, fp := call(n, "__bf.OpenRange", "__bf.OpenRangeAt"); fp != "" {
			loops[units.loop(fset.Position(c.Pos()).Line, write[fp])] = true
		}
		if c, fp := call(n, "__bf.Load", "__bf.LoadGrow"); ranges[fp] {
			stmts[units.key(fset.Position(c.Pos()).Line, write[fp])] = true
		}
		if as, ok := n.(*ast.AssignStmt); ok && len(as.Lhs) == 1 {
			if sel, ok := as.Lhs[0].(*ast.SelectorExpr); ok && sel.Sel.Name == "Next" {
				if id, ok := sel.X.(*ast.Ident); ok && ranges[id.Name] {
					stmts[units.key(fset.Position(as.Pos()).Line, write[id.Name])] = true
				}
			}
		}
		return true
	})
}

// identName returns the text of an identifier, or "".
func identName(e ast.Expr) string {
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// compareMerges checks that the merged static ranges analyze prints as
// rendered are single ranges in the overlay: the overlay opens, in the
// merge's loop, a range of its kind on its members' operand that is
// extended in every statement holding a member, and no other range of
// that loop, kind, operand and field. (Unmerged, the members would open
// one range each, on the same operand and field.) Every merge is
// rendered or refused with a reason.
func compareMerges(t *testing.T, merges []placement.MergeDecision, files map[string][]byte, unitsOf func(string) *loopUnits) {
	t.Helper()
	opens := map[string][]overlayRange{}
	count := map[string]int{}
	for _, d := range merges {
		file := d.First.Filename
		switch {
		case d.Rendered:
			count["rendered"]++
		case d.Refused != "":
			count["refused: "+d.Refused]++
			continue
		default:
			t.Errorf("%v: placement merges, the instrumenter neither rendered nor refused it", d)
			continue
		}
		if opens[file] == nil {
			opens[file] = overlayOpens(t, file, files[file], unitsOf)
		}
		units := unitsOf(file)
		loop := units.loop(d.Loop.Line, d.Write)
		operand := operandAt(t, file, d.First)
		var found *overlayRange
		for i, o := range opens[file] {
			if o.loop != loop || o.operand != operand || !slices.ContainsFunc(d.Members, func(m token.Position) bool { return o.units[units.key(m.Line, d.Write)] }) {
				continue
			}
			if !slices.ContainsFunc(d.Members, func(m token.Position) bool { return !o.units[units.key(m.Line, d.Write)] }) {
				found = &opens[file][i]
			}
		}
		if found == nil {
			t.Errorf("%v: rendered, but the overlay opens no range in its loop on %s extended in every statement of its members", d, operand)
			continue
		}
		n := 0
		for _, o := range opens[file] {
			if o.loop == found.loop && o.operand == found.operand && o.field == found.field {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%v: rendered, but the overlay opens %d ranges of its loop, kind, operand and field", d, n)
		}
	}
	t.Logf("merged ranges: %v", count)
}

// An overlayRange is a static range the overlay opens: the loop and kind
// (rangeKey), the operand's variable, the field's offset expression, and
// the statements that extend it (loopUnits.key).
type overlayRange struct {
	loop, operand, field string
	units                map[string]bool
}

// overlayOpens returns the static ranges the overlay of file opens.
func overlayOpens(t *testing.T, file string, src []byte, unitsOf func(string) *loopUnits) []overlayRange {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, 0)
	if err != nil {
		t.Fatalf("the overlay of %s: %v", file, err)
	}
	units := unitsOf(file)
	write := map[string]bool{}
	byFP := map[string]*overlayRange{}
	var order []string
	fpOf := func(c *ast.CallExpr) string {
		if len(c.Args) == 0 {
			return ""
		}
		return identName(c.Args[0])
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if as, ok := n.(*ast.AssignStmt); ok && len(as.Lhs) == len(as.Rhs) {
			for i, r := range as.Rhs {
				if c, ok := r.(*ast.CallExpr); ok && calls(c, "__bfg.Footprint", "__bfg.FootprintFrame") && len(c.Args) >= 2 {
					w, _ := strconv.ParseBool(identName(c.Args[1]))
					write[identName(as.Lhs[i])] = w
				}
			}
		}
		return true
	})
	ast.Inspect(f, func(n ast.Node) bool {
		if n != nil && fset.Position(n.Pos()).Line > units.lines {
			return false // appended: the function copies and helpers
		}
		switch n := n.(type) {
		case *ast.CallExpr:
			fp := fpOf(n)
			switch {
			case calls(n, "__bf.OpenRange") && len(n.Args) == 8, calls(n, "__bf.OpenRangeAt") && len(n.Args) == 9:
				o := &overlayRange{loop: units.loop(fset.Position(n.Pos()).Line, write[fp]), operand: rootIdent(n.Args[1]),
					field: types.ExprString(n.Args[len(n.Args)-2]), units: map[string]bool{}}
				byFP[fp] = o
				order = append(order, fp)
			case calls(n, "__bf.Load", "__bf.LoadGrow"):
				if o := byFP[fp]; o != nil {
					o.units[units.key(fset.Position(n.Pos()).Line, write[fp])] = true
				}
			}
		case *ast.AssignStmt:
			if sel, ok := n.Lhs[0].(*ast.SelectorExpr); ok && len(n.Lhs) == 1 && sel.Sel.Name == "Next" {
				if o := byFP[identName(sel.X)]; o != nil {
					o.units[units.key(fset.Position(n.Pos()).Line, write[identName(sel.X)])] = true
				}
			}
		}
		return true
	})
	var out []overlayRange
	for _, fp := range order {
		out = append(out, *byFP[fp])
	}
	return out
}

// calls reports whether c calls one of names (pkg.Func).
func calls(c *ast.CallExpr, names ...string) bool {
	sel, ok := c.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	x, ok := sel.X.(*ast.Ident)
	return ok && slices.Contains(names, x.Name+"."+sel.Sel.Name)
}

// rootIdent returns the last identifier of e other than the runtime's
// and unsafe's (the operand of OpenRange, or of the pointer OpenRangeAt
// starts from), or "".
func rootIdent(e ast.Expr) string {
	name := ""
	ast.Inspect(e, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if x, ok := sel.X.(*ast.Ident); ok && strings.HasPrefix(x.Name, "__bf") {
				return false
			}
		}
		if id, ok := n.(*ast.Ident); ok {
			name = id.Name
		}
		return true
	})
	return name
}

// operandAt returns the variable whose elements the access at p in file
// indexes (s of s[i], s[i].f or b[k][j] with b a variable), or "".
func operandAt(t *testing.T, file string, p token.Position) string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var x ast.Expr
	ast.Inspect(f, func(n ast.Node) bool {
		if e, ok := n.(ast.Expr); ok && x == nil {
			var at token.Pos
			switch e := e.(type) {
			case *ast.SelectorExpr:
				at = e.Sel.Pos()
			case *ast.IndexExpr:
				at = e.Lbrack
			}
			if q := fset.Position(at); at.IsValid() && q.Line == p.Line && q.Column == p.Column {
				x = e
			}
		}
		return x == nil
	})
	for x != nil {
		switch e := x.(type) {
		case *ast.SelectorExpr:
			x = e.X
		case *ast.IndexExpr:
			x = e.X
		case *ast.ParenExpr:
			x = e.X
		case *ast.Ident:
			return e.Name
		default:
			return ""
		}
	}
	return ""
}
