package instrument

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/build/constraint"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"

	"github.com/bigfoot-go/bigfoot/mode"
	"github.com/bigfoot-go/bigfoot/placement"
)

// instrumentPackages rewrites the files of pkgs (test variants first) and
// collects the overlay. Each file is rewritten once, from the first variant
// that contains it; the rewrite of a file depends only on that file, so the
// variants agree.
// recording says which unchecked accesses the emitted code announces
// (__bf.A) in builds that count or verify accesses.
type recording struct {
	elided bool // accesses whose checks placement made redundant or deferred
	safe   bool // reads of the static safe class (counting builds only)
}

// instrumentPackages rewrites pkgs in mode m. std says they are
// standard-library packages, compiled against package-local hook shims
// (the driver's stdshim.go) instead of the runtime package. imported are
// the summaries of functions of packages instrumented by earlier runs.
// built says what the build's runtime and standard library do
// themselves, which instrumented code then leaves to them (Config).
type built struct {
	// runtimeHooks: the runtime runs the exit processing
	// (Config.RuntimeHooks), so main.main keeps its name and needs no
	// wrapper.
	runtimeHooks bool
	// syncOnce: package sync's Once orders its callers itself
	// (Config.SyncOnce), so Once.Do and the Once functions get no hook.
	syncOnce bool
	// syscallIO: package syscall announces I/O itself
	// (Config.SyscallIO), so calls that do I/O get no hook (ioCall).
	syscallIO bool
}

func instrumentPackages(pkgs []*packages.Package, m mode.Mode, rec recording, std bool, b built, imported placement.FuncSummaries) *Result {
	render := summarizeFirst
	if oneVariantEach(pkgs) {
		render = streamPackages
	}
	return renderPackages(render, pkgs, m, rec, std, b, imported)
}

// A renderer summarizes (if plans) and renders pkgs, each through
// instrument, adding the facts to res.
type renderer func(pkgs []*packages.Package, plans bool, imported placement.FuncSummaries, res *Result, instrument func(*packages.Package, *summaries))

// summarizeFirst summarizes every package of pkgs (if plans), then renders
// them in their order: a package and its test variants summarize the same
// functions, so no package's summaries are final before all are built.
func summarizeFirst(pkgs []*packages.Package, plans bool, imported placement.FuncSummaries, res *Result, instrument func(*packages.Package, *summaries)) {
	var sums *summaries
	if plans {
		sums = summarize(pkgs, imported)
		res.Facts = sums.encodeExports()
	}
	for _, pkg := range pkgs {
		instrument(pkg, sums)
	}
}

// renderPackages is instrumentPackages with the given renderer.
func renderPackages(render renderer, pkgs []*packages.Package, m mode.Mode, rec recording, std bool, b built, imported placement.FuncSummaries) *Result {
	res := &Result{Replace: map[string][]byte{}, Add: map[string][]byte{}}
	done := map[string]bool{}
	helpers := map[string]bool{} // dir + package name
	testMains := map[string]*testMainInfo{}
	if std {
		// Before rendering, which may drop a package's syntax.
		for _, pkg := range pkgs {
			if pkg.ID == pkg.PkgPath && pointerChecksPass(pkg) {
				res.PointerChecksPass = append(res.PointerChecksPass, pkg.PkgPath)
			}
		}
		sort.Strings(res.PointerChecksPass)
	}
	render(pkgs, m.Plans(), imported, res, func(pkg *packages.Package, sums *summaries) {
		instrumentPackage(pkg, m, rec, std, b, res, done, helpers, testMains, sums)
	})
	if !b.runtimeHooks {
		for _, tm := range testMains {
			tm.emit(res)
		}
	}
	sort.Strings(res.Notes)
	before := func(a, b token.Position) bool {
		return a.Filename < b.Filename || a.Filename == b.Filename && a.Offset < b.Offset
	}
	sort.SliceStable(res.Plan.Ranges, func(i, j int) bool { return before(res.Plan.Ranges[i].Pos, res.Plan.Ranges[j].Pos) })
	sort.SliceStable(res.Plan.Sites, func(i, j int) bool { return before(res.Plan.Sites[i].Pos, res.Plan.Sites[j].Pos) })
	sort.SliceStable(res.Plan.Footprints, func(i, j int) bool {
		return before(res.Plan.Footprints[i].Sites[0].Pos, res.Plan.Footprints[j].Sites[0].Pos)
	})
	return res
}

// pkgRewriter is what the file rewriter needs of a package.
type pkgRewriter struct {
	pkg  *packages.Package
	info *types.Info
	heap map[token.Pos]bool // declaring positions of heap (escaping) locals
	rc   *redcardPkg        // -mode=redcard, bigfoot: the package's plans; nil otherwise
	// footprints is the plan whose footprints the package renders
	// (rc's site plan in -mode=bigfoot, one of footprints only in
	// -mode=slimstate); nil in the modes without footprints.
	footprints *placement.SitePlan
	mode       mode.Mode // the instrumentation mode
	std        bool      // a standard-library package (instrumentPackages)
	built                // what the build's runtime and standard library do themselves
	// recordElided: the build counts or verifies accesses (tags
	// bigfoot_count, bigfoot_verify), so accesses whose checks are
	// elided still announce themselves (__bf.A).
	recordElided bool
	// recordSafe: the build counts accesses (tag bigfoot_count, not
	// bigfoot_verify), so reads of the static safe class announce
	// themselves too.
	recordSafe bool
}

// staticRanges reports whether loops get static ranges (mode.StaticRanges).
// Standard-library packages keep footprints: their hook shims reach the
// runtime through non-generic linknamed functions, and a static range's
// extent is a plain store into the runtime's footprint, which a shim's
// opaque footprint type cannot express.
func (p *pkgRewriter) staticRanges() bool { return p.mode.StaticRanges() && !p.std }

// universe reports whether the names denote the predeclared identifiers at
// pos (emitted code uses them there).
func (r *fileRewriter) universe(pos token.Pos, names ...string) bool {
	scope := r.p.pkg.Types.Scope().Innermost(pos)
	if scope == nil {
		scope = r.p.pkg.Types.Scope()
	}
	for _, n := range names {
		if _, obj := scope.LookupParent(n, pos); obj == nil || obj.Parent() != types.Universe {
			return false
		}
	}
	return true
}

func instrumentPackage(pkg *packages.Package, m mode.Mode, rec recording, std bool, b built, res *Result, done, helpers map[string]bool, testMains map[string]*testMainInfo, sums *summaries) {
	var files []int
	for i, f := range pkg.CompiledGoFiles {
		if i >= len(pkg.Syntax) || done[f] || !inModule(pkg, f) || !strings.HasSuffix(f, ".go") {
			continue
		}
		files = append(files, i)
	}
	cgo := noteCgoFiles(pkg, res, done)
	if len(files) == 0 {
		if cgo != "" && !std {
			linkRuntime(pkg, filepath.Dir(cgo), nil, res, testMains)
		}
		return
	}
	for _, i := range files {
		done[pkg.CompiledGoFiles[i]] = true
	}
	heap, prog, spkg, err := sums.ssaOf(pkg)
	var prc *redcardPkg
	if err != nil {
		// go/ssa needs well-typed code; runtime.RaceXxx calls are not.
		heap = placement.SyntacticHeapVars(pkg.Syntax, pkg.TypesInfo)
		res.Notes = append(res.Notes, fmt.Sprintf("%s: escape analysis from syntax (go/ssa: %v)", pkg.ID, firstLine(err.Error())))
		if m.Plans() {
			// Plans from SSA of the package with the offending
			// functions stubbed out; those keep their checks.
			var rc *redcardPkg
			if serr := stubbedSSA(pkg, func(prog *ssa.Program, spkg *ssa.Package) {
				rc = safeRedcardPkg(prog, spkg, pkg.ID, rcOptions{mode: m, stubbed: true, summaries: sums.table(), std: std, info: pkg.TypesInfo}, res)
			}); serr != nil || rc == nil {
				res.Notes = append(res.Notes, fmt.Sprintf("%s: no SSA: redcard plans not used (fasttrack checks)", pkg.ID))
			} else {
				res.Notes = append(res.Notes, fmt.Sprintf("%s: redcard plans from SSA without the functions that do not type-check (those keep fasttrack checks)", pkg.ID))
				prc = rc
			}
		}
	}
	pr := &pkgRewriter{pkg: pkg, info: pkg.TypesInfo, heap: heap, mode: m, std: std, built: b, recordElided: rec.elided, recordSafe: rec.safe}
	if m.Plans() && err == nil {
		prc = safeRedcardPkg(prog, spkg, pkg.ID, rcOptions{mode: m, summaries: sums.table(), std: std, info: pkg.TypesInfo}, res)
	}
	pr.rc = prc
	switch {
	case prc != nil && m.Footprints():
		pr.footprints = prc.sites
	case m.Footprints() && !m.Plans():
		pr.footprints = footprintPlan(pkg, spkg, err, m)
	}
	dir := ""
	rewrote := false
	perAccess := map[string]bool{} // files rewritten with per-access checks (rewriteOrFallback)
	for _, i := range files {
		path := pkg.CompiledGoFiles[i]
		file := pkg.Syntax[i]
		dir = filepath.Dir(path)
		if isTestFile(path) {
			testMainFor(testMains, dir).scan(file, path)
		}
		src, err := os.ReadFile(path)
		if err != nil {
			res.Notes = append(res.Notes, fmt.Sprintf("%s: %v: left uninstrumented", relPath(pkg, path), err))
			continue
		}
		out, notes, planned, err := pr.rewriteOrFallback(path, file, src)
		pr.footprints.RefuseUnreached(file.Pos(), file.End(), "no deferred record of the access: the instrumenter checks it with another (a read-modify-write's read), in place, or not at all (not a shared access to it)")
		res.Notes = append(res.Notes, notes...)
		if err != nil {
			res.Notes = append(res.Notes, fmt.Sprintf("%s: %v: left uninstrumented", relPath(pkg, path), err))
			continue
		}
		if out != nil {
			res.Replace[path] = out
			rewrote = true
			if !planned {
				perAccess[path] = true
			}
		}
	}
	// The decisions on the sites of the files this variant of the
	// package rendered.
	rendered := func(file string) bool {
		_, ok := res.Replace[file]
		return ok && !perAccess[file] && slices.ContainsFunc(files, func(i int) bool { return pkg.CompiledGoFiles[i] == file })
	}
	if pr.footprints != nil && !std {
		res.Plan.Footprints = append(res.Plan.Footprints, pr.footprints.FootprintDecisions(pkg.Fset, rendered)...)
	}
	if prc != nil {
		for _, d := range prc.sites.Ranges(pkg.Fset) {
			if rendered(d.Pos.Filename) {
				res.Plan.Ranges = append(res.Plan.Ranges, d)
			}
		}
		for _, d := range prc.sites.MergeDecisions(pkg.Fset) {
			if rendered(d.First.Filename) {
				res.Plan.Merges = append(res.Plan.Merges, d)
			}
		}
		if !std {
			for _, d := range prc.sites.Decisions(pkg.Fset) {
				if rendered(d.Pos.Filename) {
					res.Plan.Sites = append(res.Plan.Sites, d)
				}
			}
		}
	}
	if dir == "" {
		return
	}
	if !rewrote && !std {
		// Nothing to check here (or nothing that could be rewritten),
		// but the binary must still link the runtime.
		linkRuntime(pkg, dir, nil, res, testMains)
	}
	key := dir + "\x00" + pkg.Name
	if rewrote && pkg.Name == "main" && !b.runtimeHooks && !helpers[key] {
		// main.main is renamed and wrapped; the wrapper asks whether it
		// runs in a test binary (a test that calls main must not exit).
		helpers[key] = true
		res.Add[addedFile(pkg, dir, "zz_bigfoot_rt")] = []byte(mainHelperFile)
	}
}

// linkRuntime keeps the runtime in a binary although package pkg (in
// dir) is left uninstrumented, for its assembly or cgo, or has nothing to
// check: its test files, if any (files indexes them in CompiledGoFiles),
// still get the generated TestMain, with the runtime's exit processing,
// and the package itself a file importing the runtime. Every build calls
// the runtime from package sync's hooks (and, with -deps, from
// instrumented dependencies and standard-library packages) through
// linknamed references, which only link if the runtime is in the binary.
func linkRuntime(pkg *packages.Package, dir string, files []int, res *Result, testMains map[string]*testMainInfo) {
	for _, i := range files {
		if path := pkg.CompiledGoFiles[i]; isTestFile(path) {
			testMainFor(testMains, filepath.Dir(path)).scan(pkg.Syntax[i], path)
		}
	}
	if strings.HasSuffix(pkg.Name, "_test") {
		return
	}
	res.Add[addedFile(pkg, dir, "zz_bigfoot_link")] = []byte(fmt.Sprintf(linkFile, pkg.Name, RuntimePath))
}

// addedFile names a file the instrumenter adds to package pkg in dir: a
// test file where all of pkg's files are (a directory of tests only, such
// as google.golang.org/protobuf's root, a package main with no main), so
// that go build ./... still skips the directory and only the test binary
// compiles the file.
func addedFile(pkg *packages.Package, dir, base string) string {
	for _, f := range pkg.CompiledGoFiles {
		if !isTestFile(f) {
			return filepath.Join(dir, base+".go")
		}
	}
	return filepath.Join(dir, base+"_test.go")
}

// linkRuntimeTests keeps the runtime in the test binaries of the race
// runtime's own packages (pkgs, in bigfoot's own module), which are not
// instrumented: the standard library they use calls the runtime's hooks.
// Package detector is the runtime itself; the others cannot import it
// (it imports them), so the file is an external test file.
func linkRuntimeTests(pkgs []*packages.Package, res *Result) {
	for _, p := range pkgs {
		if p.PkgPath == RuntimePath || len(p.GoFiles) == 0 || !hasTestFiles(filepath.Dir(p.GoFiles[0])) {
			continue
		}
		name := filepath.Join(filepath.Dir(p.GoFiles[0]), "zz_bigfoot_link_test.go")
		res.Add[name] = []byte(fmt.Sprintf(linkFile, p.Name+"_test", RuntimePath))
	}
}

// hasTestFiles reports whether dir holds a _test.go file.
func hasTestFiles(dir string) bool {
	m, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	return len(m) > 0
}

// linkFile is the file linkRuntime adds: package name, runtime path.
const linkFile = "// Code generated by bigfoot. DO NOT EDIT.\n\npackage %s\n\nimport _ %q\n"

// noteCgoFiles names in a note each file of pkg's module that imports "C"
// and is not among the files the type checker saw (CompiledGoFiles), once
// (done). The main module's packages are loaded with typecheckCgo, which
// type-checks such files from their own syntax, and they are rewritten
// like any other; without it (standard-library packages, or a go command
// that did no cgo processing) CompiledGoFiles holds the files cgo
// generates in the build cache, whose syntax and offsets are not the
// user's, and the file is left as it is, even when it is the package's
// only file. It returns the path of one such file of pkg, or "".
func noteCgoFiles(pkg *packages.Package, res *Result, done map[string]bool) (cgo string) {
	compiled := map[string]bool{}
	for _, f := range pkg.CompiledGoFiles {
		compiled[f] = true
	}
	for _, path := range pkg.GoFiles {
		if compiled[path] || !inModule(pkg, path) || !fileImportsC(path) {
			continue
		}
		cgo = path
		if done[path] {
			continue
		}
		done[path] = true
		res.Notes = append(res.Notes, fmt.Sprintf("%s: uses cgo (import \"C\"): left uninstrumented (type-checked only as cgo's output); races on its accesses are not reported", relPath(pkg, path)))
	}
	return cgo
}

func isTestFile(path string) bool { return strings.HasSuffix(path, "_test.go") }

func usesCgo(f *ast.File) bool {
	for _, imp := range f.Imports {
		if imp.Path.Value == `"C"` {
			return true
		}
	}
	return false
}

// relPath is file relative to its module root, slash-separated, as the
// site tables name it.
func relPath(pkg *packages.Package, file string) string {
	if pkg.Module != nil {
		if rel, err := filepath.Rel(pkg.Module.Dir, file); err == nil {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.Base(file)
}

// testHookPlanned, if set, is called by rewriteFile in the modes that
// render placement's decisions; a panic in it is a failure of that
// rendering (TestRewriteFallsBackToPerAccess).
var testHookPlanned func(path string)

// rewriteOrFallback rewrites a file as p's mode decides (rewriteFile). If
// that fails in a mode that renders placement's decisions, the file gets
// fasttrack's per-access checks instead, as a file placement has no plan
// for does, and a note says why: a failure of the planned rendering must
// cost checks, never leave the file unchecked. planned reports whether
// out renders p's plan.
func (p *pkgRewriter) rewriteOrFallback(path string, file *ast.File, src []byte) (out []byte, notes []string, planned bool, err error) {
	out, notes, err = p.rewriteFile(path, file, src)
	if err == nil || p.mode == mode.FastTrack {
		return out, notes, err == nil, err
	}
	ft := *p
	ft.mode, ft.rc = mode.FastTrack, nil
	note := fmt.Sprintf("%s: %s: per-access checks (fasttrack)", relPath(p.pkg, path), firstLine(err.Error()))
	out, notes, err = ft.rewriteFile(path, file, src)
	return out, append(notes, note), false, err
}

// rewriteFile returns the instrumented content of one file, or nil if the
// file needs no change. It never panics: a failure to rewrite is an error,
// and the caller leaves the file as it was.
func (p *pkgRewriter) rewriteFile(path string, file *ast.File, src []byte) (out []byte, notes []string, err error) {
	fset := p.pkg.Fset
	tf := fset.File(file.Pos())
	if tf == nil || tf.Size() != len(src) {
		return nil, nil, fmt.Errorf("source changed since it was loaded")
	}
	newRewriter := func() *fileRewriter {
		r := &fileRewriter{
			p:    p,
			info: p.info,
			file: file,
			src:  src,
			tf:   tf,
			rel:  relPath(p.pkg, path),
		}
		r.siteVar = "__bfS_" + shortHash(filepath.Base(path))
		return r
	}
	r := newRewriter()
	defer func() {
		if e := recover(); e != nil {
			out, notes, err = nil, nil, fmt.Errorf("internal error: %v\n%s", e, debug.Stack())
		}
	}()
	if testHookPlanned != nil && p.mode != mode.FastTrack {
		testHookPlanned(path)
	}
	if p.rc != nil {
		// -mode=redcard: pass 1 records the wrappers fasttrack emits,
		// pass 2 leaves out those the plans make redundant.
		r.rc = &fileRedcard{pkg: p.rc, emitted: map[siteKey]int{}, file: file, info: p.info, wrapped: map[token.Pos]ast.Expr{}}
		body := r.renderFile()
		r.rc.plan()
		if len(r.rc.drop) > 0 || len(r.rc.unpub) > 0 || len(r.rc.local) > 0 || len(p.rc.unpubAppend) > 0 {
			// Pass 2, again if a group's anchor was checked alone.
			rc := r.rc
			var alone []token.Pos
			for {
				r = newRewriter()
				r.rc = rc
				body = r.renderFile()
				withdrawn := rc.withdrawUnrendered()
				if len(withdrawn) == 0 {
					break
				}
				alone = append(alone, withdrawn...)
			}
			for _, pos := range alone {
				r.note(pos, "field group not checked as one: its fields are checked where they are")
			}
		}
		r.commitRanges()
		r.renderCopies()
		return p.finishFile(r, path, file, src, body)
	}
	body := r.renderFile()
	r.commitRanges()
	r.renderCopies()
	return p.finishFile(r, path, file, src, body)
}

// finishFile completes the rewrite of a file from its rendered body.
func (p *pkgRewriter) finishFile(r *fileRewriter, path string, file *ast.File, src []byte, body string) (out []byte, notes []string, err error) {
	r.flushFootprintOutcomes()
	r.flushChecks()
	if body == string(src) && r.trailer.Len() == 0 {
		return nil, r.notes, nil
	}
	if len(r.sites) > 0 || strings.Contains(body, "__bf.") || strings.Contains(r.trailer.String(), "__bf.") {
		// Import the runtime right after the package name: no line moves.
		at := r.off(r.file.Name.End())
		imports := "; import __bf " + fmt.Sprintf("%q", RuntimePath)
		if r.usesUnsafe {
			imports += "; import __bfu \"unsafe\""
		}
		body = body[:at] + imports + body[at:]
	}
	var b bytes.Buffer
	b.WriteString(body)
	if !strings.HasSuffix(body, "\n") {
		b.WriteString("\n")
	}
	if len(r.sites) > 0 {
		pkgPath := p.pkg.PkgPath
		if p.pkg.Name == "main" {
			pkgPath = "main" // as the race detector prints it
		}
		// The absolute path, as the stacks of reports print it.
		fmt.Fprintf(&b, "var %s = __bf.RegisterSites(%q, %q, %q)\n", r.siteVar, pkgPath, path, strings.Join(r.sites, "\n"))
	}
	b.WriteString(r.trailer.String())
	out = b.Bytes()
	if !p.std {
		// A standard-library file is at the toolchain's version
		// already (FileVersions does not say so: go/packages gives
		// no version for it).
		out = languageUpgrade(r.info.FileVersions[file], path, out)
	}
	// The rewrite must parse; the type checker of the go command does the rest.
	if _, perr := parser.ParseFile(token.NewFileSet(), path, out, parser.SkipObjectResolution); perr != nil {
		return nil, nil, fmt.Errorf("instrumented source does not parse: %v", perr)
	}
	if n1, n2 := bytes.Count(src, []byte("\n")), strings.Count(body, "\n"); n1 != n2 {
		return nil, nil, fmt.Errorf("internal error: rewrite changed line count %d -> %d", n1, n2)
	}
	return out, r.notes, nil
}

// languageUpgrade raises the language version of an instrumented file to
// at least go1.21 (the emitted code instantiates generic functions), with a
// //go:build constraint: an existing constraint line gets "&& go1.21" in
// place; otherwise a constraint is added above the file, followed by a
// //line directive so that every line keeps its number and column (a
// directive without a column makes the compiler's and vet's positions
// columnless, where go test -race prints "file.go:23:1: ..."). Old-style
// constraint lines (every form go/build accepts: "// +build", "//+build")
// would no longer match the new //go:build line, which go vet rejects;
// they are turned into plain comments (the file is in this build anyway).
func languageUpgrade(fileVersion, path string, src []byte) []byte {
	if fileVersion != "" && versionAtLeast(fileVersion, "go1.21") {
		return src
	}
	lines := bytes.SplitAfter(src, []byte("\n"))
	found := false
	for i, l := range lines {
		t := string(bytes.TrimSpace(l))
		if strings.HasPrefix(t, "package ") {
			break
		}
		switch {
		case constraint.IsGoBuild(t):
			expr, err := constraint.Parse(t)
			if err != nil {
				continue // the go command rejects the file already
			}
			lines[i] = []byte("//go:build (" + expr.String() + ") && go1.21\n")
			found = true
		case constraint.IsPlusBuild(t):
			rest := strings.TrimSpace(strings.TrimPrefix(t, "//"))
			lines[i] = []byte("// (bigfoot) build" + strings.TrimPrefix(rest, "+build") + "\n")
		}
	}
	src = bytes.Join(lines, nil)
	if found {
		return src
	}
	return append([]byte("//go:build go1.21\n\n//line "+path+":1:1\n"), src...)
}

// fileRewriter renders one file. Rendering is a recursive function of the
// syntax tree: a node's text is the original bytes of the node with the
// rendered text of some of its children spliced in, so everything the
// rewriter does not touch (comments, directives, layout) is preserved.
type fileRewriter struct {
	// cgoRelease, cgoAcquire: cgoCall rendered a C call whose release
	// (before) or acquire (after) the enclosing statement must add
	// (cgoHooks).
	cgoRelease, cgoAcquire bool
	p                      *pkgRewriter
	// fpOut: the outcome of each footprint site this rendering reached
	// ("": rendered as a record; footprintOutcome)
	fpOut map[placement.SiteKey]string
	// checkedAt: the sites this rendering checks where they are
	// (checkSite), by SSA position and kind
	checkedAt map[placement.SiteKey]bool
	// deferred is the defer statement whose call is being rendered in
	// place (callAt)
	deferred *ast.DeferStmt
	info     *types.Info
	file     *ast.File
	src      []byte
	tf       *token.File
	rel      string
	siteVar  string
	sites    []string
	// ranges, merges and calls are the outcomes of placement's static
	// ranges, merged ranges and covered calls in this rendering
	// (rangeOutcome, mergeOutcome, callOutcome)
	ranges  map[placement.SiteKey]string
	merges  map[placement.SiteKey]string
	calls   map[placement.SiteKey]string
	notes   []string
	fn      *funcCtx // innermost function being rendered; nil at package level
	tmp     int      // counter for temporaries (__bft<n>), unique in the file
	fpIDs   int      // counter for functions with footprint state, unique in the file
	trailer strings.Builder
	rc      *fileRedcard // -mode=redcard only

	usesUnsafe bool // the body uses __bfu (unsafe.Offsetof in group checks)

	// coverage: what the next check allocated at position pos covers
	// besides its own access (sites.go), set by dropCheck and groupWrap.
	coverage siteCoverage
	// rmw: the assignment target being rendered is read first (x op= v,
	// x++), by the same expression.
	rmw bool

	// hoisted: the operands of the assignment target being rendered that
	// hoistCalls evaluated into temporaries, and their names.
	hoisted map[ast.Expr]string

	// nocheck: the accesses left unchecked while a function's specialized
	// copy is rendered (cover.go); coverEmitted: the cover helper is in
	// the trailer.
	nocheck        map[siteKey]bool
	coverEmitted   bool
	appendEmitted  bool // the unpublished append helper is in the trailer
	byteIdxEmitted bool // the byte-string index helper is in the trailer
	// upSites, upRename: while an unpublished-parameter copy is rendered,
	// its unchecked accesses and the calls it renames (unpublished.go)
	upSites  map[siteKey]bool
	upRename map[token.Pos]int
}

// funcCtx is the state of one function or function literal being rendered.
type funcCtx struct {
	name     string // as the race detector prints it, without the package: F, (*T).M, F.func1
	closures int    // function literals seen so far directly in this function
	uses     int    // references emitted to this function's __bfg
	parent   *funcCtx
	gotos    map[string]bool // labels that are goto targets in the enclosing FuncDecl
	results  []*ast.Ident    // named results
	fp       *fpCtx          // deferred checks (slimstate, bigfoot); nil otherwise
}

func resultNames(ft *ast.FuncType) []*ast.Ident {
	var out []*ast.Ident
	if ft.Results != nil {
		for _, f := range ft.Results.List {
			out = append(out, f.Names...)
		}
	}
	return out
}

func (r *fileRewriter) off(p token.Pos) int { return r.tf.Offset(p) }

// text is the original source of n.
func (r *fileRewriter) text(n ast.Node) string {
	return string(r.src[r.off(n.Pos()):r.off(n.End())])
}

func (r *fileRewriter) note(pos token.Pos, format string, args ...any) {
	p := r.tf.Position(pos)
	r.notes = append(r.notes, fmt.Sprintf("%s:%d:%d: %s", r.rel, p.Line, p.Column, fmt.Sprintf(format, args...)))
}

// sub replaces the source range [lo, hi) by text.
type sub struct {
	lo, hi token.Pos
	text   string
}

func subOf(n ast.Node, text string) sub { return sub{n.Pos(), n.End(), text} }

// splice returns the source of [lo, hi) with subs (sorted, disjoint, inside
// the range) replaced.
func (r *fileRewriter) splice(lo, hi token.Pos, subs ...sub) string {
	var b strings.Builder
	at := r.off(lo)
	for _, s := range subs {
		if !s.lo.IsValid() {
			continue
		}
		o := r.off(s.lo)
		if o < at {
			panic(fmt.Sprintf("splice: overlapping substitutions at %s", r.tf.Position(s.lo)))
		}
		b.Write(r.src[at:o])
		b.WriteString(s.text)
		at = r.off(s.hi)
	}
	b.Write(r.src[at:r.off(hi)])
	return b.String()
}

func (r *fileRewriter) spliceNode(n ast.Node, subs ...sub) string {
	return r.splice(n.Pos(), n.End(), subs...)
}

// g returns the name of the current goroutine state and records its use.
func (r *fileRewriter) g() string {
	r.fn.uses++
	return "__bfg"
}

// newTemp returns a fresh temporary name.
func (r *fileRewriter) newTemp() string {
	r.tmp++
	return fmt.Sprintf("__bft%d", r.tmp)
}

// renderFile renders the whole file: the import of the runtime is added on
// the package clause's line, so no line moves.
func (r *fileRewriter) renderFile() string {
	var subs []sub
	for _, d := range r.file.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Body == nil {
				continue
			}
			if dir := skipDirective(d); dir != "" {
				r.note(d.Pos(), "%s: %s function left uninstrumented", d.Name.Name, dir)
				continue
			}
			subs = append(subs, r.funcDecl(d)...)
		case *ast.GenDecl:
			// Package-level initializers run before main, on the main
			// goroutine, outside any instrumented function: only the
			// function literals in them are instrumented.
			subs = append(subs, subOf(d, r.funcLitsOnly(d)))
		}
	}
	out := r.splice(r.file.Pos(), r.file.End(), subs...)
	// r.file.Pos() is the package keyword; keep what precedes it.
	head := string(r.src[:r.off(r.file.Pos())])
	tail := string(r.src[r.off(r.file.End()):])
	return head + out + tail
}

// skipDirective returns the compiler directive of d under which no call
// may be added to it (stack or write-barrier constraints), or that asks
// for no race instrumentation.
func skipDirective(d *ast.FuncDecl) string {
	if d.Doc == nil {
		return ""
	}
	for _, c := range d.Doc.List {
		switch dir, _, _ := strings.Cut(c.Text, " "); dir {
		case "//go:nosplit", "//go:norace", "//go:systemstack", "//go:nowritebarrier", "//go:nowritebarrierrec":
			return dir
		}
	}
	return ""
}

// funcLitsOnly renders n with only its function literals instrumented.
func (r *fileRewriter) funcLitsOnly(n ast.Node) string {
	var subs []sub
	ast.Inspect(n, func(c ast.Node) bool {
		if fl, ok := c.(*ast.FuncLit); ok {
			subs = append(subs, subOf(fl, r.funcLit(fl)))
			return false
		}
		return true
	})
	return r.spliceNode(n, subs...)
}

// funcDecl renders a function declaration's body (with prologue) and, for
// main.main, the renaming that lets the runtime wrap it (a TestMain keeps
// its name and gets the runtime's entry and exit hooks in its body).
func (r *fileRewriter) funcDecl(d *ast.FuncDecl) []sub {
	ctx := &funcCtx{name: r.funcName(d), gotos: gotoTargets(d.Body), results: resultNames(d.Type), fp: r.newFpCtx()}
	saved := r.fn
	r.fn = ctx
	body := r.block(d.Body)
	r.fn = saved
	body, extra := finishFootprints(ctx, body, d.Type.Results != nil && len(d.Type.Results.List) > 0)
	r.fSiteCoverage(ctx)
	if tb := r.testParam(d); tb != "" {
		ctx.uses++
		extra = append(extra, "__bf.TestStart(__bfg, "+tb+");")
	}
	if fn, ok := r.info.Defs[d.Name].(*types.Func); ok && isHTTPHandler(fn.Type().(*types.Signature)) {
		ctx.uses++
		extra = append(extra, httpHandlerPrologue)
	}
	if fn, ok := r.info.Defs[d.Name].(*types.Func); ok && !r.p.syscallIO && isReadMethod(fn) {
		ctx.uses++
		extra = append(extra, selfReadPrologue)
	}
	if exportedToC(d) && usesCgo(r.file) {
		ctx.uses++
		extra = append(extra, cgoCallbackPrologue)
	}
	var subs []sub
	switch {
	case d.Recv == nil && d.Name.Name == "main" && r.p.pkg.Name == "main" && d.Type.TypeParams == nil && !r.p.runtimeHooks:
		subs = append(subs, sub{d.Name.Pos(), d.Name.End(), "__bfMain"})
		// A test may call main: then it must not exit the test binary.
		r.trailer.WriteString("func main() { if __bfTesting() { __bfMain(); return }; __bf.Main(__bfMain) }\n")
	case d.Recv == nil && d.Name.Name == "TestMain" && isTestFile(r.tf.Name()) && isTestMainSig(r.info, d):
		m, named := testMainParam(d)
		if named != nil {
			subs = append(subs, *named)
		}
		ctx.uses++
		extra = append(extra, testMainPrologue(m))
	}
	subs = append(subs, subOf(d.Body, withPrologue(body, d.Body, ctx.uses, extra)))
	return subs
}

// withPrologue inserts the goroutine-state prologue after the opening brace
// of a rendered body (of src), if the body uses it. A body without loops
// whose one use of the state is a check's argument (a getter's or a
// setter's, most often) gets the check's form that finds the state itself
// instead (selfFinding): it runs at most once per call, as the prologue
// would.
func withPrologue(body string, src *ast.BlockStmt, uses int, extra []string) string {
	if uses == 0 {
		return body
	}
	if uses == 1 && len(extra) == 0 && strings.Count(body, "__bfg") == 1 && !loops(src) {
		for _, f := range selfFinding {
			if strings.Contains(body, f.with) {
				return strings.Replace(body, f.with, f.without, 1)
			}
		}
	}
	return "{ __bfg := __bf.Cur(); " + strings.Join(extra, " ") + body[1:]
}

// loops reports whether body has a loop of its own (in no function
// literal): a for statement, or a label a goto may jump back to.
func loops(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.ForStmt, *ast.RangeStmt, *ast.LabeledStmt:
			found = true
		case *ast.FuncLit:
			return false
		}
		return !found
	})
	return found
}

// selfFinding maps the checks that take the goroutine state to their forms
// that find it (detector.R1). The compiler's inliner charges a call of a
// function it cannot inline about 60 of its budget of 80: the prologue's
// call and a check's are over it, the check alone is not, so a getter
// stays inlinable as it is in a plain build or under go -race, which
// instruments after inlining. A getter that no longer inlines costs a
// call, and its callers' escape analysis no longer sees through it: the
// string(b) a String method returns moves to the heap.
var selfFinding = [...]struct{ with, without string }{
	{"__bf.R(__bfg, ", "__bf.R1("},
	{"__bf.W(__bfg, ", "__bf.W1("},
	{"__bf.RG(__bfg, ", "__bf.RG1("},
	{"__bf.WG(__bfg, ", "__bf.WG1("},
	{"__bf.ReadAll(__bfg, ", "__bf.ReadAll1("},
	{"__bf.WriteAll(__bfg, ", "__bf.WriteAll1("},
}

// funcLit renders a function literal: a new function with its own prologue
// (it may run on another goroutine than its creator).
func (r *fileRewriter) funcLit(fl *ast.FuncLit) string {
	parent := r.fn
	var name string
	var gotos map[string]bool
	if parent != nil {
		parent.closures++
		if parent.parent == nil {
			name = fmt.Sprintf("%s.func%d", parent.name, parent.closures)
		} else {
			name = fmt.Sprintf("%s.%d", parent.name, parent.closures)
		}
		gotos = parent.gotos
	} else {
		name = "init.func"
		gotos = gotoTargets(fl.Body)
	}
	ctx := &funcCtx{name: name, parent: parent, gotos: gotos, results: resultNames(fl.Type), fp: r.newFpCtx()}
	r.fn = ctx
	body := r.block(fl.Body)
	r.fn = parent
	body, extra := finishFootprints(ctx, body, fl.Type.Results != nil && len(fl.Type.Results.List) > 0)
	r.fSiteCoverage(ctx)
	if sig, ok := r.info.Types[fl].Type.(*types.Signature); ok && isHTTPHandler(sig) {
		ctx.uses++
		extra = append(extra, httpHandlerPrologue)
	}
	return r.splice(fl.Pos(), fl.End(), subOf(fl.Body, withPrologue(body, fl.Body, ctx.uses, extra)))
}

// gotoTargets returns the labels of body that some goto names.
func gotoTargets(body *ast.BlockStmt) map[string]bool {
	m := map[string]bool{}
	ast.Inspect(body, func(n ast.Node) bool {
		if b, ok := n.(*ast.BranchStmt); ok && b.Tok == token.GOTO && b.Label != nil {
			m[b.Label.Name] = true
		}
		return true
	})
	return m
}

// funcName is the name of d as the race detector prints it after the
// package path (the runtime adds the path): F, T.M, (*T).M.
func (r *fileRewriter) funcName(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return d.Name.Name
	}
	t := d.Recv.List[0].Type
	ptr := false
	if s, ok := t.(*ast.StarExpr); ok {
		ptr, t = true, s.X
	}
	generic := false
	switch x := t.(type) {
	case *ast.IndexExpr:
		t, generic = x.X, true
	case *ast.IndexListExpr:
		t, generic = x.X, true
	}
	tn := "?"
	if id, ok := t.(*ast.Ident); ok {
		tn = id.Name
	}
	if generic {
		tn += "[...]"
	}
	if ptr {
		return fmt.Sprintf("(*%s).%s", tn, d.Name.Name)
	}
	return fmt.Sprintf("%s.%s", tn, d.Name.Name)
}

// site allocates a check site at pos and returns the expression naming it.
func (r *fileRewriter) site(pos token.Pos) string {
	p := r.tf.Position(pos)
	name := "?"
	if r.fn != nil {
		name = r.fn.name
	}
	entry := fmt.Sprintf("%d:%d:%s", p.Line, p.Column, name)
	if r.coverage.text != "" && r.coverage.pos == pos {
		entry += "\t" + r.coverage.text
		r.coverage = siteCoverage{}
	}
	r.sites = append(r.sites, entry)
	return fmt.Sprintf("%s+%d", r.siteVar, len(r.sites)-1)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// fileImportsC reports whether the Go file at path imports "C".
func fileImportsC(path string) bool {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
	return err == nil && usesCgo(f)
}

// footprintPlan returns the plan of pkg's footprints in mode m, which has
// no other plans (-mode=slimstate), from spkg, or if that failed to build
// (err), from SSA with the functions that do not type-check stubbed out
// (theirs are checked in place); nil if there is none.
func footprintPlan(pkg *packages.Package, spkg *ssa.Package, err error, m mode.Mode) (sp *placement.SitePlan) {
	defer func() {
		if recover() != nil {
			sp = nil // no footprints: every access is checked in place
		}
	}()
	sp = placement.NewSitePlan()
	add := func(_ *ssa.Program, spkg *ssa.Package) {
		for _, fn := range placement.AnalyzedFunctions(spkg) {
			sp.AddFootprints(fn, pkg.TypesInfo, m)
		}
	}
	if err == nil {
		add(nil, spkg)
	} else if stubbedSSA(pkg, add) != nil {
		return nil
	}
	sp.DecideFootprints()
	return sp
}
