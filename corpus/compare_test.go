package corpus

import (
	"bytes"
	"strings"
	"testing"
)

// recorded returns a module result holding the recorded runs of
// testdata/mixed, with the given wall times.
func recorded(t *testing.T, raceWall, bigfootWall float64) *ModuleResult {
	res := &ModuleResult{Module: Module{Path: "example.com/rec", Version: "v0.0.0", Style: "test"}}
	res.Runs = []*SuiteRun{
		{Tool: ToolRace, Index: 1, Wall: raceWall, CPU: raceWall, PeakRSSKiB: 100 << 10, Packages: parseFile(t, "mixed/race.json")},
		{Tool: ToolBigfoot, Index: 1, Wall: bigfootWall, CPU: bigfootWall, PeakRSSKiB: 50 << 10, Packages: parseFile(t, "mixed/bigfoot.json")},
	}
	res.compare(false)
	return res
}

func TestCompareRecorded(t *testing.T) {
	res := recorded(t, 10, 12)
	want := []Problem{
		{Kind: ProblemStatus, Package: "example.com/rec/e", Detail: "go -race: ok, bigfoot: FAIL; failed only under bigfoot: TestPanicNil"},
		{Kind: ProblemBuild, Package: "example.com/rec/g", Detail: "go -race: ok, bigfoot: build failed"},
	}
	if len(res.Problems) != len(want) {
		t.Fatalf("problems %+v, want %+v", res.Problems, want)
	}
	for i := range want {
		if res.Problems[i] != want[i] {
			t.Errorf("problem %d = %+v, want %+v", i, res.Problems[i], want[i])
		}
	}
	rs, bs := res.Tools[ToolRace], res.Tools[ToolBigfoot]
	if rs.Built() != 7 || bs.Built() != 6 || rs.OK != 4 || bs.OK != 2 || rs.Fail != 2 || bs.Fail != 3 || bs.BuildFailed != 1 {
		t.Errorf("summaries race %+v bigfoot %+v", rs, bs)
	}
	if res.WallRatio != 1.2 || res.RSSRatio != 0.5 {
		t.Errorf("ratios wall %v rss %v, want 1.2 0.5", res.WallRatio, res.RSSRatio)
	}
}

// A suite compared with itself has no problem.
func TestCompareSame(t *testing.T) {
	res := &ModuleResult{Runs: []*SuiteRun{
		{Tool: ToolRace, Wall: 1, Packages: parseFile(t, "mixed/race.json")},
		{Tool: ToolBigfoot, Wall: 1, Packages: parseFile(t, "mixed/race.json")},
	}}
	res.compare(false)
	if len(res.Problems) != 0 {
		t.Errorf("problems %+v, want none", res.Problems)
	}
}

func TestCompareSlow(t *testing.T) {
	res := recorded(t, 10, 31)
	if got := res.Problems[len(res.Problems)-1]; got.Kind != ProblemSlow || !strings.HasPrefix(got.Detail, "3.10x") {
		t.Errorf("last problem %+v, want slow at 3.10x", got)
	}
	if res := recorded(t, 10, 30); verdict(res) != "status, build" {
		t.Errorf("verdict at 3x = %q, want %q", verdict(res), "status, build")
	}
}

// A race in a test where go -race reported none is a problem; one go
// -race reported too is not, in any run.
func TestCompareRaceOnlyBigfoot(t *testing.T) {
	pkg := func(races ...string) map[string]*Package {
		return map[string]*Package{"m/p": {ImportPath: "m/p", Status: StatusFail, Races: races}}
	}
	res := &ModuleResult{Runs: []*SuiteRun{
		{Tool: ToolRace, Index: 1, Wall: 1, Packages: pkg("TestA")},
		{Tool: ToolBigfoot, Index: 1, Wall: 1, Packages: pkg("TestA", "TestB")},
		{Tool: ToolRace, Index: 2, Wall: 1, Packages: pkg()},
		{Tool: ToolBigfoot, Index: 2, Wall: 1, Packages: pkg("", "TestA")},
	}}
	res.compare(false)
	want := Problem{Kind: ProblemRace, Package: "m/p", Detail: "race reported only by bigfoot in (outside any test), TestB"}
	if len(res.Problems) != 1 || res.Problems[0] != want {
		t.Errorf("problems %+v, want %+v", res.Problems, want)
	}
}

// A package that fails under both tools compares equal only if the same
// tests failed: brotli's suite failed on a race under go -race and on go
// test's timeout, in another test, under bigfoot.
func TestCompareBothFail(t *testing.T) {
	pkg := func(failed ...string) map[string]*Package {
		return map[string]*Package{"m/p": {ImportPath: "m/p", Status: StatusFail, Failed: failed}}
	}
	for _, c := range []struct {
		race, bf []string
		want     string
	}{
		{[]string{"TestA"}, []string{"TestA"}, ""},
		{[]string{"TestA"}, []string{"TestB"}, "go -race: FAIL, bigfoot: FAIL; failed only under bigfoot: TestB; failed only under go -race: TestA"},
		{[]string{"TestA", "TestB"}, []string{"TestA"}, "go -race: FAIL, bigfoot: FAIL; failed only under go -race: TestB"},
	} {
		res := &ModuleResult{Runs: []*SuiteRun{
			{Tool: ToolRace, Index: 1, Wall: 1, Packages: pkg(c.race...)},
			{Tool: ToolBigfoot, Index: 1, Wall: 1, Packages: pkg(c.bf...)},
		}}
		res.compare(false)
		var got string
		if len(res.Problems) == 1 && res.Problems[0].Kind == ProblemStatus {
			got = res.Problems[0].Detail
		} else if len(res.Problems) > 0 {
			t.Errorf("race %v bigfoot %v: problems %+v", c.race, c.bf, res.Problems)
			continue
		}
		if got != c.want {
			t.Errorf("race %v bigfoot %v: %q, want %q", c.race, c.bf, got, c.want)
		}
	}
}

// A race go -race reported in a test where no run of bigfoot reported one
// is a problem of its own (a missed race, or a schedule bigfoot's runs
// did not meet).
func TestCompareMissedRace(t *testing.T) {
	pkg := func(races ...string) map[string]*Package {
		return map[string]*Package{"m/p": {ImportPath: "m/p", Status: StatusFail, Failed: []string{"TestA", "TestB"}, Races: races}}
	}
	res := &ModuleResult{Runs: []*SuiteRun{
		{Tool: ToolRace, Index: 1, Wall: 1, Packages: pkg("TestA", "TestB")},
		{Tool: ToolBigfoot, Index: 1, Wall: 1, Packages: pkg("TestA")},
	}}
	res.compare(false)
	want := Problem{Kind: ProblemMissed, Package: "m/p", Detail: "race reported only by go -race in TestB"}
	if len(res.Problems) != 1 || res.Problems[0] != want {
		t.Errorf("problems %+v, want %+v", res.Problems, want)
	}
	if v := verdict(res); v != "missed" {
		t.Errorf("verdict %q, want missed", v)
	}
}

// A status that differs between runs of one tool is flaky, and compared
// as such.
func TestCompareFlaky(t *testing.T) {
	pkg := func(s string) map[string]*Package { return map[string]*Package{"m/p": {ImportPath: "m/p", Status: s}} }
	res := &ModuleResult{Runs: []*SuiteRun{
		{Tool: ToolRace, Packages: pkg(StatusOK)},
		{Tool: ToolBigfoot, Packages: pkg(StatusOK)},
		{Tool: ToolRace, Packages: pkg(StatusOK)},
		{Tool: ToolBigfoot, Packages: pkg(StatusFail)},
	}}
	res.compare(false)
	want := Problem{Kind: ProblemStatus, Package: "m/p", Detail: "go -race: ok, bigfoot: flaky (ok/FAIL)"}
	if len(res.Problems) != 1 || res.Problems[0] != want {
		t.Errorf("problems %+v, want %+v", res.Problems, want)
	}
}

func TestMarkdown(t *testing.T) {
	rep := &Report{Tools: []string{ToolRace, ToolBigfoot}, Runs: 1, Modules: []*ModuleResult{recorded(t, 10, 40)}}
	rep.summarize()
	var b bytes.Buffer
	if err := rep.Markdown(&b); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"| example.com/rec@v0.0.0 | test | 7 | 7 / 6 | 4 / 2 | 2 / 3 | 0 | 10.0 | 40.0 | 4.00 | 4.00 | 100 | 50 | status, build, slow |",
		"### Built by go -race, not by bigfoot\n\n- example.com/rec@v0.0.0: example.com/rec/g: go -race: ok, bigfoot: build failed\n",
		"### Slower than 3x go -race\n",
	} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("Markdown lacks %q:\n%s", s, b.String())
		}
	}
	if rep.Err() == nil {
		t.Error("Err() = nil for a module with problems")
	}
}

// Under bigfoot_verify, a package whose tests ran without the verifier's
// summary is a problem, as are nonzero counts.
func TestCompareVerify(t *testing.T) {
	res := &ModuleResult{Runs: []*SuiteRun{{Tool: ToolBigfoot, Packages: map[string]*Package{
		"m/counted": {Status: StatusFail, Verify: Verify{Lines: 1, Uncovered: 2}},
		"m/silent":  {Status: StatusOK},
		"m/clean":   {Status: StatusOK, Verify: Verify{Lines: 3}},
		"m/none":    {Status: StatusNoTests},
	}}}}
	res.compare(true)
	var got []string
	for _, p := range res.Problems {
		got = append(got, p.Kind+" "+p.Package+": "+p.Detail)
	}
	want := []string{
		"verify m/counted: uncovered=2 illegitimate=0",
		"verify m/silent: no verifier summary: the test binary did not run the verifier, or did not exit normally",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if res.compare(false); len(res.Problems) != 1 {
		t.Errorf("without verifying: %+v, want only the counted package", res.Problems)
	}
}

// A package a killed run never reached is reported as the timeout, not as
// a build failure.
func TestCompareTimeout(t *testing.T) {
	res := &ModuleResult{Runs: []*SuiteRun{
		{Tool: ToolRace, Wall: 100, Packages: map[string]*Package{"m/p": {Status: StatusOK}}},
		{Tool: ToolBigfoot, Wall: 600, TimedOut: true, Index: 1, Packages: map[string]*Package{
			"m/q": {Status: StatusMissing, Running: []string{"TestA", "TestA/x", "TestB", "TestC", "TestD", "TestE"}},
		}},
	}}
	res.compare(false)
	want := Problem{Kind: ProblemTimeout, Detail: "bigfoot run 1 killed after 600s; m/q was in TestA, TestB, TestC, TestD and 1 more"}
	if len(res.Problems) != 1 || res.Problems[0] != want {
		t.Errorf("problems %+v, want %+v", res.Problems, want)
	}
}

// A race reported only by bigfoot, as recorded in a corpus run.
func TestCompareRecordedFalseRace(t *testing.T) {
	res := &ModuleResult{Runs: []*SuiteRun{
		{Tool: ToolRace, Index: 1, Wall: 1, Packages: parseFile(t, "websocket/race.json")},
		{Tool: ToolBigfoot, Index: 1, Wall: 1, Packages: parseFile(t, "websocket/bigfoot.json")},
	}}
	res.compare(false)
	const pkg = "github.com/gorilla/websocket"
	want := []Problem{
		{Kind: ProblemStatus, Package: pkg, Detail: "go -race: ok, bigfoot: FAIL; failed only under bigfoot: TestHost"},
		{Kind: ProblemRace, Package: pkg, Detail: "race reported only by bigfoot in TestHost"},
	}
	if len(res.Problems) != len(want) {
		t.Fatalf("problems %+v, want %+v", res.Problems, want)
	}
	for i := range want {
		if res.Problems[i] != want[i] {
			t.Errorf("problem %d = %+v, want %+v", i, res.Problems[i], want[i])
		}
	}
}
