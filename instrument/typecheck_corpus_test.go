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
			// go test -c runs go vet's checks too; a module whose tests
			// only vet rejects (backoff/v4: an example of a removed
			// function) is compiled without them, plain and instrumented.
			var vet []string
			msg, err := compilePlain(dir, env)
			if err != nil {
				vet = []string{"-vet=off"}
				if _, err2 := compilePlain(dir, env, vet...); err2 != nil {
					t.Skipf("the plain tests do not compile: %v\n%s", err, tail(msg, 20))
				}
				t.Logf("go vet rejects the plain tests; compiling with -vet=off:\n%s", tail(msg, 10))
			}
			for _, md := range []string{"fasttrack", "redcard", "slimstate", "bigfoot"} {
				t.Run(md, func(t *testing.T) {
					w := newWorkspace(t, dir)
					w.mode = md
					w.env = append(w.env, "GOPROXY="+os.Getenv("GOPROXY"))
					out := filepath.Join(w.root, "bin") + string(filepath.Separator)
					w.instrument(t, true)
					if msg, err := w.goCmd(t, true, append(append([]string{"test", "-c", "-o", out}, vet...), "./...")...); err != nil {
						t.Errorf("the instrumented tests do not compile: %v\n%s", err, tail(msg, 40))
					}
				})
			}
		})
	}
}

// compilePlain compiles the tests of every package of the module in dir
// as they are, with the go test flags given.
func compilePlain(dir string, env []string, flags ...string) (string, error) {
	out, err := os.MkdirTemp("", "plain-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(out)
	args := append(append([]string{"test", "-c", "-o", out + string(filepath.Separator)}, flags...), "./...")
	cmd := exec.Command("go", args...)
	cmd.Dir, cmd.Env = dir, env
	msg, err := cmd.CombinedOutput()
	return string(msg), err
}
