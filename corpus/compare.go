package corpus

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// MaxWallRatio is the most wall time a suite may take under bigfoot, as a
// multiple of its time under go -race.
const MaxWallRatio = 3

// The kinds of Problem, one per acceptance condition.
const (
	ProblemSetup   = "setup"   // the module could not be downloaded or prepared
	ProblemBuild   = "build"   // go -race built the package, bigfoot did not
	ProblemStatus  = "status"  // both built it, and its ok/FAIL differs
	ProblemRace    = "race"    // bigfoot reported a race in a test where go -race reported none
	ProblemMissed  = "missed"  // go -race reported a race in a test where bigfoot reported none
	ProblemSlow    = "slow"    // bigfoot's wall time above MaxWallRatio times go -race's
	ProblemTimeout = "timeout" // a run did not finish within Options.Timeout
	ProblemVerify  = "verify"  // the verifier found uncovered accesses or illegitimate checks
)

// Problem is one failed acceptance condition.
type Problem struct {
	Kind    string `json:"kind"`
	Package string `json:"package,omitempty"`
	Detail  string `json:"detail"`
}

// ModuleResult is one module's runs and their comparison.
type ModuleResult struct {
	Module Module      `json:"module"`
	Err    string      `json:"error,omitempty"`
	Runs   []*SuiteRun `json:"runs"`
	// Tools summarizes the runs of each tool (medians over runs).
	Tools map[string]*ToolSummary `json:"tools"`
	// WallRatio, CPURatio and RSSRatio are bigfoot's medians over go
	// -race's, 0 where either is missing.
	WallRatio float64   `json:"wall_ratio"`
	CPURatio  float64   `json:"cpu_ratio"`
	RSSRatio  float64   `json:"rss_ratio"`
	Problems  []Problem `json:"problems,omitempty"`
}

// ToolSummary summarizes a module's runs under one tool.
type ToolSummary struct {
	Wall       float64 `json:"wall_s"` // median
	CPU        float64 `json:"cpu_s"`  // median
	PeakRSSKiB int64   `json:"peak_rss_kib"`
	TimedOut   bool    `json:"timed_out,omitempty"`
	// Package counts by status (of the first run), and tests with races
	// over all runs.
	Packages    int    `json:"packages"`
	OK          int    `json:"ok"`
	Fail        int    `json:"fail"`
	NoTests     int    `json:"no_tests"`
	BuildFailed int    `json:"build_failed"`
	Missing     int    `json:"missing"`
	RaceTests   int    `json:"race_tests"`
	Verify      Verify `json:"verify"` // summed over the first run's packages
}

// Built is the number of packages whose test binary was built.
func (s *ToolSummary) Built() int { return s.OK + s.Fail + s.NoTests }

// runsOf returns the runs of tool.
func (res *ModuleResult) runsOf(tool string) []*SuiteRun {
	var rs []*SuiteRun
	for _, r := range res.Runs {
		if r.Tool == tool {
			rs = append(rs, r)
		}
	}
	return rs
}

// status returns a package's status over runs: the status if every run
// agrees, else "flaky (a/b…)".
func status(runs []*SuiteRun, path string) string {
	var seen []string
	for _, r := range runs {
		s := StatusMissing
		if p := r.Packages[path]; p != nil {
			s = p.Status
		}
		if !slices.Contains(seen, s) {
			seen = append(seen, s)
		}
	}
	if len(seen) == 1 {
		return seen[0]
	}
	return "flaky (" + strings.Join(seen, "/") + ")"
}

// built reports whether every run built the package.
func built(runs []*SuiteRun, path string) bool {
	for _, r := range runs {
		if p := r.Packages[path]; p == nil || !p.Built() {
			return false
		}
	}
	return len(runs) > 0
}

// union returns, over runs, the package's tests named by field (Races or
// Failed).
func union(runs []*SuiteRun, path string, field func(*Package) []string) []string {
	var out []string
	for _, r := range runs {
		if p := r.Packages[path]; p != nil {
			for _, t := range field(p) {
				if !slices.Contains(out, t) {
					out = append(out, t)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// compare summarizes res's runs per tool and records its problems. With
// verifying (bigfoot_verify builds), every package bigfoot ran must print
// the verifier's summary, or its zero counts would mean nothing.
func (res *ModuleResult) compare(verifying bool) {
	res.Problems = nil
	res.Tools = map[string]*ToolSummary{}
	if res.Err != "" {
		res.Problems = append(res.Problems, Problem{Kind: ProblemSetup, Detail: res.Err})
	}
	var paths []string
	for _, r := range res.Runs {
		for p := range r.Packages {
			if !slices.Contains(paths, p) {
				paths = append(paths, p)
			}
		}
	}
	slices.Sort(paths)
	for _, r := range res.Runs {
		if res.Tools[r.Tool] == nil {
			res.Tools[r.Tool] = summarize(res.runsOf(r.Tool), paths)
		}
		if r.TimedOut {
			d := fmt.Sprintf("%s run %d killed after %.0fs", r.Tool, r.Index, r.Wall)
			for _, path := range paths {
				if p := r.Packages[path]; p != nil && p.Status == StatusMissing && len(p.Running) > 0 {
					d += fmt.Sprintf("; %s was in %s", path, topLevel(p.Running, 4))
				}
			}
			res.Problems = append(res.Problems, Problem{Kind: ProblemTimeout, Detail: d})
		}
	}
	race, bf := res.runsOf(ToolRace), res.runsOf(ToolBigfoot)
	for _, path := range paths {
		if len(race) > 0 && len(bf) > 0 {
			res.comparePackage(race, bf, path)
		}
		v := verifySum(bf, path)
		switch {
		case v.Uncovered+v.Illegitimate > 0:
			res.Problems = append(res.Problems, Problem{Kind: ProblemVerify, Package: path,
				Detail: fmt.Sprintf("uncovered=%d illegitimate=%d", v.Uncovered, v.Illegitimate)})
		case verifying && v.Lines == 0 && ranTests(bf, path):
			res.Problems = append(res.Problems, Problem{Kind: ProblemVerify, Package: path,
				Detail: "no verifier summary: the test binary did not run the verifier, or did not exit normally"})
		}
	}
	rs, bs := res.Tools[ToolRace], res.Tools[ToolBigfoot]
	res.WallRatio, res.CPURatio, res.RSSRatio = 0, 0, 0
	if rs != nil && bs != nil && !rs.TimedOut && !bs.TimedOut {
		res.WallRatio = ratio(bs.Wall, rs.Wall)
		res.CPURatio = ratio(bs.CPU, rs.CPU)
		res.RSSRatio = ratio(float64(bs.PeakRSSKiB), float64(rs.PeakRSSKiB))
		if res.WallRatio > MaxWallRatio {
			res.Problems = append(res.Problems, Problem{Kind: ProblemSlow,
				Detail: fmt.Sprintf("%.2fx go -race's wall time (%.1fs against %.1fs)", res.WallRatio, bs.Wall, rs.Wall)})
		}
	}
}

// comparePackage records the problems of one package between go -race's
// runs and bigfoot's.
func (res *ModuleResult) comparePackage(race, bf []*SuiteRun, path string) {
	rs, bs := status(race, path), status(bf, path)
	switch {
	case bs == StatusMissing && timedOutRun(bf):
		// Not reached: the timeout problem says so.
	case built(race, path) && !built(bf, path):
		res.Problems = append(res.Problems, Problem{Kind: ProblemBuild, Package: path,
			Detail: fmt.Sprintf("go -race: %s, bigfoot: %s", rs, bs)})
	case built(race, path) && (rs != bs || rs == StatusFail):
		// Both FAIL counts as equal only if the same tests failed: a
		// suite that fails on a race under go -race and on go test's
		// timeout under bigfoot, before reaching that test, does not.
		d := fmt.Sprintf("go -race: %s, bigfoot: %s", rs, bs)
		failed := func(p *Package) []string { return p.Failed }
		onlyBF := minus(union(bf, path, failed), union(race, path, failed))
		onlyRace := minus(union(race, path, failed), union(bf, path, failed))
		if len(onlyBF) > 0 {
			d += "; failed only under bigfoot: " + strings.Join(onlyBF, ", ")
		}
		if len(onlyRace) > 0 {
			d += "; failed only under go -race: " + strings.Join(onlyRace, ", ")
		}
		if rs != bs || len(onlyBF)+len(onlyRace) > 0 {
			res.Problems = append(res.Problems, Problem{Kind: ProblemStatus, Package: path, Detail: d})
		}
	}
	races := func(p *Package) []string { return p.Races }
	if only := minus(union(race, path, races), union(bf, path, races)); len(only) > 0 {
		// A missed race, or one whose schedule bigfoot's runs did not
		// meet: the note on the module says which.
		res.Problems = append(res.Problems, Problem{Kind: ProblemMissed, Package: path,
			Detail: "race reported only by go -race in " + strings.Join(named(only), ", ")})
	}
	if only := minus(union(bf, path, races), union(race, path, races)); len(only) > 0 {
		res.Problems = append(res.Problems, Problem{Kind: ProblemRace, Package: path,
			Detail: "race reported only by bigfoot in " + strings.Join(named(only), ", ")})
	}
}

// named returns tests with "" (a package's output outside any test)
// named as such.
func named(tests []string) []string {
	for i, t := range tests {
		if t == "" {
			tests[i] = "(outside any test)"
		}
	}
	return tests
}

// timedOutRun reports whether one of runs timed out.
func timedOutRun(runs []*SuiteRun) bool {
	return slices.ContainsFunc(runs, func(r *SuiteRun) bool { return r.TimedOut })
}

// topLevel lists the top-level tests among tests, at most n of them.
func topLevel(tests []string, n int) string {
	var top []string
	for _, t := range tests {
		if !strings.Contains(t, "/") {
			top = append(top, t)
		}
	}
	if len(top) > n {
		return strings.Join(top[:n], ", ") + fmt.Sprintf(" and %d more", len(top)-n)
	}
	return strings.Join(top, ", ")
}

// ranTests reports whether some run ran the package's tests.
func ranTests(runs []*SuiteRun, path string) bool {
	for _, r := range runs {
		if p := r.Packages[path]; p != nil && (p.Status == StatusOK || p.Status == StatusFail) {
			return true
		}
	}
	return false
}

// minus returns the elements of a not in b.
func minus(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

// verifySum sums the verifier's counts of a package over runs.
func verifySum(runs []*SuiteRun, path string) Verify {
	var v Verify
	for _, r := range runs {
		if p := r.Packages[path]; p != nil {
			v.add(p.Verify)
		}
	}
	return v
}

// summarize returns the summary of one tool's runs over the packages.
func summarize(runs []*SuiteRun, paths []string) *ToolSummary {
	s := &ToolSummary{}
	var walls, cpus, rss []float64
	for _, r := range runs {
		walls = append(walls, r.Wall)
		cpus = append(cpus, r.CPU)
		rss = append(rss, float64(r.PeakRSSKiB))
		s.TimedOut = s.TimedOut || r.TimedOut
	}
	s.Wall, s.CPU, s.PeakRSSKiB = median(walls), median(cpus), int64(median(rss))
	for _, path := range paths {
		s.Packages++
		p := runs[0].Packages[path]
		if p == nil {
			s.Missing++
			continue
		}
		switch p.Status {
		case StatusOK:
			s.OK++
		case StatusFail:
			s.Fail++
		case StatusNoTests:
			s.NoTests++
		case StatusBuildFailed:
			s.BuildFailed++
		default:
			s.Missing++
		}
		s.Verify.add(p.Verify)
		s.RaceTests += len(union(runs, path, func(p *Package) []string { return p.Races }))
	}
	return s
}

// median returns the median of xs (the mean of the middle two for an
// even count), or 0 if xs is empty.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m]
	}
	return (s[m-1] + s[m]) / 2
}

// ratio returns a/b, or 0 unless both are positive.
func ratio(a, b float64) float64 {
	if a <= 0 || b <= 0 {
		return 0
	}
	return a / b
}

// geoMean returns the geometric mean of the positive numbers in xs, or 0
// if there are none.
func geoMean(xs []float64) float64 {
	sum, n := 0.0, 0
	for _, x := range xs {
		if x > 0 {
			sum += math.Log(x)
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return math.Exp(sum / float64(n))
}
