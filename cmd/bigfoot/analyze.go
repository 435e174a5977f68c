package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/token"
	"go/types"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"

	"github.com/bigfoot-go/bigfoot"
	"github.com/bigfoot-go/bigfoot/driver"
	"github.com/bigfoot-go/bigfoot/mode"
	"github.com/bigfoot-go/bigfoot/placement"
)

const analyzeUsage = `usage: bigfoot analyze [-json] [-html dir] [-test] [-tags list] [-func substr] [packages]

Analyze runs the check-placement pass on the packages of your module and
shows, per function, the accesses fasttrack mode checks and the checks
bigfoot mode places: each with its position, read (R) or write (W), the
paths it checks (a field group p.x,p.y, or a strided range a[lo..hi:k]),
why it sits there (merged, moved, loop range, field group, before a
synchronization, before return, ...) and the accesses it covers; then the
decisions that need no check: accesses to objects not yet published
(unpub), calls of a callee's specialized copy (a covered call, whose
callee's checks the caller makes as a pending range, or a call keeping
its argument unpublished), and the function's own copies. A total line
per package gives the static counts in fasttrack, redcard and bigfoot
modes, the loop-weighted counts (each check weighted by 10^loop depth, a
stand-in for how often it runs), the analysis time, and the entailment
queries by stage (syntactic, cache, linear, z3) with the time in Z3.

Last comes the site plan as the build renders it: analyze instruments
the packages as 'bigfoot build -mode=bigfoot' (with -test, 'bigfoot
test') of the same -deps and -tags would, through the same loader,
options, effect facts and cache, and prints placement's decision on each
element access in a loop (a static range: ok, at access, refused and
why), each dropped check (and the check that covers it), each field
group (its anchor, fields and byte span, and its members) and each
unpublished site, with what the instrumenter did with it: rendered (in
which loop, for a range), not rendered and why, or not reached.

	-json        print the plans as JSON instead of text
	-html dir    also write dir/index.html: the source of each file with
	             the placed checks beside the lines they cover
	-test        include _test.go files
	-tags list   build tags, as for go build
	-func s      show only functions whose name contains s
	-deps scope  the packages whose bodies calls are judged by, as the build
	             of that -deps scope instruments them (main, modules, all;
	             default all)
`

// analyzeMain runs the analyze command.
func analyzeMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("analyze", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, analyzeUsage) }
	asJSON := fs.Bool("json", false, "")
	htmlDir := fs.String("html", "", "")
	tests := fs.Bool("test", false, "")
	tags := fs.String("tags", "", "")
	only := fs.String("func", "", "")
	deps := fs.String("deps", string(driver.DefaultScope), "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	patterns := fs.Args()
	if len(patterns) == 0 {
		patterns = []string{"."}
	}
	scope := driver.Scope(*deps)
	if !slices.Contains(driver.Scopes, scope) {
		fmt.Fprintf(stderr, "bigfoot analyze: -deps=%s: want one of %v\n", *deps, driver.Scopes)
		return 2
	}
	res, err := analyzePackages(ctx, patterns, *tests, *tags, scope)
	if err != nil {
		fmt.Fprintf(stderr, "bigfoot analyze: %v\n", err)
		return 1
	}
	res.sites, err = buildSites(ctx, patterns, *tests, *tags, scope)
	if err != nil {
		// The plans above do not depend on it: say so and go on.
		fmt.Fprintf(stderr, "bigfoot analyze: no site plan: %v\n", err)
	}
	res.filter(*only)
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res.report()); err != nil {
			fmt.Fprintf(stderr, "bigfoot analyze: %v\n", err)
			return 1
		}
	} else {
		res.text(stdout)
	}
	if *htmlDir != "" {
		if err := res.html(*htmlDir); err != nil {
			fmt.Fprintf(stderr, "bigfoot analyze: %v\n", err)
			return 1
		}
		fmt.Fprintf(stderr, "bigfoot analyze: wrote %s\n", filepath.Join(*htmlDir, "index.html"))
	}
	return 0
}

// analysisResult holds the plans of every analyzed package.
type analysisResult struct {
	fset *token.FileSet
	pkgs []*pkgResult
	// sites are the decisions on the sites of the build (buildSites).
	sites placement.SiteReport
}

type pkgResult struct {
	sum   *placement.Summary
	plans []*placement.Plan
	files []string // the package's Go files
}

// analyzePackages loads the packages, builds SSA for the whole program,
// and analyzes the packages of the main module, with kill sets that look
// into the bodies of the packages a build of scope instruments only, as
// the build's effect summaries do (docs/placement.md, "Effect summaries").
func analyzePackages(ctx context.Context, patterns []string, tests bool, tags string, scope driver.Scope) (*analysisResult, error) {
	cfg := &packages.Config{Context: ctx, Mode: packages.LoadAllSyntax | packages.NeedModule, Tests: tests}
	if tags != "" {
		cfg.BuildFlags = []string{"-tags=" + tags}
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, fmt.Errorf("loading packages: %w", err)
	}
	var errs []string
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			errs = append(errs, e.Error())
		}
	})
	if len(errs) > 0 {
		return nil, fmt.Errorf("packages do not load:\n\t%s", strings.Join(errs, "\n\t"))
	}
	prog, ssapkgs := ssautil.AllPackages(pkgs, ssa.InstantiateGenerics)
	prog.Build()
	// The kill sets look into the bodies of the packages the build
	// instruments (as -deps says) and nowhere else: the build sees the
	// other packages only through the kill sets' tables and the effect
	// summaries of the instrumented ones, and the report must describe
	// the binary.
	instrumented := map[*types.Package]bool{}
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		if p.Types == nil {
			return
		}
		imports := make([]string, 0, len(p.Imports))
		for path := range p.Imports {
			imports = append(imports, path)
		}
		if scope.Instruments(p.PkgPath, p.Module != nil && p.Module.Main, p.Module != nil, imports) {
			instrumented[p.Types] = true
		}
	})
	effects := placement.NewKillSetsWith(prog, placement.KillSetOptions{
		Bodies: func(p *ssa.Package) bool { return instrumented[p.Pkg] },
	})
	res := &analysisResult{fset: prog.Fset}
	seen := make(map[string]bool)
	for i, p := range pkgs {
		sp := ssapkgs[i]
		if sp == nil || p.Module == nil || !p.Module.Main || strings.HasSuffix(p.ID, ".test") || seen[p.ID] {
			continue
		}
		seen[p.ID] = true
		sum, plans := placement.Summarize(sp, effects)
		res.pkgs = append(res.pkgs, &pkgResult{sum: sum, plans: plans, files: p.CompiledGoFiles})
	}
	if len(res.pkgs) == 0 {
		return nil, fmt.Errorf("no packages of the main module match %s", strings.Join(patterns, " "))
	}
	return res, nil
}

// buildSites instruments the packages as the build of 'bigfoot build
// -mode=bigfoot' (with tests, 'bigfoot test') of -deps scope and -tags
// tags would, through the driver, and returns the site plan of the main
// modules' files (static ranges, drops, field groups, unpublished sites)
// with what the instrumenter rendered and refused.
func buildSites(ctx context.Context, patterns []string, tests bool, tags string, scope driver.Scope) (placement.SiteReport, error) {
	var rep placement.SiteReport
	verb := "build"
	if tests {
		verb = "test"
	}
	args := []string{"-mode=" + mode.BigFoot.String(), "-deps=" + string(scope)}
	if tags != "" {
		args = append(args, "-tags="+tags)
	}
	inv, err := driver.ParseArgs(verb, append(args, patterns...))
	if err != nil {
		return rep, err
	}
	a, err := driver.Analyze(ctx, &driver.Config{Runtime: bigfoot.Runtime(), Instrument: instrumentFiles, Stdout: io.Discard, Stderr: io.Discard}, inv)
	if err != nil {
		return rep, fmt.Errorf("instrumenting as the build does: %w", err)
	}
	if len(a.Plan) > 0 {
		if err := json.Unmarshal(a.Plan, &rep); err != nil {
			return rep, fmt.Errorf("the instrumenter's plan: %w", err)
		}
	}
	return rep, nil
}

// filter keeps the plans of functions whose name contains s, and the
// static ranges in their bodies.
func (r *analysisResult) filter(s string) {
	if s == "" {
		return
	}
	type span struct {
		file     string
		pos, end int
	}
	var spans []span
	for _, p := range r.pkgs {
		var kept []*placement.Plan
		for _, plan := range p.plans {
			if strings.Contains(plan.Func.String(), s) {
				kept = append(kept, plan)
				if syn := plan.Func.Syntax(); syn != nil {
					pos, end := r.fset.Position(syn.Pos()), r.fset.Position(syn.End())
					spans = append(spans, span{pos.Filename, pos.Offset, end.Offset})
				}
			}
		}
		p.plans = kept
	}
	in := func(p token.Position) bool {
		return slices.ContainsFunc(spans, func(sp span) bool {
			return p.Filename == sp.file && sp.pos <= p.Offset && p.Offset < sp.end
		})
	}
	r.sites.Ranges = slices.DeleteFunc(r.sites.Ranges, func(d placement.RangeDecision) bool { return !in(d.Pos) })
	r.sites.Merges = slices.DeleteFunc(r.sites.Merges, func(d placement.MergeDecision) bool { return !in(d.First) })
	r.sites.Sites = slices.DeleteFunc(r.sites.Sites, func(d placement.SiteDecision) bool { return !in(d.Pos) })
	r.sites.Footprints = slices.DeleteFunc(r.sites.Footprints, func(d placement.FootprintDecision) bool { return !in(d.Sites[0].Pos) })
}

// text prints every plan and a total line per package.
func (r *analysisResult) text(w io.Writer) {
	for _, p := range r.pkgs {
		for _, plan := range p.plans {
			plan.Format(w, r.fset)
		}
		s := p.sum
		fmt.Fprintf(w, "%s: %d functions, static checks fasttrack=%d redcard=%d bigfoot=%d, loop-weighted %.0f/%.0f/%.0f, %d fallbacks, analysis %v (per function: median %v, 95th percentile %v, max %v)\n",
			s.Pkg, len(s.Funcs), s.Accesses, s.RedCardChecks, s.Checks,
			s.Weighted[mode.FastTrack], s.Weighted[mode.RedCard], s.Weighted[mode.BigFoot],
			s.Fallbacks, s.Elapsed.Round(time.Microsecond),
			s.FuncDurationQuantile(0.5).Round(time.Microsecond), s.FuncDurationQuantile(0.95).Round(time.Microsecond),
			s.MaxFuncDuration.Round(time.Microsecond))
		fmt.Fprintf(w, "%s: entailment queries %d: syntactic %d, cache %d, linear %d, z3 %d (%v)\n\n",
			s.Pkg, s.Prover.Queries, s.Prover.Syntactic, s.Prover.CacheHits, s.Prover.Solver-s.Z3Calls, s.Z3Calls, s.Z3Time.Round(time.Microsecond))
	}
	if len(r.pkgs) > 1 {
		var ds []time.Duration
		var fns, ft, rc, bf int
		for _, p := range r.pkgs {
			for _, f := range p.sum.Funcs {
				ds = append(ds, f.Elapsed)
			}
			fns += len(p.sum.Funcs)
			ft, rc, bf = ft+p.sum.Accesses, rc+p.sum.RedCardChecks, bf+p.sum.Checks
		}
		fmt.Fprintf(w, "total: %d packages, %d functions, static checks fasttrack=%d redcard=%d bigfoot=%d, analysis per function: median %v, 95th percentile %v\n",
			len(r.pkgs), fns, ft, rc, bf,
			placement.DurationQuantile(ds, 0.5).Round(time.Microsecond), placement.DurationQuantile(ds, 0.95).Round(time.Microsecond))
	}
	if len(r.sites.Ranges) > 0 {
		fmt.Fprintln(w, "static loop ranges, as the build renders them:")
		for _, d := range r.sites.Ranges {
			fmt.Fprintln(w, d)
		}
	}
	if len(r.sites.Merges) > 0 {
		fmt.Fprintln(w, "merged static ranges, as the build renders them:")
		for _, d := range r.sites.Merges {
			fmt.Fprintln(w, d)
		}
	}
	if len(r.sites.Sites) > 0 {
		fmt.Fprintln(w, "each access site: checked, dropped, grouped, unpublished or not shared, as the build renders it:")
		for _, d := range r.sites.Sites {
			fmt.Fprintln(w, d)
		}
	}
	if len(r.sites.Footprints) > 0 {
		fmt.Fprintln(w, "footprints (deferred checks) and the sites that record into them, as the build renders them:")
		for _, d := range r.sites.Footprints {
			fmt.Fprintln(w, d)
		}
	}
}

// The JSON form of the analysis.
type (
	jsonReport struct {
		Packages []jsonPackage `json:"packages"`
		// Ranges are the static-range decisions of the build; Merges
		// its static ranges merged into one; Sites its decisions to
		// drop a check, group fields, and leave an unpublished site
		// unchecked; Footprints its deferred checks, each with the
		// sites that record into it.
		Ranges     []placement.RangeDecision     `json:"ranges"`
		Merges     []placement.MergeDecision     `json:"merges"`
		Sites      []placement.SiteDecision      `json:"sites"`
		Footprints []placement.FootprintDecision `json:"footprints"`
	}
	jsonPackage struct {
		Path         string     `json:"path"`
		Functions    []jsonFunc `json:"functions"`
		Accesses     int        `json:"accesses"`
		RedCard      int        `json:"redcard_checks"`
		BigFoot      int        `json:"bigfoot_checks"`
		Weighted     [3]float64 `json:"loop_weighted_fasttrack_redcard_bigfoot"`
		Fallbacks    int        `json:"fallbacks"`
		AnalysisNano int64      `json:"analysis_ns"`
	}
	jsonFunc struct {
		Name         string      `json:"name"`
		Pos          string      `json:"pos"`
		Accesses     []jsonSite  `json:"accesses"`
		Checks       []jsonCheck `json:"checks"`
		Decisions    []jsonNote  `json:"decisions,omitempty"`
		Fallback     string      `json:"fallback,omitempty"`
		AnalysisNano int64       `json:"analysis_ns"`
	}
	jsonSite struct {
		Pos   string `json:"pos"`
		Write bool   `json:"write"`
		Path  string `json:"path"`
	}
	// jsonNote is a decision beyond the checks (placement.Plan.Notes):
	// an unpublished access, a call of a specialized copy, a copy.
	jsonNote struct {
		Pos  string `json:"pos"`
		Text string `json:"decision"`
	}
	jsonCheck struct {
		Pos    string     `json:"pos"`
		Check  string     `json:"check"`
		Write  bool       `json:"write"`
		Why    string     `json:"why"`
		Covers []jsonSite `json:"covers"`
	}
)

func (r *analysisResult) report() jsonReport {
	pos := func(p token.Pos) string {
		if !p.IsValid() {
			return ""
		}
		return r.fset.Position(p).String()
	}
	site := func(a *placement.Access) jsonSite {
		return jsonSite{Pos: pos(a.Pos), Write: a.Write, Path: a.Path.String()}
	}
	rep := jsonReport{Ranges: r.sites.Ranges, Merges: r.sites.Merges, Sites: r.sites.Sites, Footprints: r.sites.Footprints}
	for _, p := range r.pkgs {
		s := p.sum
		jp := jsonPackage{Path: s.Pkg, Accesses: s.Accesses, RedCard: s.RedCardChecks, BigFoot: s.Checks,
			Weighted: [3]float64{s.Weighted[mode.FastTrack], s.Weighted[mode.RedCard], s.Weighted[mode.BigFoot]}, Fallbacks: s.Fallbacks, AnalysisNano: int64(s.Elapsed)}
		for _, plan := range p.plans {
			jf := jsonFunc{Name: plan.Func.String(), Pos: pos(plan.Func.Pos()), Fallback: plan.Fallback,
				AnalysisNano: int64(plan.Elapsed), Accesses: []jsonSite{}, Checks: []jsonCheck{}}
			for _, a := range plan.Accesses {
				jf.Accesses = append(jf.Accesses, site(a))
			}
			for _, c := range plan.Checks {
				jc := jsonCheck{Pos: pos(c.At.Pos()), Check: c.String(), Write: c.Write, Why: c.Why.String(), Covers: []jsonSite{}}
				for _, a := range c.Covers {
					jc.Covers = append(jc.Covers, site(a))
				}
				jf.Checks = append(jf.Checks, jc)
			}
			for _, n := range plan.Notes() {
				jf.Decisions = append(jf.Decisions, jsonNote{Pos: pos(n.Pos), Text: n.Text})
			}
			jp.Functions = append(jp.Functions, jf)
		}
		rep.Packages = append(rep.Packages, jp)
	}
	return rep
}

// lineNotes groups, per file and line, the accesses and checks to show.
func (r *analysisResult) lineNotes() map[string]map[int]*notes {
	byFile := make(map[string]map[int]*notes)
	at := func(p token.Pos) *notes {
		if !p.IsValid() {
			return nil
		}
		q := r.fset.Position(p)
		m := byFile[q.Filename]
		if m == nil {
			m = make(map[int]*notes)
			byFile[q.Filename] = m
		}
		n := m[q.Line]
		if n == nil {
			n = &notes{}
			m[q.Line] = n
		}
		return n
	}
	for _, p := range r.pkgs {
		for _, plan := range p.plans {
			for _, a := range plan.Accesses {
				if n := at(a.Pos); n != nil {
					n.accesses = append(n.accesses, a.String())
				}
			}
			for _, c := range plan.Checks {
				if n := at(c.At.Pos()); n != nil {
					lines := make([]string, 0, len(c.Covers))
					for _, a := range c.Covers {
						lines = append(lines, fmt.Sprint(r.fset.Position(a.Pos).Line))
					}
					sort.Strings(lines)
					n.checks = append(n.checks, fmt.Sprintf("%s  (%v; covers lines %s)", c, c.Why, strings.Join(dedup(lines), ",")))
				}
			}
			for _, d := range plan.Notes() { // decisions that need no check
				if n := at(d.Pos); n != nil {
					n.checks = append(n.checks, d.Text)
				}
			}
		}
	}
	return byFile
}

type notes struct {
	accesses []string
	checks   []string
}

func dedup(s []string) []string {
	var out []string
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}

// readSource reads a file for the HTML view.
func readSource(name string) ([]string, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return strings.Split(string(data), "\n"), nil
}
