package corpus

import (
	"bufio"
	"encoding/json"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// The status of a package in one run of go test -json.
const (
	StatusOK          = "ok"
	StatusFail        = "FAIL"
	StatusNoTests     = "no tests" // a skip: no test files, or no test to run
	StatusBuildFailed = "build failed"
	StatusMissing     = "missing" // started but never finished (the run was killed), or never listed
)

// Package is what one run says of one package.
type Package struct {
	ImportPath string `json:"import_path"`
	Status     string `json:"status"`
	// Races are the tests whose output holds a race report ("" for the
	// package's own output, outside any test), sorted.
	Races []string `json:"races,omitempty"`
	// Failed are the top-level tests that failed, sorted.
	Failed []string `json:"failed,omitempty"`
	// Running are the tests started and never finished, sorted: those a
	// killed run was in (StatusMissing only).
	Running []string `json:"running,omitempty"`
	// Verify is the sum of the precise-checks verifier's summary lines in
	// the package's output (bigfoot_verify builds only).
	Verify Verify `json:"verify"`
}

// Built reports whether the package's test binary was built and run.
func (p *Package) Built() bool {
	return p.Status == StatusOK || p.Status == StatusFail || p.Status == StatusNoTests
}

// Verify holds the precise-checks verifier's counts.
type Verify struct {
	Lines        int    `json:"lines"` // summary lines seen: 0 without bigfoot_verify
	Uncovered    uint64 `json:"uncovered"`
	Illegitimate uint64 `json:"illegitimate"`
}

func (v *Verify) add(w Verify) {
	v.Lines += w.Lines
	v.Uncovered += w.Uncovered
	v.Illegitimate += w.Illegitimate
}

// raceMarker begins every race report, go -race's and bigfoot's.
const raceMarker = "WARNING: DATA RACE"

// verifyLine matches the verifier's summary at the exit of a test binary.
var verifyLine = regexp.MustCompile(`bigfoot verify: accesses=\d+ checks=\d+ uncovered=(\d+) illegitimate=(\d+)`)

// event is a line of go test -json (cmd/test2json), with the build events
// of go 1.24 and later.
type event struct {
	Action      string
	Package     string
	Test        string
	Output      string
	ImportPath  string
	FailedBuild string
}

// ParseEvents reads the output of go test -json (or bigfoot test -json) and
// returns its packages by import path. Lines that are not JSON events are
// ignored. A package that started and has no final event is StatusMissing.
func ParseEvents(r io.Reader) (map[string]*Package, error) {
	pkgs := map[string]*Package{}
	get := func(path string) *Package {
		p := pkgs[path]
		if p == nil {
			p = &Package{ImportPath: path, Status: StatusMissing}
			pkgs[path] = p
		}
		return p
	}
	races := map[string]map[string]bool{}
	failed := map[string]map[string]bool{}
	running := map[string]map[string]bool{}
	mark := func(m map[string]map[string]bool, pkg, test string) {
		if m[pkg] == nil {
			m[pkg] = map[string]bool{}
		}
		m[pkg][test] = true
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		var e event
		if json.Unmarshal(line, &e) != nil || e.Package == "" {
			continue // build-output events name ImportPath only
		}
		p := get(e.Package)
		switch e.Action {
		case "run":
			mark(running, e.Package, e.Test)
		case "output":
			if strings.Contains(e.Output, raceMarker) {
				mark(races, e.Package, e.Test)
			}
			if m := verifyLine.FindStringSubmatch(e.Output); m != nil {
				u, _ := strconv.ParseUint(m[1], 10, 64)
				i, _ := strconv.ParseUint(m[2], 10, 64)
				p.Verify.add(Verify{Lines: 1, Uncovered: u, Illegitimate: i})
			}
			if e.Test == "" && (strings.Contains(e.Output, "[build failed]") || strings.Contains(e.Output, "[setup failed]")) {
				p.Status = StatusBuildFailed
			}
		case "fail":
			if e.Test != "" {
				delete(running[e.Package], e.Test)
				if !strings.Contains(e.Test, "/") {
					mark(failed, e.Package, e.Test)
				}
				break
			}
			if e.FailedBuild != "" || p.Status == StatusBuildFailed {
				p.Status = StatusBuildFailed
			} else {
				p.Status = StatusFail
			}
		case "pass":
			delete(running[e.Package], e.Test)
			if e.Test == "" {
				p.Status = StatusOK
			}
		case "skip":
			delete(running[e.Package], e.Test)
			if e.Test == "" {
				p.Status = StatusNoTests
			}
		}
	}
	for path, p := range pkgs {
		p.Races = sortedKeys(races[path])
		p.Failed = sortedKeys(failed[path])
		if p.Status == StatusMissing {
			p.Running = sortedKeys(running[path])
		}
	}
	return pkgs, sc.Err()
}

func sortedKeys(m map[string]bool) []string {
	if len(m) == 0 {
		return nil
	}
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
