package instrument

import (
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	modules "github.com/bigfoot-go/bigfoot/corpus"
)

var corpusFlag = flag.String("corpus", "", "TestTypecheckCorpus: the modules of corpus/modules.txt to check (all, or substrings of module paths separated by commas); none without it")

// TestTypecheckCorpus instruments every package and test of each module of
// the corpus (corpus/modules.txt, fetched from the module proxy) in every
// mode, and compiles the instrumented tests against the runtime (go test
// -c with the overlay): what the plain toolchain compiles, the
// instrumented module must compile too, with no file left as it was
// because its rewrite failed (a panic, output that does not parse). It
// needs the network and a long time: it runs only with -corpus (make
// typecheck-all).
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
			pb := plainBuildOf(t, dir, env)
			for _, md := range []string{"fasttrack", "redcard", "slimstate", "bigfoot"} {
				t.Run(md, func(t *testing.T) {
					w := newWorkspace(t, dir)
					w.mode = md
					w.env = append(w.env, "GOPROXY="+os.Getenv("GOPROXY"))
					out := filepath.Join(w.root, "bin") + string(filepath.Separator)
					res := w.instrument(t, true)
					if !pb.partial {
						for _, b := range res.Broken {
							t.Errorf("left uninstrumented, does not load: %s", b)
						}
					}
					for _, n := range res.Notes {
						if (strings.Contains(n, "left uninstrumented") && !strings.Contains(n, "uses cgo")) || strings.Contains(n, "per-access checks (fasttrack)") {
							t.Errorf("%s", tail(n, 20))
						}
					}
					if len(pb.pkgs) > 0 {
						if msg, err := w.goCmd(t, true, append(append([]string{"test", "-c", "-o", out}, pb.vet...), pb.pkgs...)...); err != nil {
							t.Errorf("the instrumented tests do not compile: %v\n%s", err, tail(msg, 40))
						}
					}
					if pb.build {
						if msg, err := w.goCmd(t, true, "build", "./..."); err != nil {
							t.Errorf("the instrumented packages do not compile: %v\n%s", err, tail(msg, 40))
						}
					}
				})
			}
		})
	}
}

// plainBuild is what of a module the plain toolchain compiles, which
// the instrumented module must compile too.
type plainBuild struct {
	vet     []string // -vet=off where go vet rejects the plain tests
	pkgs    []string // the packages whose tests compile: ./... when all do
	partial bool     // the tests of some packages do not compile
	build   bool     // partial, and every package compiles without its tests
}

// plainBuildOf compiles the tests of the module in dir as they are. go
// test -c runs go vet's checks too: a module whose tests only vet rejects
// (backoff/v4: an example of a removed function) is compiled without
// them, plain and instrumented. A module some of whose packages' tests do
// not compile at all (samber/lo v1.53.0: its examples use names that no
// file of the published module declares) is compiled package by package,
// and with go build.
func plainBuildOf(t *testing.T, dir string, env []string) plainBuild {
	t.Helper()
	msg, err := goIn(dir, env, "test", "-c", "-o", t.TempDir()+string(filepath.Separator), "./...")
	if err == nil {
		return plainBuild{pkgs: []string{"./..."}}
	}
	pb := plainBuild{vet: []string{"-vet=off"}, pkgs: []string{"./..."}}
	if _, err := goIn(dir, env, "test", "-c", "-vet=off", "-o", t.TempDir()+string(filepath.Separator), "./..."); err == nil {
		t.Logf("go vet rejects the plain tests; compiling with -vet=off:\n%s", tail(msg, 10))
		return pb
	}
	list, lerr := goIn(dir, env, "list", "-e", "-f", "{{.ImportPath}}", "./...")
	if lerr != nil {
		t.Fatalf("go list: %v\n%s", lerr, list)
	}
	pb.pkgs, pb.partial = nil, true
	for _, p := range strings.Fields(list) {
		if _, err := goIn(dir, env, "test", "-c", "-vet=off", "-o", t.TempDir()+string(filepath.Separator), p); err == nil {
			pb.pkgs = append(pb.pkgs, p)
		} else {
			t.Logf("the plain tests of %s do not compile: only the package is compiled", p)
		}
	}
	_, berr := goIn(dir, env, "build", "./...")
	pb.build = berr == nil
	if len(pb.pkgs) == 0 && !pb.build {
		t.Skipf("the plain module does not compile: %v\n%s", err, tail(msg, 20))
	}
	t.Logf("the plain tests do not all compile:\n%s", tail(msg, 10))
	return pb
}

// goIn runs the go command in dir and returns its combined output.
func goIn(dir string, env []string, args ...string) (string, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir, cmd.Env = dir, env
	msg, err := cmd.CombinedOutput()
	return string(msg), err
}
