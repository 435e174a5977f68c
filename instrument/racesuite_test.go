package instrument

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"testing"
)

// raceSuiteDir is Go's own race-detector test suite, read in place (it is
// never copied into this repository).
func raceSuiteDir(t testing.TB) string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skip("no go command")
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "src", "runtime", "race", "testdata")
	if _, err := os.Stat(dir); err != nil {
		t.Skip("no race suite in GOROOT")
	}
	return dir
}

// raceSuiteWorkspace copies the suite's portable files into a temporary
// module "racetest".
func raceSuiteWorkspace(t testing.TB) *workspace {
	src := raceSuiteDir(t)
	tmp := t.TempDir()
	skip := map[string]bool{"cgo_test.go": true, "cgo_test_main.go": true, "synctest_test.go": true}
	ents, _ := os.ReadDir(src)
	for _, e := range ents {
		name := e.Name()
		if !strings.HasSuffix(name, "_test.go") || skip[name] {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), `"internal/`) {
			continue
		}
		os.WriteFile(filepath.Join(tmp, name), b, 0o644)
	}
	os.WriteFile(filepath.Join(tmp, "go.mod"), []byte("module racetest\n\ngo 1.26\n"), 0o644)
	return newWorkspace(t, tmp)
}

// TestRaceSuiteCompiles instruments Go's race suite and compiles it.
func TestRaceSuiteCompiles(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	w := raceSuiteWorkspace(t)
	res := w.instrument(t, true)
	for _, n := range res.Notes {
		t.Log("note:", n)
	}
	if out, err := w.goCmd(t, true, "test", "-c", "-o", filepath.Join(w.root, "race.test")); err != nil {
		t.Fatalf("instrumented race suite does not compile:\n%s", out)
	}
}

// TestRaceSuite runs the instrumented race suite with the real runtime and
// compares with the suite's rule: TestRace* must report a race, TestNoRace*
// must not. It is an oracle for development, run with
// BIGFOOT_RACE_SUITE=1; it logs the tests that disagree.
func TestRaceSuite(t *testing.T) {
	if os.Getenv("BIGFOOT_RACE_SUITE") == "" {
		t.Skip("set BIGFOOT_RACE_SUITE=1")
	}
	if !realRuntime() {
		t.Skip("runtime does not build yet")
	}
	w := raceSuiteWorkspace(t)
	w.instrument(t, true)
	bin := filepath.Join(w.root, "race.test")
	if out, err := w.goCmd(t, true, "test", "-c", "-o", bin); err != nil {
		t.Fatalf("compile:\n%s", out)
	}
	cmd := exec.Command(bin, "-test.v", "-test.timeout=5m")
	cmd.Dir = w.mod
	cmd.Env = append(os.Environ(), "GOMAXPROCS=1", "BIGFOOT_OPTIONS=dedup=0")
	out, _ := cmd.CombinedOutput()
	os.WriteFile(filepath.Join(os.TempDir(), "bigfoot-race-suite.out"), out, 0o644)
	fp, miss, pass := classifyRaceOutput(string(out))
	t.Logf("GOARCH=%s pass=%d false-positives=%d misses=%d", runtime.GOARCH, len(pass), len(fp), len(miss))
	t.Logf("false positives: %v", fp)
	t.Logf("misses: %v", miss)
}

var testLine = regexp.MustCompile(`^(=== RUN|--- (PASS|FAIL|SKIP)):? +(Test\w+)`)

// classifyRaceOutput splits -test.v output into tests that disagree with
// the suite's naming rule.
func classifyRaceOutput(out string) (fp, miss, pass []string) {
	raced := map[string]bool{}
	seen := map[string]bool{}
	skipped := map[string]bool{}
	cur := ""
	for _, line := range strings.Split(out, "\n") {
		if m := testLine.FindStringSubmatch(line); m != nil {
			if m[1] == "=== RUN" {
				cur = m[3]
				seen[cur] = true
			}
			if m[2] == "SKIP" {
				skipped[m[3]] = true
			}
			continue
		}
		if strings.Contains(line, "DATA RACE") || strings.Contains(line, "race detected during execution of test") {
			raced[cur] = true
		}
	}
	for name := range seen {
		if strings.Contains(name, "/") {
			continue
		}
		switch {
		case strings.HasPrefix(name, "TestNoRace") && raced[name]:
			fp = append(fp, name)
		case strings.HasPrefix(name, "TestRace") && !raced[name] && !skipped[name]:
			miss = append(miss, name)
		default:
			pass = append(pass, name)
		}
	}
	sort.Strings(fp)
	sort.Strings(miss)
	sort.Strings(pass)
	return fp, miss, pass
}

// TestRaceSuiteRuns runs the instrumented suite (with whatever runtime the
// tests use) and requires it to pass as the plain suite does: the rewrite
// must not change what the tests compute.
func TestRaceSuiteRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	w := raceSuiteWorkspace(t)
	w.instrument(t, true)
	bin := filepath.Join(w.root, "race.test")
	if out, err := w.goCmd(t, true, "test", "-c", "-o", bin); err != nil {
		t.Fatalf("compile:\n%s", out)
	}
	cmd := exec.Command(bin, "-test.timeout=5m")
	cmd.Dir = w.mod
	cmd.Env = append(os.Environ(), "GOMAXPROCS=2", "BIGFOOT_OPTIONS=exitcode=0")
	out, err := cmd.CombinedOutput()
	if err != nil && !realRuntime() {
		t.Fatalf("instrumented suite failed with the fake runtime: %v\n%s", err, tail(string(out), 60))
	}
	t.Logf("%s", tail(string(out), 5))
}

func tail(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
