package bench

import (
	"bytes"
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bigfoot-go/bigfoot/bench/internal/peak"
	"github.com/bigfoot-go/bigfoot/mode"
)

// checkShort checks that a Short report has every workload, every tool
// with one successful run, and matching checksums.
func checkShort(t *testing.T, rep *Report, tools []string) {
	t.Helper()
	if err := rep.Err(); err != nil {
		t.Errorf("report has errors:\n%v", err)
	}
	if len(rep.Workloads) != len(Workloads) {
		t.Fatalf("report has %d workloads, want %d", len(rep.Workloads), len(Workloads))
	}
	for i, wr := range rep.Workloads {
		if wr.Name != Workloads[i].Name {
			t.Errorf("workload %d is %s, want %s", i, wr.Name, Workloads[i].Name)
		}
		if wr.Checksum == "" {
			t.Errorf("%s: no checksum", wr.Name)
		}
		for _, tool := range tools {
			tr := wr.Tool(tool)
			if tr == nil || tr.Err != "" || len(tr.Runs) != 1 {
				t.Errorf("%s/%s: %+v", wr.Name, tool, tr)
				continue
			}
			if run := tr.Runs[0]; run.Err != "" || run.Checksum != wr.Checksum {
				t.Errorf("%s/%s: checksum %q, err %q; plain printed %q", wr.Name, tool, run.Checksum, run.Err, wr.Checksum)
			}
		}
	}
}

// TestRunShort runs the harness in Short mode with plain and go -race: no
// bigfoot binary needed.
func TestRunShort(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	out := t.TempDir()
	var progress strings.Builder
	rep, err := Run(context.Background(), Options{
		Short:    true,
		Modes:    []string{Plain, Race},
		OutDir:   out,
		Progress: &progress,
	})
	if err != nil {
		t.Fatal(err)
	}
	checkShort(t, rep, []string{Plain, Race})
	if !strings.Contains(progress.String(), "crypt      race         run 1 of 1") {
		t.Errorf("progress lacks the run lines:\n%s", progress.String())
	}
	for _, f := range []string{MarkdownFile, SVGFile, CSVFile, JSONFile} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
}

func TestRunOptions(t *testing.T) {
	ctx := context.Background()
	if _, err := Run(ctx, Options{Modes: []string{"nosuch"}}); err == nil {
		t.Error("Run accepted an unknown mode")
	}
	if _, err := Run(ctx, Options{Modes: []string{FastTrack}}); err == nil {
		t.Error("Run accepted a bigfoot mode without BigfootBin")
	}
	if _, err := Run(ctx, Options{Modes: []string{Plain}, Workloads: []string{"nosuch"}}); err == nil {
		t.Error("Run accepted an unknown workload")
	}
}

var allModes = flag.Bool("allmodes", false, "run every workload in every placement mode and the verifier in slimstate too, not only bigfoot (make e2e-all-modes)")

// TestRunShortBigfoot builds cmd/bigfoot and runs the harness in Short
// mode in bigfoot mode, then every workload built with the precise-checks
// verifier. With -allmodes it runs every mode, and the verifier in
// slimstate as well: each mode's instrumented standard library is a build
// of its own, several minutes of make test's time on two cores.
func TestRunShortBigfoot(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cmd/bigfoot and instruments every workload")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	if _, err := os.Stat("../cmd/bigfoot"); err != nil {
		t.Skip("no cmd/bigfoot")
	}
	bin := filepath.Join(t.TempDir(), "bigfoot")
	build := exec.Command(goCmd, "build", "-o", bin, "./cmd/bigfoot")
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		t.Skipf("cmd/bigfoot does not build: %v\n%s", err, out)
	}
	modes, verifyModes := []string{Plain, BigFoot}, []string{BigFoot}
	if *allModes {
		modes, verifyModes = []string{Plain, FastTrack, RedCard, SlimState, BigFoot}, []string{SlimState, BigFoot}
	}
	rep, err := Run(context.Background(), Options{
		Short:      true,
		Modes:      modes,
		BigfootBin: bin,
	})
	if err != nil {
		t.Fatal(err)
	}
	checkShort(t, rep, modes)

	// The precise-checks verifier over every workload, in the modes that
	// move checks: no uncovered access, no illegitimate check. One build
	// per mode makes every workload's command (go build's -o with a
	// directory).
	root, _ := filepath.Abs("..")
	for _, mode := range verifyModes {
		bins := t.TempDir() + string(filepath.Separator)
		build := exec.Command(bin, "build", "-mode="+mode, "-tags=bigfoot_verify", "-o", bins, "./bench/workloads/...")
		build.Dir = root
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("bigfoot build -mode=%s -tags=bigfoot_verify: %v\n%s", mode, err, out)
		}
		for _, w := range Workloads {
			t.Run("verify/"+w.Name+"/"+mode, func(t *testing.T) {
				var stderr bytes.Buffer
				run := exec.Command(filepath.Join(bins, w.Name), "-short")
				run.Stderr = &stderr
				if err := run.Run(); err != nil {
					t.Fatalf("%s -short: %v\n%s", w.Name, err, stderr.String())
				}
				summary := ""
				for _, line := range strings.Split(stderr.String(), "\n") {
					if strings.HasPrefix(line, "bigfoot verify: accesses=") {
						summary = line
					}
				}
				if summary == "" || !strings.Contains(summary, " uncovered=0 illegitimate=0") || strings.Contains(summary, "accesses=0 ") {
					t.Errorf("verifier: %q\n%s", summary, stderr.String())
				}
			})
		}
	}
}

func TestParsePeak(t *testing.T) {
	stderr := []byte("bigfoot stats: checks=1\n" + peak.Prefix + "1234\n" + peak.Prefix + "5678\n")
	if kib, ok := parsePeak(stderr); !ok || kib != 5678 {
		t.Fatalf("parsePeak = %d, %v; want the last line's 5678", kib, ok)
	}
	if _, ok := parsePeak([]byte("checksum: 12\n")); ok {
		t.Fatal("parsePeak found a peak in output without one")
	}
}

func TestParseMetrics(t *testing.T) {
	stderr := []byte(peak.Prefix + "1234\n" + peak.MetricsPrefix + "heap_allocs=10 gc_cycles=1\n" + peak.MetricsPrefix + "heap_allocs=4567 gc_cycles=89\n")
	if allocs, gcs := parseMetrics(stderr); allocs != 4567 || gcs != 89 {
		t.Fatalf("parseMetrics = %d, %d; want the last line's 4567, 89", allocs, gcs)
	}
	if allocs, gcs := parseMetrics([]byte("checksum: 12\n")); allocs != 0 || gcs != 0 {
		t.Fatalf("parseMetrics = %d, %d on output without metrics; want 0, 0", allocs, gcs)
	}
}

// TestToolModes checks that the tool names of bigfoot's modes are the
// names mode.Mode parses, and that the other tools are not modes.
func TestToolModes(t *testing.T) {
	for _, m := range mode.All {
		if !isBigfootMode(m.String()) {
			t.Errorf("%v is not a bigfoot mode tool", m)
		}
	}
	for _, tool := range []string{FastTrack, RedCard, SlimState, BigFoot} {
		if _, err := mode.Parse(tool); err != nil {
			t.Errorf("tool %q: %v", tool, err)
		}
	}
	for _, tool := range []string{Plain, Race, Peer} {
		if isBigfootMode(tool) {
			t.Errorf("%q is taken for a bigfoot mode", tool)
		}
	}
}
