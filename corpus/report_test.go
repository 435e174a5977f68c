package corpus

import (
	"os"
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
	// The first report's race run is read again from its kept output,
	// here bigfoot's: the two runs then agree on every package.
	log := filepath.Join(dir, "a", runLog(Module{Path: "example.com/rec", Version: "v0.0.0"}, ToolRace, 1)+".json")
	data, err := os.ReadFile(filepath.Join("testdata", "mixed", "bigfoot.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(log), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(log, data, 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := ReadReports([]string{filepath.Join(dir, "a", "report.json"), filepath.Join(dir, "b", "report.json")}, "merged")
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Modules) != 2 || rep.Command != "merged" {
		t.Fatalf("%d modules, command %q", len(rep.Modules), rep.Command)
	}
	if got, want := verdict(rep.Modules[0]), "slow"; got != want {
		t.Errorf("first module's verdict %q, want %q", got, want)
	}
	if got, want := rep.Modules[1].Problems, recorded(t, 10, 12).Problems; !reflect.DeepEqual(got, want) {
		t.Errorf("second module's problems %+v, want %+v", got, want)
	}
}
