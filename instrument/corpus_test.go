package instrument

import (
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files of TestGolden")

// corpus lists the programs under testdata/src.
func corpus(t *testing.T) []string {
	ents, err := os.ReadDir(filepath.Join("testdata", "src"))
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, e := range ents {
		if e.IsDir() {
			dirs = append(dirs, e.Name())
		}
	}
	return dirs
}

// corpusModes lists the modes a corpus program is instrumented in:
// programs named redcard* test -mode=redcard, loops (the deferred checks
// of slimstate and bigfoot) every mode, groups (field-group checks),
// summaries (calls into another package of the module) and callees
// (callee checks moved into callers) fasttrack and bigfoot, the others
// fasttrack.
func corpusModes(name string) []string {
	switch {
	case strings.HasPrefix(name, "redcard"):
		return []string{"redcard"}
	case name == "loops":
		return []string{"fasttrack", "redcard", "slimstate", "bigfoot"}
	case name == "groups", name == "summaries", name == "callees":
		return []string{"fasttrack", "bigfoot"}
	}
	return []string{"fasttrack"}
}

// corpusRuns lists (program, mode, test name) for every corpus program in
// each of its modes; the test name (and golden directory) is the program's
// name, followed by ".mode" when it runs in several.
func corpusRuns(t *testing.T) [][3]string {
	var out [][3]string
	for _, name := range corpus(t) {
		modes := corpusModes(name)
		for _, m := range modes {
			id := name
			if len(modes) > 1 {
				id += "." + m
			}
			out = append(out, [3]string{name, m, id})
		}
	}
	return out
}

// TestDifferential instruments each corpus program, builds it against the
// runtime, and requires it to print exactly what the plain program prints,
// to report no race (they are race-free), and its tests to pass.
func TestDifferential(t *testing.T) {
	for _, run := range corpusRuns(t) {
		name, mode, id := run[0], run[1], run[2]
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			w := newWorkspace(t, filepath.Join("testdata", "src", name))
			w.mode = mode
			plain, err := w.goCmd(t, false, "run", ".")
			if err != nil {
				t.Fatalf("plain run: %v\n%s", err, plain)
			}
			res := w.instrument(t, true)
			for _, n := range res.Notes {
				t.Log("note:", n)
			}
			if len(res.Replace) == 0 {
				t.Fatal("nothing instrumented")
			}
			got, err := w.goCmd(t, true, "run", ".")
			if err != nil {
				t.Fatalf("instrumented run: %v\n%s", err, got)
			}
			if got != plain {
				t.Errorf("instrumented output differs:\n--- plain\n%s\n--- instrumented\n%s", plain, got)
			}
			if out, err := w.goCmd(t, true, "test", "-count=1", "./..."); err != nil {
				t.Errorf("instrumented tests fail: %v\n%s", err, out)
			}
			if out, err := w.goCmd(t, true, "vet", "."); err != nil {
				t.Logf("go vet of the instrumented program: %v\n%s", err, out)
			}
		})
	}
}

// TestGolden compares the instrumented text of the corpus with
// testdata/golden/<program>/<file>.golden (go test -run TestGolden -update
// rewrites them). The goldens are the reviewed record of what each
// construct becomes.
func TestGolden(t *testing.T) {
	for _, run := range corpusRuns(t) {
		name, mode, id := run[0], run[1], run[2]
		t.Run(id, func(t *testing.T) {
			w := newWorkspace(t, filepath.Join("testdata", "src", name))
			w.mode = mode
			res := w.instrument(t, true)
			got := map[string]string{}
			for _, m := range []map[string][]byte{res.Replace, res.Add} {
				for path, b := range m {
					rel := strings.TrimPrefix(filepath.ToSlash(strings.TrimPrefix(path, w.mod)), "/")
					got[rel] = strings.ReplaceAll(string(b), w.mod, "$MOD")
				}
			}
			dir := filepath.Join("testdata", "golden", id)
			if *update {
				os.RemoveAll(dir)
				os.MkdirAll(dir, 0o755)
				for rel, s := range got {
					os.WriteFile(filepath.Join(dir, strings.ReplaceAll(rel, "/", "__")+".golden"), []byte(s), 0o644)
				}
				return
			}
			ents, _ := os.ReadDir(dir)
			var want []string
			for _, e := range ents {
				want = append(want, e.Name())
			}
			var have []string
			for rel := range got {
				have = append(have, strings.ReplaceAll(rel, "/", "__")+".golden")
			}
			sort.Strings(have)
			if strings.Join(have, " ") != strings.Join(want, " ") {
				t.Fatalf("instrumented files %v, golden files %v", have, want)
			}
			for rel, s := range got {
				b, err := os.ReadFile(filepath.Join(dir, strings.ReplaceAll(rel, "/", "__")+".golden"))
				if err != nil {
					t.Fatal(err)
				}
				if string(b) != s {
					t.Errorf("%s differs from its golden file; got:\n%s", rel, s)
				}
			}
		})
	}
}
