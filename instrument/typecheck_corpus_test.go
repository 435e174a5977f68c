package instrument

import (
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	modules "github.com/bigfoot-go/bigfoot/corpus"
)

var corpusFlag = flag.String("corpus", "", "TestTypecheckCorpus: the modules of corpus/modules.txt to check (all, or substrings of module paths separated by commas); none without it")

// TestTypecheckCorpus instruments every package and test of each module of
// the corpus (corpus/modules.txt, fetched from the module proxy) in every
// mode, and compiles the instrumented tests against the runtime (go test
// -c with the overlay): what the plain toolchain compiles, the
// instrumented module must compile too. It needs the network and a long
// time: it runs only with -corpus (make typecheck-all).
func TestTypecheckCorpus(t *testing.T) {
	if *corpusFlag == "" {
		t.Skip("needs -corpus (make typecheck-all)")
	}
	ms := modules.Modules()
	if *corpusFlag != "all" {
		ms = modules.Select(ms, *corpusFlag)
	}
	env := append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "GOTOOLCHAIN=local")
	for _, m := range ms {
		t.Run(m.Path, func(t *testing.T) {
			dir, err := modules.Fetch(context.Background(), m, t.TempDir(), env, os.Stderr)
			if err != nil {
				t.Skipf("fetching: %v", err)
			}
			plain := exec.Command("go", "test", "-c", "-o", t.TempDir()+string(filepath.Separator), "./...")
			plain.Dir, plain.Env = dir, env
			if msg, err := plain.CombinedOutput(); err != nil {
				t.Skipf("the plain tests do not compile: %v\n%s", err, tail(string(msg), 20))
			}
			for _, md := range []string{"fasttrack", "redcard", "slimstate", "bigfoot"} {
				t.Run(md, func(t *testing.T) {
					w := newWorkspace(t, dir)
					w.mode = md
					w.env = append(w.env, "GOPROXY="+os.Getenv("GOPROXY"))
					out := filepath.Join(w.root, "bin") + string(filepath.Separator)
					w.instrument(t, true)
					if msg, err := w.goCmd(t, true, "test", "-c", "-o", out, "./..."); err != nil {
						t.Errorf("the instrumented tests do not compile: %v\n%s", err, tail(msg, 40))
					}
				})
			}
		})
	}
}
