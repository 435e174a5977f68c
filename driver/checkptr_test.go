package driver

import (
	"reflect"
	"testing"
)

// TestCheckptrArgs checks the -gcflags that give bigfoot's build go
// -race's pointer checks: every package's, the user's flags (of GOFLAGS
// and of the command line, in either form) kept with -d=checkptr in front,
// bigfoot's runtime exempt after the last of them, the standard-library
// packages proved to pass exempt too when the user gives no -gcflags, and
// nothing after -args touched.
func TestCheckptrArgs(t *testing.T) {
	const all, exempt = "-gcflags=all=-d=checkptr", "-gcflags=" + checkptrExempt + "=-d=checkptr=0"
	const math, bits = "-gcflags=math=-d=checkptr=0", "-gcflags=math/bits=-d=checkptr=0"
	proved := []string{"math", "math/bits"}
	for _, tc := range []struct {
		args    []string
		goflags string
		want    []string
	}{
		{[]string{"."}, "", []string{all, exempt, math, bits, "-tags=bigfoot_race", "."}},
		{[]string{"-tags=x", "-v", "."}, "-mod=mod", []string{all, exempt, math, bits, "-tags=x,bigfoot_race", "-v", "."}},
		{[]string{"-gcflags", "-N -l", "."}, "", []string{all, "-tags=bigfoot_race", "-gcflags=-d=checkptr -N -l", exempt, "."}},
		{[]string{"-gcflags=all=-N -l", "-v", "./..."}, "", []string{all, "-tags=bigfoot_race", "-gcflags=all=-d=checkptr -N -l", exempt, "-v", "./..."}},
		{[]string{"-gcflags=", "."}, "", []string{all, "-tags=bigfoot_race", "-gcflags=-d=checkptr", exempt, "."}},
		{[]string{"-gcflags=-d=checkptr=0", "."}, "", []string{all, "-tags=bigfoot_race", "-gcflags=-d=checkptr -d=checkptr=0", exempt, "."}},
		{[]string{"-v", "."}, "-gcflags=example.com/...=-B -v", []string{all, "-gcflags=example.com/...=-d=checkptr -B", exempt, "-tags=bigfoot_race", "-v", "."}},
		{[]string{"-gcflags=-m", ".", "-args", "-gcflags=x"}, "", []string{all, "-tags=bigfoot_race", "-gcflags=-d=checkptr -m", exempt, ".", "-args", "-gcflags=x"}},
	} {
		inv, err := ParseArgs("test", tc.args)
		if err != nil {
			t.Fatal(err)
		}
		if got := inv.goArgs(tc.goflags, proved); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("go args of %q with GOFLAGS=%q:\n got %q\nwant %q", tc.args, tc.goflags, got, tc.want)
		}
	}
}

// TestCheckptrProved checks which standard-library packages lose their
// pointer checks: those proved to pass whose imports are proved too, or
// are unsafe or the runtime's own packages; not a package whose import is
// unproved or not instrumented, not a package under test, not a module's.
func TestCheckptrProved(t *testing.T) {
	std := func(path string, imports ...string) listedPackage {
		return listedPackage{ImportPath: path, Standard: true, Imports: imports}
	}
	pkgs := []listedPackage{
		std("unsafe"),
		std("runtime", "internal/abi"),
		std("internal/abi"),
		std("internal/cpu"),
		std("math/bits"),
		std("math", "internal/cpu", "math/bits", "unsafe"),
		std("unicode"),
		std("reflect", "unsafe", "runtime"),
		std("fmt", "math", "reflect"),
		std("sync", "unsafe"),
		std("container/list", "sync"),
		std("strconv", "math"),
		std("unicode/utf8"),
		{ImportPath: "unicode/utf8 [unicode/utf8.test]", ForTest: "unicode/utf8", Standard: true},
		{ImportPath: "example.com/m", Imports: []string{"math"}},
	}
	proved := func(paths ...string) map[string]*stdEntry {
		m := map[string]*stdEntry{}
		for _, p := range paths {
			m[p] = &stdEntry{PointerChecksPass: true}
		}
		return m
	}
	entries := proved("math/bits", "math", "unicode", "fmt", "container/list", "unicode/utf8", "example.com/m")
	entries["reflect"] = &stdEntry{}
	// sync has no entry: it is not instrumented.
	got := checkptrProved(pkgs, entries)
	want := []string{"math", "math/bits", "unicode"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("checkptrProved = %q, want %q", got, want)
	}
}
