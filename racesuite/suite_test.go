package racesuite

import (
	"go/build"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestClassify(t *testing.T) {
	out := `=== RUN   TestRaceA
==================
WARNING: DATA RACE
--- FAIL: TestRaceA (0.00s)
=== RUN   TestNoRaceB
--- PASS: TestNoRaceB (0.00s)
=== RUN   TestRaceC
--- PASS: TestRaceC (0.00s)
=== RUN   TestNoRaceD
WARNING: DATA RACE
=== RUN   TestIssue1
=== RUN   TestRaceSkipped
    x_test.go:1: skip
--- SKIP: TestRaceSkipped (0.00s)
=== RUN   TestRaceMap
fatal error: concurrent map writes
`
	got := map[string]string{}
	for _, r := range Classify([]byte(out), "fatal error: concurrent map writes") {
		got[r.Name] = strings.Fields(r.String())[1]
	}
	want := map[string]string{
		"RaceA": ".", "NoRaceB": ".", "RaceC": "FAILED", "NoRaceD": "FAILED+",
		"RaceSkipped": "SKIPPED", "RaceMap": ".",
	}
	if len(got) != len(want) {
		t.Errorf("got %d results %v, want %d", len(got), got, len(want))
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: got %q, want %q", k, got[k], v)
		}
	}
}

// A race report printed while a test runs counts for an earlier test when
// each of its accesses' stacks has a frame of that test and none of the
// running test's: a racing goroutine left behind by TestRaceChanAsyncRev
// that writes after TestNoRaceChanAsyncCloseRecv started. A report with a
// frame of the running test, or an access in no test's frame, stays with
// the running test.
func TestClassifyLeftover(t *testing.T) {
	report := func(cur, prev, created string) string {
		return `==================
WARNING: DATA RACE
Write at 0x00c000012345 by goroutine 8:
  racesuite_test.` + cur + `()
      /tmp/suite/chan_test.go:55 +0x3a

Previous write at 0x00c000012345 by goroutine 7:
  racesuite_test.` + prev + `()
      /tmp/suite/chan_test.go:57 +0x44

Goroutine 8 (running) created at:
  racesuite_test.` + created + `()
      /tmp/suite/chan_test.go:53 +0x10
==================
`
	}
	out := `=== RUN   TestRaceChanAsyncRev
--- PASS: TestRaceChanAsyncRev (0.00s)
=== RUN   TestNoRaceChanAsyncCloseRecv
` + report("TestRaceChanAsyncRev.func1", "TestRaceChanAsyncRev", "TestRaceChanAsyncRev") + `--- FAIL: TestNoRaceChanAsyncCloseRecv (0.00s)
=== RUN   TestRaceOther
--- PASS: TestRaceOther (0.00s)
=== RUN   TestNoRaceCross
` + report("TestRaceOther.func1", "TestRaceOther", "TestNoRaceCross") + `=== RUN   TestNoRaceHelper
` + report("helper", "TestRaceOther", "TestRaceOther") + `=== RUN   TestNoRaceTwo
` + report("TestRaceOther.func1", "TestRaceChanAsyncRev", "TestRaceOther") + `=== RUN   TestNoRaceOwn
` + report("TestRaceOther.func1", "TestNoRaceOwn.func2", "TestRaceOther") + `--- FAIL: TestNoRaceOwn (0.00s)
`
	got := map[string]string{}
	for _, r := range Classify([]byte(out), "") {
		got[r.Name] = strings.Fields(r.String())[1]
	}
	want := map[string]string{
		"RaceChanAsyncRev": ".", "NoRaceChanAsyncCloseRecv": ".", "RaceOther": "FAILED",
		"NoRaceCross": "FAILED+", "NoRaceHelper": "FAILED+", "NoRaceTwo": "FAILED+", "NoRaceOwn": "FAILED+",
	}
	if len(got) != len(want) {
		t.Errorf("got %d results %v, want %d", len(got), got, len(want))
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: got %q, want %q", k, got[k], v)
		}
	}
}

func TestClassifyCrash(t *testing.T) {
	out := "=== RUN   TestNoRaceA\n--- PASS: TestNoRaceA (0.00s)\n=== RUN   TestNoRaceB\npanic: boom\n"
	crash := CrashReason([]byte(out))
	if crash != "panic: boom" {
		t.Fatalf("CrashReason = %q", crash)
	}
	rs := Classify([]byte(out), crash)
	if len(rs) != 2 || !rs[0].Passed || rs[1].Passed || rs[1].Crashed != "panic: boom" {
		t.Errorf("Classify = %+v %+v", rs[0], rs[1])
	}
	if started := Started([]byte(out)); !started["TestNoRaceA"] || !started["TestNoRaceB"] || len(started) != 2 {
		t.Errorf("Started = %v", started)
	}
	if CrashReason([]byte(out+"ALL TESTS COMPLETE\n")) != "" {
		t.Errorf("complete run reported as crashed")
	}
}

func TestFiles(t *testing.T) {
	dir := filepath.Join(build.Default.GOROOT, "src", "runtime", "race", "testdata")
	if _, err := os.Stat(dir); err != nil {
		t.Skip("no race suite in GOROOT")
	}
	files, err := Files(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		if f.Name == "cgo_test.go" && (f.Skip != "" || !f.Port || filepath.Base(f.Cgo) != "cgo_test_main.go") {
			t.Errorf("cgo_test.go: skip %q, port %v, program %q; want it ported to run cgo_test_main.go", f.Skip, f.Port, f.Cgo)
		}
		if f.Name == "mop_test.go" && (f.Skip != "" || len(f.Tests) < 100) {
			t.Errorf("mop_test.go: skip %q, %d tests", f.Skip, len(f.Tests))
		}
		n += len(f.Tests)
	}
	if n < 300 {
		t.Errorf("found %d tests, want more than 300", n)
	}
}

func TestFloors(t *testing.T) {
	floors, err := Floors("floor.txt")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := floors["fasttrack"]; !ok {
		t.Errorf("floor.txt has no fasttrack line")
	}
}

func TestRunAll(t *testing.T) {
	tests := []string{"TestNoRaceA", "TestRaceB", "TestNoRaceC", "TestIssue1", "TestRaceD"}
	var runs [][]string
	run := func(tests []string) []byte {
		runs = append(runs, tests)
		var out strings.Builder
		for _, name := range tests {
			out.WriteString("=== RUN   " + name + "\n")
			switch name {
			case "TestRaceB":
				out.WriteString("WARNING: DATA RACE\n")
			case "TestNoRaceC":
				out.WriteString("panic: crash in C\n")
				return []byte(out.String())
			}
		}
		out.WriteString("ALL TESTS COMPLETE\n")
		return []byte(out.String())
	}
	restarts := 0
	results := RunAll(tests, run, func(crash string, left int) {
		restarts++
		if crash != "panic: crash in C" || left != 2 {
			t.Errorf("restart(%q, %d)", crash, left)
		}
	})
	if len(runs) != 2 || restarts != 1 || strings.Join(runs[1], " ") != "TestIssue1 TestRaceD" {
		t.Errorf("runs = %q", runs)
	}
	want := map[string]bool{"NoRaceA": true, "RaceB": true, "NoRaceC": false, "RaceD": false}
	if len(results) != len(want) {
		t.Errorf("results = %v", results)
	}
	for name, passed := range want {
		if r := results[name]; r == nil || r.Passed != passed {
			t.Errorf("%s: %+v, want passed=%v", name, r, passed)
		}
	}
	if r := results["NoRaceC"]; r == nil || r.Crashed != "panic: crash in C" {
		t.Errorf("NoRaceC: %+v", r)
	}
}

// TestPort rewrites the internal synctest API to the public one, and
// refuses a Run it does not know.
func TestPort(t *testing.T) {
	src := "import (\n\t\"internal/synctest\"\n\t\"testing\"\n)\n\nfunc TestX(t *testing.T) {\n\tsynctest.Run(func() {\n\t\tsynctest.Wait()\n\t})\n}\n"
	got, err := Port([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := "import (\n\t\"testing/synctest\"\n\t\"testing\"\n)\n\nfunc TestX(t *testing.T) {\n\tsynctest.Test(t, func(*testing.T) {\n\t\tsynctest.Wait()\n\t})\n}\n"
	if string(got) != want {
		t.Errorf("Port =\n%s\nwant\n%s", got, want)
	}
	if _, err := Port([]byte("import \"internal/synctest\"\nvar _ = synctest.Run(f)\n")); err == nil {
		t.Error("Port accepted a synctest.Run it cannot rewrite")
	}
	if got, _ := Port([]byte("package p\n")); string(got) != "package p\n" {
		t.Error("Port changed a file without synctest")
	}
}

// TestPortCgo rewrites cgo_test.go's go run -race into a run of the
// program's binary named by CgoMainEnv, and refuses other uses of
// internal/testenv.
func TestPortCgo(t *testing.T) {
	src := "import (\n\t\"internal/testenv\"\n\t\"os\"\n\t\"os/exec\"\n)\n\nfunc TestNoRaceCgoSync(t *testing.T) {\n\tcmd := exec.Command(testenv.GoToolPath(t), \"run\", \"-race\", \"cgo_test_main.go\")\n}\n"
	got, err := Port([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := "import (\n\t\"os\"\n\t\"os/exec\"\n)\n\nfunc TestNoRaceCgoSync(t *testing.T) {\n\tcmd := exec.Command(os.Getenv(\"" + CgoMainEnv + "\"))\n}\n"
	if string(got) != want {
		t.Errorf("Port =\n%s\nwant\n%s", got, want)
	}
	if _, err := Port([]byte("import \"internal/testenv\"\nvar _ = testenv.Builder()\n")); err == nil {
		t.Error("Port accepted a use of internal/testenv it cannot rewrite")
	}
}
