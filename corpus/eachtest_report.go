package corpus

import (
	"fmt"
	"io"
	"strings"
)

// PackageSummary counts one package's test runs.
type PackageSummary struct {
	Tests        int // tests run
	Ended        int // tests whose process ran to its end
	Summaries    int // of those, the ones that printed the verifier's summary
	Uncovered    uint64
	Illegitimate uint64
	Violations   int // violation lines, counted also in processes killed at the bound
	Failed       int // tests that failed
	FailedRace   int // of those, the ones that fail under go -race too
	Bound        int // tests killed at the bound
	BoundRace    int // of those, the ones go -race does not finish within it either
}

// Summary counts the package's test runs.
func (pt *PackageTests) Summary() PackageSummary {
	var s PackageSummary
	for _, t := range pt.Tests {
		s.Tests++
		s.Uncovered += t.Verify.Uncovered
		s.Illegitimate += t.Verify.Illegitimate
		s.Violations += t.Violations
		if t.Ended() {
			s.Ended++
			s.Summaries += t.Verify.Lines
		}
		switch t.Status {
		case TestFail:
			s.Failed++
			if t.Race == TestFail {
				s.FailedRace++
			}
		case TestBound:
			s.Bound++
			if t.Race == TestBound {
				s.BoundRace++
			}
		}
	}
	return s
}

// Err returns an error naming the packages with problems, or nil: a
// violation the verifier printed, a test process that ran to its end
// without the verifier's summary (in a bigfoot_verify build), a package
// whose tests bigfoot did not build, a module that could not be set up.
// Tests killed at the bound are listed in the report, not counted here:
// they have no verdict, which is not a violation.
func (rep *EachTestReport) Err() error {
	verifying := (&Report{Tags: rep.Tags}).verifying()
	var bad []string
	for _, res := range rep.Modules {
		if res.Err != "" {
			bad = append(bad, res.Module.String())
		}
		for _, pt := range res.Packages {
			s := pt.Summary()
			if pt.Err != "" || s.Uncovered+s.Illegitimate > 0 || s.Violations > 0 || verifying && s.Summaries < s.Ended {
				bad = append(bad, pt.ImportPath)
			}
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return fmt.Errorf("problems in %d packages: %s", len(bad), strings.Join(bad, ", "))
}

// Markdown writes the report as Markdown: a row per package, then the
// tests that did not run cleanly to their end, by kind.
func (rep *EachTestReport) Markdown(w io.Writer) error {
	p := &printer{w: w}
	p.printf("Each test in a process of its own: %d modules, each test bounded by %.0f s, %s", len(rep.Modules), rep.Bound, rep.GoVersion)
	if rep.Tags != "" {
		p.printf(", -tags %s", rep.Tags)
	}
	if rep.Short {
		p.printf(", -test.short")
	}
	if rep.Packages != "" {
		p.printf(", only the packages matching `%s`", rep.Packages)
	}
	if rep.Run != "" {
		p.printf(", only the tests matching `%s`", rep.Run)
	}
	p.printf(", %s.\n", rep.Started.Format("2006-01-02 15:04 UTC"))
	if rep.Command != "" {
		p.printf("Command: `%s`", rep.Command)
		if rep.Commit != "" {
			p.printf(" (bigfoot %s)", rep.Commit)
		}
		p.printf(".\n")
	}
	p.printf("\nTests: top-level tests, examples and fuzz targets; ended: ran to their end (pass, fail or skip); " +
		"summaries: of those, with the verifier's summary; failed and bound: failed, or killed at the bound, under bigfoot " +
		"(in parentheses: of those, under go -race too).\n\n")
	p.printf("| package | tests | ended | summaries | uncovered | illegitimate | failed | bound |\n|---|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, res := range rep.Modules {
		if res.Err != "" {
			p.printf("| %s | – | – | – | – | – | – | – |\n", res.Module)
		}
		for _, pt := range res.Packages {
			if pt.Err != "" {
				p.printf("| %s | did not build | – | – | – | – | – | – |\n", pt.ImportPath)
				continue
			}
			s := pt.Summary()
			p.printf("| %s | %d | %d | %d | %d | %d | %d (%d) | %d (%d) |\n", pt.ImportPath, s.Tests, s.Ended, s.Summaries,
				s.Uncovered, s.Illegitimate, s.Failed, s.FailedRace, s.Bound, s.BoundRace)
		}
	}
	rep.list(p, "Killed at the bound (no verdict)", func(t *TestRun) bool { return t.Status == TestBound })
	rep.list(p, "Verifier violations", func(t *TestRun) bool {
		return t.Verify.Uncovered+t.Verify.Illegitimate > 0 || t.Violations > 0
	})
	if (&Report{Tags: rep.Tags}).verifying() {
		rep.list(p, "Ended without the verifier's summary", func(t *TestRun) bool { return t.Ended() && t.Verify.Lines == 0 })
	}
	rep.list(p, "Failed", func(t *TestRun) bool { return t.Status == TestFail })
	first := true
	for _, res := range rep.Modules {
		for _, pt := range res.Packages {
			if pt.Err == "" {
				continue
			}
			if first {
				p.printf("\n### Did not build under bigfoot\n\n")
				first = false
			}
			p.printf("- %s: %s\n", pt.ImportPath, firstLine(pt.Err))
		}
		if res.Err != "" {
			p.printf("\n- %s: %s\n", res.Module, res.Err)
		}
	}
	return p.err
}

// list prints the tests that match under a heading, if there are any.
func (rep *EachTestReport) list(p *printer, title string, match func(*TestRun) bool) {
	first := true
	for _, res := range rep.Modules {
		for _, pt := range res.Packages {
			for _, t := range pt.Tests {
				if !match(t) {
					continue
				}
				if first {
					p.printf("\n### %s\n\n", title)
					first = false
				}
				p.printf("- %s: %s: %s after %.0f s%s\n", pt.ImportPath, t.Name, t.describe(), t.Wall, raceNote(t))
			}
		}
	}
}

// WriteFiles writes results.md and report.json into dir.
func (rep *EachTestReport) WriteFiles(dir string) error { return writeReport(dir, rep) }
