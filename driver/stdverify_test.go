package driver

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/bigfoot-go/bigfoot/instrument"
	"github.com/bigfoot-go/bigfoot/mode"
)

// stdVerifySample are standard-library packages with checks the static
// pass elides (which verify and count builds announce with A), among them
// those of klauspost/compress gzhttp's Test1xxResponses (net/http's
// dependencies) and bench's gzipsha.
var stdVerifySample = []string{
	"bufio", "bytes", "compress/flate", "compress/gzip", "encoding/json",
	"io", "net/textproto", "net/url", "strings", "text/tabwriter",
}

// TestStdVerifyBuildsInstrumentSame: a build with the tag bigfoot_verify
// instruments the same standard-library packages as a plain build, for
// the same reasons, and one with bigfoot_count at least those (it also
// instruments a package whose only accesses are of the static safe class,
// which it counts). Those builds announce each access whose check was
// elided with A; while the shim lacked A, every package with such an
// access was left uninstrumented there ("needs hook A"), net/http among
// them, and the verifier neither saw their accesses nor the detector
// their synchronization.
func TestStdVerifyBuildsInstrumentSame(t *testing.T) {
	if testing.Short() {
		t.Skip("instruments standard-library packages three times")
	}
	env := append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=", "GOWORK=off")
	out, err := exec.Command("go", append([]string{"list", "-f", "{{.ImportPath}} {{.Dir}}"}, stdVerifySample...)...).Output()
	if err != nil {
		t.Fatal(err)
	}
	dirs := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, dir, _ := strings.Cut(l, " ")
		dirs[path] = dir
	}
	excluded := func(flags ...string) map[string]string {
		t.Helper()
		res, err := instrument.Run(context.Background(), instrument.Config{
			Dir: "..", Patterns: stdVerifySample, Std: true, Mode: mode.BigFoot, Env: env,
			BuildFlags: flags, RuntimeHooks: true, SyncOnce: true,
		})
		if err != nil {
			t.Fatal(err)
		}
		why := map[string]string{}
		for path, e := range stdEntries(stdVerifySample, dirs, &Files{Replace: res.Replace, Add: res.Add, Facts: res.Facts}) {
			why[path] = e.Excluded
		}
		return why
	}
	plain := excluded()
	for _, path := range stdVerifySample {
		if plain[path] != "" {
			t.Errorf("%s: not instrumented in a plain build: %s", path, plain[path])
		}
	}
	for _, tag := range []string{"bigfoot_verify", "bigfoot_count"} {
		got := excluded("-tags=" + tag)
		for _, path := range stdVerifySample {
			if got[path] != plain[path] && (tag == "bigfoot_verify" || got[path] != "") {
				t.Errorf("-tags=%s: %s: left out for %q, in a plain build for %q", tag, path, got[path], plain[path])
			}
		}
	}
}
