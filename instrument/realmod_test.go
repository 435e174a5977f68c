package instrument

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRealModules instruments modules from the module cache and runs their
// tests (BIGFOOT_REAL_MODULES="dir1 dir2", directories of modules whose
// dependencies are in the module cache; BIGFOOT_REAL_RUN="^$" only compiles
// them; BIGFOOT_REAL_PKGS selects packages; BIGFOOT_REAL_MODE=redcard
// instruments in that mode). Their tests must pass as they do plainly, with
// no race reported.
func TestRealModules(t *testing.T) {
	mods := strings.Fields(os.Getenv("BIGFOOT_REAL_MODULES"))
	if len(mods) == 0 {
		t.Skip("set BIGFOOT_REAL_MODULES")
	}
	for _, dir := range mods {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			w := newWorkspace(t, dir)
			w.mode = os.Getenv("BIGFOOT_REAL_MODE")
			exec.Command("chmod", "-R", "u+w", w.mod).Run()
			w.env = append(w.env, "GOPROXY="+os.Getenv("GOPROXY"))
			res := w.instrument(t, true)
			for _, n := range res.Notes {
				t.Log("note:", n)
			}
			pkgs := []string{"./..."}
			if p := os.Getenv("BIGFOOT_REAL_PKGS"); p != "" {
				pkgs = strings.Fields(p)
			}
			args := append([]string{"test", "-count=1"}, pkgs...)
			if run := os.Getenv("BIGFOOT_REAL_RUN"); run != "" {
				args = append(args, "-run", run) // e.g. "^$": compile only
			}
			out, err := w.goCmd(t, true, args...)
			full := filepath.Join(os.TempDir(), "bigfoot-real-"+filepath.Base(dir)+".out")
			os.WriteFile(full, []byte(out), 0o644)
			t.Logf("full output in %s", full)
			if err != nil {
				t.Errorf("instrumented tests: %v\n%s", err, tail(out, 80))
			} else {
				t.Logf("%s", tail(out, 20))
			}
		})
	}
}
