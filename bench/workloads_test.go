package bench

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
)

var checksumLine = regexp.MustCompile(`^checksum: [0-9a-f]+\n$`)

// TestWorkloadsList checks that Workloads and bench/workloads agree.
func TestWorkloadsList(t *testing.T) {
	entries, err := os.ReadDir("workloads")
	if err != nil {
		t.Fatal(err)
	}
	var dirs, names []string
	for _, e := range entries {
		if e.IsDir() {
			dirs = append(dirs, e.Name())
		}
	}
	for _, w := range Workloads {
		names = append(names, w.Name)
	}
	slices.Sort(names)
	if !slices.Equal(dirs, names) {
		t.Errorf("bench/workloads has %v, Workloads lists %v", dirs, names)
	}
	if len(names) < 12 {
		t.Errorf("%d workloads, want at least 12", len(names))
	}
	if _, err := lookup([]string{"nosuch"}); err == nil {
		t.Error("lookup of an unknown workload succeeded")
	}
}

// TestWorkloads builds each workload plain and runs it at its -short size
// with GOMAXPROCS=1 and GOMAXPROCS=2: it must print exactly one checksum
// line, the same both times.
func TestWorkloads(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, w := range Workloads {
		t.Run(w.Name, func(t *testing.T) {
			t.Parallel()
			bin := filepath.Join(dir, w.Name)
			build := exec.Command(goCmd, "build", "-o", bin, PackagePath(w.Name))
			build.Dir = root
			if out, err := build.CombinedOutput(); err != nil {
				t.Fatalf("go build: %v\n%s", err, out)
			}
			var sums []string
			for _, procs := range []string{"1", "2"} {
				cmd := exec.Command(bin, "-short")
				cmd.Env = append(os.Environ(), "GOMAXPROCS="+procs)
				var stderr []byte
				out, err := cmd.Output()
				if ee, ok := err.(*exec.ExitError); ok {
					stderr = ee.Stderr
				}
				if err != nil {
					t.Fatalf("GOMAXPROCS=%s: %v\n%s", procs, err, stderr)
				}
				if !checksumLine.Match(out) {
					t.Fatalf("GOMAXPROCS=%s: output %q is not one checksum line", procs, out)
				}
				sums = append(sums, string(out))
			}
			if sums[0] != sums[1] {
				t.Errorf("GOMAXPROCS=1 printed %q, GOMAXPROCS=2 printed %q", sums[0], sums[1])
			}
		})
	}
}
