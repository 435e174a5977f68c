package corpus

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Report is the result of Run.
type Report struct {
	Started   time.Time       `json:"started"`
	Command   string          `json:"command,omitempty"`
	Commit    string          `json:"commit,omitempty"` // bigfoot's, as the caller knows it
	GoVersion string          `json:"go_version"`
	GOOS      string          `json:"goos"`
	GOARCH    string          `json:"goarch"`
	NumCPU    int             `json:"num_cpu"`
	Tools     []string        `json:"tools"`
	Runs      int             `json:"runs"`
	Tags      string          `json:"tags,omitempty"`
	Primed    bool            `json:"primed,omitempty"` // Options.Prime
	Modules   []*ModuleResult `json:"modules"`
	// GeoMeanWallRatio, GeoMeanCPURatio and GeoMeanRSSRatio are the
	// geometric means of the modules' ratios, over the modules where both
	// tools finished.
	GeoMeanWallRatio float64 `json:"geomean_wall_ratio"`
	GeoMeanCPURatio  float64 `json:"geomean_cpu_ratio"`
	GeoMeanRSSRatio  float64 `json:"geomean_rss_ratio"`
}

// summarize computes the report's means from its modules.
func (rep *Report) summarize() {
	var w, c, m []float64
	for _, res := range rep.Modules {
		w = append(w, res.WallRatio)
		c = append(c, res.CPURatio)
		m = append(m, res.RSSRatio)
	}
	rep.GeoMeanWallRatio, rep.GeoMeanCPURatio, rep.GeoMeanRSSRatio = geoMean(w), geoMean(c), geoMean(m)
}

// Err returns an error naming the modules with problems, or nil if every
// acceptance condition holds.
func (rep *Report) Err() error {
	var bad []string
	n := 0
	for _, res := range rep.Modules {
		if len(res.Problems) > 0 {
			bad = append(bad, res.Module.Path)
			n += len(res.Problems)
		}
	}
	if n == 0 {
		return nil
	}
	return fmt.Errorf("%d problems in %d of %d modules: %s", n, len(bad), len(rep.Modules), strings.Join(bad, ", "))
}

// verifying reports whether the runs were built with the verifier.
func (rep *Report) verifying() bool {
	return slices.Contains(strings.Split(rep.Tags, ","), "bigfoot_verify")
}

// Markdown writes the report as Markdown: a table with a row per module,
// then the problems grouped by kind.
func (rep *Report) Markdown(w io.Writer) error {
	p := &printer{w: w}
	p.printf("Corpus: %d modules, %d run(s) per tool, %s, %s/%s, %d CPUs, %s.\n",
		len(rep.Modules), rep.Runs, rep.GoVersion, rep.GOOS, rep.GOARCH, rep.NumCPU, rep.Started.Format("2006-01-02 15:04 UTC"))
	if rep.Command != "" {
		p.printf("Command: `%s`", rep.Command)
		if rep.Commit != "" {
			p.printf(" (bigfoot %s)", rep.Commit)
		}
		p.printf(".\n")
	}
	build := "build included"
	if rep.Primed {
		build = "build of the module included, each tool's caches of the standard library and the dependencies primed"
	}
	p.printf("\nPackages: built, ok, FAIL under go -race / bigfoot; races: tests with a race report only under bigfoot; "+
		"wall and CPU time in seconds (%s, median of the runs), peak RSS of the largest process in MiB; × is bigfoot over go -race.\n\n", build)
	verify := rep.verifying()
	has := func(tool string) bool { return slices.Contains(rep.Tools, tool) }
	both := has(ToolRace) && has(ToolBigfoot)
	p.printf("| module | style | pkgs | built | ok | FAIL | races |")
	if both {
		p.printf(" wall race | wall bigfoot | wall × | CPU × | RSS race | RSS bigfoot |")
	} else {
		p.printf(" wall | CPU | RSS |")
	}
	if verify {
		p.printf(" uncovered | illegitimate |")
	}
	p.printf(" verdict |\n|---|---|--:|--:|--:|--:|--:|")
	if both {
		p.printf("--:|--:|--:|--:|--:|--:|")
	} else {
		p.printf("--:|--:|--:|")
	}
	if verify {
		p.printf("--:|--:|")
	}
	p.printf("---|\n")
	for _, res := range rep.Modules {
		p.row(rep, res, both, verify)
	}
	if both {
		p.printf("\nGeometric means over the modules where both finished: wall %.2fx, CPU %.2fx, peak RSS %.2fx go -race's.\n",
			rep.GeoMeanWallRatio, rep.GeoMeanCPURatio, rep.GeoMeanRSSRatio)
	}
	p.problems(rep)
	return p.err
}

// row prints a module's row of the table.
func (p *printer) row(rep *Report, res *ModuleResult, both, verify bool) {
	pair := func(f func(*ToolSummary) string) string {
		var parts []string
		for _, t := range rep.Tools {
			if s := res.Tools[t]; s != nil {
				parts = append(parts, f(s))
			} else {
				parts = append(parts, "–")
			}
		}
		return strings.Join(parts, " / ")
	}
	pkgs := 0
	for _, s := range res.Tools {
		pkgs = max(pkgs, s.Packages)
	}
	races := 0
	for _, pr := range res.Problems {
		if pr.Kind == ProblemRace {
			races += strings.Count(pr.Detail, ",") + 1
		}
	}
	p.printf("| %s@%s | %s | %d | %s | %s | %s | %d |", res.Module.Path, res.Module.Version, res.Module.Style, pkgs,
		pair(func(s *ToolSummary) string { return fmt.Sprint(s.Built()) }),
		pair(func(s *ToolSummary) string { return fmt.Sprint(s.OK) }),
		pair(func(s *ToolSummary) string { return fmt.Sprint(s.Fail) }), races)
	secs := func(s *ToolSummary, x float64) string {
		if s.TimedOut {
			return fmt.Sprintf(">%.0f", x)
		}
		return fmt.Sprintf("%.1f", x)
	}
	if both {
		rs, bs := res.Tools[ToolRace], res.Tools[ToolBigfoot]
		if rs == nil || bs == nil {
			p.printf(" – | – | – | – | – | – |")
		} else {
			p.printf(" %s | %s | %s | %s | %d | %d |", secs(rs, rs.Wall), secs(bs, bs.Wall),
				times(res.WallRatio), times(res.CPURatio), rs.PeakRSSKiB>>10, bs.PeakRSSKiB>>10)
		}
	} else {
		p.printf(" %s | %s | %s |",
			pair(func(s *ToolSummary) string { return secs(s, s.Wall) }),
			pair(func(s *ToolSummary) string { return fmt.Sprintf("%.1f", s.CPU) }),
			pair(func(s *ToolSummary) string { return fmt.Sprint(s.PeakRSSKiB >> 10) }))
	}
	if verify {
		v := Verify{}
		if s := res.Tools[ToolBigfoot]; s != nil {
			v = s.Verify
		}
		p.printf(" %d | %d |", v.Uncovered, v.Illegitimate)
	}
	p.printf(" %s |\n", verdict(res))
}

// times formats a ratio, "–" for none.
func times(r float64) string {
	if r == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f", r)
}

// verdict is "ok" or the kinds of a module's problems.
func verdict(res *ModuleResult) string {
	var kinds []string
	for _, pr := range res.Problems {
		if !slices.Contains(kinds, pr.Kind) {
			kinds = append(kinds, pr.Kind)
		}
	}
	if len(kinds) == 0 {
		return "ok"
	}
	return strings.Join(kinds, ", ")
}

// problemOrder is the order of the problem sections.
var problemOrder = []string{ProblemSetup, ProblemBuild, ProblemStatus, ProblemRace, ProblemMissed, ProblemSlow, ProblemTimeout, ProblemVerify}

// problemTitle names a kind of problem in the report.
var problemTitle = map[string]string{
	ProblemSetup:   "Could not be set up",
	ProblemBuild:   "Built by go -race, not by bigfoot",
	ProblemStatus:  "ok/FAIL differs",
	ProblemRace:    "Races reported only by bigfoot",
	ProblemMissed:  "Races reported only by go -race",
	ProblemSlow:    fmt.Sprintf("Slower than %dx go -race", MaxWallRatio),
	ProblemTimeout: "Timed out",
	ProblemVerify:  "Verifier: uncovered accesses or illegitimate checks",
}

// problems prints the problems grouped by kind.
func (p *printer) problems(rep *Report) {
	for _, kind := range problemOrder {
		first := true
		for _, res := range rep.Modules {
			for _, pr := range res.Problems {
				if pr.Kind != kind {
					continue
				}
				if first {
					p.printf("\n### %s\n\n", problemTitle[kind])
					first = false
				}
				where := res.Module.String()
				if pr.Package != "" {
					where += ": " + pr.Package
				}
				p.printf("- %s: %s\n", where, pr.Detail)
			}
		}
	}
}

// ReadReports reads the report.json files of earlier runs and returns one
// report holding all their modules, compared anew (with this version's
// conditions, and this version's reading of the runs' outputs where the
// logs are kept beside the report), the first file's header, and the
// command.
func ReadReports(files []string, command string) (*Report, error) {
	var rep *Report
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		var r Report
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		if err := reparse(filepath.Dir(name), r.Modules); err != nil {
			return nil, err
		}
		if rep == nil {
			rep = &r
			continue
		}
		rep.Modules = append(rep.Modules, r.Modules...)
	}
	if rep == nil {
		return nil, fmt.Errorf("no report to read")
	}
	rep.Command = command
	for _, res := range rep.Modules {
		res.compare(rep.verifying())
	}
	rep.summarize()
	return rep, nil
}

// reparse reads the packages of each run again from its output in
// dir/logs, where it was kept.
func reparse(dir string, modules []*ModuleResult) error {
	for _, res := range modules {
		for _, r := range res.Runs {
			f, err := os.Open(filepath.Join(dir, runLog(res.Module, r.Tool, r.Index)+".json"))
			if os.IsNotExist(err) {
				continue
			}
			if err != nil {
				return err
			}
			pkgs, err := ParseEvents(f)
			f.Close()
			if err != nil {
				return err
			}
			r.Packages = pkgs
		}
	}
	return nil
}

// WriteFiles writes results.md and report.json into dir.
func (rep *Report) WriteFiles(dir string) error { return writeReport(dir, rep) }

// writeReport writes rep's Markdown as results.md and rep as indented
// JSON as report.json into dir.
func writeReport(dir string, rep interface{ Markdown(io.Writer) error }) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, "results.md"))
	if err != nil {
		return err
	}
	if err := rep.Markdown(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	data, err := json.MarshalIndent(rep, "", "\t")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "report.json"), append(data, '\n'), 0o644)
}

// printer writes formatted text and keeps the first error.
type printer struct {
	w   io.Writer
	err error
}

func (p *printer) printf(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}
