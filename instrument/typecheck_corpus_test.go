package instrument

import (
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
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
					for _, g := range pb.groups {
						if msg, err := w.goCmd(t, true, append(append([]string{"test", "-c", "-o", out}, pb.vet...), g...)...); err != nil {
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
	vet     []string   // -vet=off where go vet rejects the plain tests
	groups  [][]string // the packages whose tests compile, in groups for one go test -c -o DIR/ each
	partial bool       // the tests of some packages do not compile
	build   bool       // partial, and every package compiles without its tests
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
	list, err := goIn(dir, env, "list", "-e", "-f", "{{.ImportPath}}", "./...")
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, list)
	}
	pkgs := strings.Fields(list)
	groups := binaryGroups(pkgs)
	compile := func(vet []string, groups [][]string) (string, error) {
		for _, g := range groups {
			if msg, err := goIn(dir, env, append(append([]string{"test", "-c", "-o", t.TempDir() + string(filepath.Separator)}, vet...), g...)...); err != nil {
				return msg, err
			}
		}
		return "", nil
	}
	msg, err := compile(nil, groups)
	if err == nil {
		return plainBuild{groups: groups}
	}
	pb := plainBuild{vet: []string{"-vet=off"}, groups: groups}
	if _, err := compile(pb.vet, groups); err == nil {
		t.Logf("go vet rejects the plain tests; compiling with -vet=off:\n%s", tail(msg, 10))
		return pb
	}
	pb.groups, pb.partial = nil, true
	for _, p := range pkgs {
		if _, err := goIn(dir, env, "test", "-c", "-vet=off", "-o", t.TempDir()+string(filepath.Separator), p); err == nil {
			pb.groups = append(pb.groups, []string{p})
		} else {
			t.Logf("the plain tests of %s do not compile: only the package is compiled", p)
		}
	}
	_, berr := goIn(dir, env, "build", "./...")
	pb.build = berr == nil
	if len(pb.groups) == 0 && !pb.build {
		t.Skipf("the plain module does not compile: %v\n%s", err, tail(msg, 20))
	}
	t.Logf("the plain tests do not all compile:\n%s", tail(msg, 10))
	return pb
}

// binaryGroups splits packages into as few groups as it can with no two
// packages of a group whose test binaries have the same name: go test -c
// -o DIR/ names each binary after its package's import path, not its
// directory, and refuses two of the same name (github.com/oklog/ulid/v2
// and its command github.com/oklog/ulid/v2/cmd/ulid both make ulid.test).
func binaryGroups(pkgs []string) [][]string {
	var groups [][]string
	seen := map[string]int{} // test binary name → groups holding one
	for _, p := range pkgs {
		name := modules.TestBinaryName(p)
		i := seen[name]
		seen[name]++
		if i == len(groups) {
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], p)
	}
	return groups
}

// goIn runs the go command in dir and returns its combined output.
func goIn(dir string, env []string, args ...string) (string, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir, cmd.Env = dir, env
	msg, err := cmd.CombinedOutput()
	return string(msg), err
}

func TestBinaryGroups(t *testing.T) {
	got := binaryGroups([]string{
		"github.com/oklog/ulid/v2", "github.com/oklog/ulid/v2/cmd/ulid",
		"github.com/golang-jwt/jwt/v5", "github.com/golang-jwt/jwt/v5/cmd/jwt", "github.com/golang-jwt/jwt/v5/request",
		"example.com/v1", "example.com/x/v1", "example.com/v1/cmd/x",
	})
	want := [][]string{
		// v1 is no major-version suffix: example.com/v1 and
		// example.com/x/v1 both make v1.test.
		{"github.com/oklog/ulid/v2", "github.com/golang-jwt/jwt/v5", "github.com/golang-jwt/jwt/v5/request", "example.com/v1", "example.com/v1/cmd/x"},
		{"github.com/oklog/ulid/v2/cmd/ulid", "github.com/golang-jwt/jwt/v5/cmd/jwt", "example.com/x/v1"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("binaryGroups = %q, want %q", got, want)
	}
}
