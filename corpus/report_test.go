package corpus

import (
	"path/filepath"
	"reflect"
	"testing"
)

// Reports written by WriteFiles read back as one, compared anew.
func TestReadReports(t *testing.T) {
	dir := t.TempDir()
	for i, wall := range []float64{40, 12} {
		rep := &Report{Tools: []string{ToolRace, ToolBigfoot}, Runs: 1, Modules: []*ModuleResult{recorded(t, 10, wall)}}
		rep.Modules[0].Problems = nil // as an older version might have left them
		if err := rep.WriteFiles(filepath.Join(dir, string(rune('a'+i)))); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := ReadReports([]string{filepath.Join(dir, "a", "report.json"), filepath.Join(dir, "b", "report.json")}, "merged")
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Modules) != 2 || rep.Command != "merged" {
		t.Fatalf("%d modules, command %q", len(rep.Modules), rep.Command)
	}
	if got, want := verdict(rep.Modules[0]), "status, build, slow"; got != want {
		t.Errorf("first module's verdict %q, want %q", got, want)
	}
	if got, want := rep.Modules[1].Problems, recorded(t, 10, 12).Problems; !reflect.DeepEqual(got, want) {
		t.Errorf("second module's problems %+v, want %+v", got, want)
	}
}
