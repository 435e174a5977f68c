package corpus

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestTestBinaryName(t *testing.T) {
	for _, tc := range []struct{ path, want string }{
		{"github.com/panjf2000/ants/v2", "ants.test"},
		{"github.com/panjf2000/ants/v2/pkg/sync", "sync.test"},
		{"gopkg.in/yaml.v3", "yaml.v3.test"},
		{"example.com/m/v1", "v1.test"},
		{"example.com/m/v0", "v0.test"},
		{"example.com/m/v10", "m.test"},
		{"v2", "v2.test"},
	} {
		if got := TestBinaryName(tc.path); got != tc.want {
			t.Errorf("TestBinaryName(%q) = %q, want %q", tc.path, got, tc.want)
		}
	}
}

// TestScanTestOutput reads the verbose output of test processes: the
// verifier's summary (as detector.verifyLine prints it) and violations (as
// detector's reportViolations prints them), skips, and a name that
// matched nothing.
func TestScanTestOutput(t *testing.T) {
	const summary = "bigfoot verify: accesses=120 checks=80 uncovered=%s illegitimate=%s spans=9 unverified_spans=0\n"
	violation := "bigfoot verify: uncovered write of 8 bytes at 0x00c000012345 (site a.go:3:4 m.f) in span of goroutine 7 ending at goroutine exit\n" +
		"bigfoot verify: illegitimate read check of 8 bytes at 0x00c000012345 (site a.go:5:4 m.g) in span of goroutine 7 ending at program exit\n"
	for _, tc := range []struct {
		name, status, out string
		wantStatus        string
		want              Verify
		violations        int
	}{
		{"TestA", TestPass, "=== RUN   TestA\n--- PASS: TestA (0.00s)\nPASS\n" + strings.NewReplacer("%s", "0").Replace(summary),
			TestPass, Verify{Lines: 1}, 0},
		{"TestA", TestPass, "=== RUN   TestA\n    a_test.go:3: x\n--- SKIP: TestA (0.00s)\nPASS\n" + strings.NewReplacer("%s", "0").Replace(summary),
			TestSkip, Verify{Lines: 1}, 0},
		{"TestA", TestFail, "=== RUN   TestA\n" + violation + "--- FAIL: TestA (0.00s)\nFAIL\n" + strings.NewReplacer("%s", "1").Replace(summary),
			TestFail, Verify{Lines: 1, Uncovered: 1, Illegitimate: 1}, 2},
		{"TestA", TestBound, "=== RUN   TestA\n" + violation, TestBound, Verify{}, 2},
		{"TestA", TestPass, "testing: warning: no tests to run\nPASS\n", TestNoTests, Verify{}, 0},
		{"ExampleA", TestPass, "=== RUN   ExampleA\n--- PASS: ExampleA (0.00s)\nPASS\n", TestPass, Verify{}, 0},
		// A subtest's skip is not the test's.
		{"TestA", TestPass, "=== RUN   TestA\n=== RUN   TestA/b\n--- PASS: TestA (0.00s)\n    --- SKIP: TestA/b (0.00s)\nPASS\n", TestPass, Verify{}, 0},
	} {
		tr := &TestRun{Name: tc.name, Status: tc.status}
		if err := scanTestOutput(strings.NewReader(tc.out), tr); err != nil {
			t.Fatal(err)
		}
		if tr.Status != tc.wantStatus || tr.Verify != tc.want || tr.Violations != tc.violations {
			t.Errorf("scanning %q as %s: status %s, %+v, %d violations; want %s, %+v, %d",
				tc.out, tc.status, tr.Status, tr.Verify, tr.Violations, tc.wantStatus, tc.want, tc.violations)
		}
	}
}

// TestRunEachTest runs the fixture module testdata/eachtest under bigfoot
// with the verifier, each test in its own process: every test that ends
// has the verifier's summary with no violation, the test that never ends
// is killed at the bound under both tools, the failing test fails under
// both, the benchmark is not run, the package whose tests do not build is
// reported, the two packages with one test binary name both run, and the
// test that -run and the package that -pkg leave out do not.
func TestRunEachTest(t *testing.T) {
	if testing.Short() {
		t.Skip("builds bigfoot and the fixture under both tools; skipped with -short")
	}
	tmp := t.TempDir()
	bigfoot := filepath.Join(tmp, "bigfoot")
	if out, err := exec.Command("go", "build", "-o", bigfoot, "../cmd/bigfoot").CombinedOutput(); err != nil {
		t.Fatalf("building bigfoot: %v\n%s", err, out)
	}
	dir := filepath.Join(tmp, "eachtest")
	if err := copyTree(dir, "testdata/eachtest"); err != nil {
		t.Fatal(err)
	}
	var progress bytes.Buffer
	opts := EachTestOptions{
		Bigfoot:  bigfoot,
		Tags:     "bigfoot_verify",
		Bound:    30 * time.Second,                                                        // TestNeverEnds never ends; the others end at once
		Run:      regexp.MustCompile("^(Test[^U]|Fuzz|Example)"),                          // all but TestUnselected
		Packages: regexp.MustCompile("^example.com/eachtest(/inner/eachtest|/nobuild)?$"), // all but unselected
		Progress: &progress,
	}
	res := &ModuleTests{Module: Module{Path: "example.com/eachtest"}}
	env := append(os.Environ(), "GOTOOLCHAIN=local")
	err := runTests(context.Background(), opts, env, dir, tmp, res, &progress, func() error { return nil })
	if err != nil {
		t.Fatalf("runTests: %v\n%s", err, progress.String())
	}
	got := map[string]string{}
	for _, pt := range res.Packages {
		if pt.Err != "" {
			got[pt.ImportPath] = "did not build"
			continue
		}
		for _, tr := range pt.Tests {
			s := tr.Status
			if tr.Ended() && tr.Verify != (Verify{Lines: 1}) || tr.Violations != 0 {
				s += ", verifier " + tr.describe()
			}
			if tr.Race != "" {
				s += ", race " + tr.Race
			}
			got[pt.ImportPath+" "+tr.Name] = s
		}
	}
	want := map[string]string{
		"example.com/eachtest TestPass":                 TestPass,
		"example.com/eachtest TestSkip":                 TestSkip,
		"example.com/eachtest TestFail":                 TestFail + ", race " + TestFail,
		"example.com/eachtest TestNeverEnds":            TestBound + ", race " + TestBound,
		"example.com/eachtest FuzzCount":                TestPass,
		"example.com/eachtest ExampleCount":             TestPass,
		"example.com/eachtest/inner/eachtest TestInner": TestPass,
		"example.com/eachtest/nobuild":                  "did not build",
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: %q, want %q", k, got[k], w)
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: unexpected run: %s", k, g)
		}
	}
	rep := &EachTestReport{Tags: opts.Tags, Modules: []*ModuleTests{res}}
	if err := rep.Err(); err == nil || !strings.Contains(err.Error(), "problems in 1 packages: example.com/eachtest/nobuild") {
		t.Errorf("Err() = %v, want the package that did not build only", err)
	}
	var md bytes.Buffer
	if err := rep.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"| example.com/eachtest | 6 | 5 | 5 | 0 | 0 | 1 (1) | 1 (1) |",
		"| example.com/eachtest/inner/eachtest | 1 | 1 | 1 | 0 | 0 | 0 (0) | 0 (0) |",
		"- example.com/eachtest: TestNeverEnds: hit the bound after ",
	} {
		if !strings.Contains(md.String(), s) {
			t.Errorf("Markdown lacks %q:\n%s", s, md.String())
		}
	}
	if t.Failed() {
		t.Logf("progress:\n%s", progress.String())
	}
}
