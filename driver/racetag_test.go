package driver

import (
	"reflect"
	"testing"
)

func TestRenameRaceTag(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"//go:build race\n\npackage p\n", "//go:build bigfoot_race\n\npackage p\n"},
		{"// Copyright\n\n//go:build !race && (linux || race)\n\npackage p\n", "// Copyright\n\n//go:build !bigfoot_race && (linux || bigfoot_race)\n\npackage p\n"},
		{"/* doc\n*/\n// +build race,!custom linux\r\n\npackage p\n", "/* doc\n*/\n// +build bigfoot_race,!custom linux\r\n\npackage p\n"},
		{"//go:build racer || norace\n\npackage p\n", ""},
		{"package p\n\n//go:build race\n", ""},
	} {
		got, changed := renameRaceTag([]byte(tc.in))
		if !changed {
			got = nil
		}
		if string(got) != tc.want {
			t.Errorf("renameRaceTag(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestRaceTagArgs(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		goflags string
		want    []string
	}{
		{[]string{"-v", "."}, "", []string{"-tags=bigfoot_race", "-v", "."}},
		{[]string{"-v", "."}, "-tags=a,b -v", []string{"-tags=a,b,bigfoot_race", "-v", "."}},
		{[]string{"-tags", "a b", "."}, "-tags=c", []string{"-tags", "a b bigfoot_race", "."}},
		{[]string{"-tags=a", "-tags=", "."}, "", []string{"-tags=a", "-tags=bigfoot_race", "."}},
	} {
		inv, err := ParseArgs("test", tc.args)
		if err != nil {
			t.Fatal(err)
		}
		if got := inv.tagArgs(tc.goflags); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("go args of %q with GOFLAGS=%q: %q, want %q", tc.args, tc.goflags, got, tc.want)
		}
	}
	if got, want := withTag([]string{"-mod=readonly", "-tags=x"}, "-tags=y", "race"), []string{"-mod=readonly", "-tags=x,race"}; !reflect.DeepEqual(got, want) {
		t.Errorf("withTag: %q, want %q", got, want)
	}
	if got, want := withTag(nil, "-tags=y", "race"), []string{"-tags=y,race"}; !reflect.DeepEqual(got, want) {
		t.Errorf("withTag from GOFLAGS: %q, want %q", got, want)
	}
}

// TestHasTag: the build's tag list is the last -tags flag's, else
// GOFLAGS', as the go command reads them (Request.SyncOnce is off when it
// holds bigfoot_portable).
func TestHasTag(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		goflags string
		want    bool
	}{
		{[]string{"."}, "", false},
		{[]string{"."}, "-tags=a,bigfoot_portable", true},
		{[]string{"-tags=bigfoot_portable", "."}, "", true},
		{[]string{"-tags", "a bigfoot_portable", "."}, "", true},
		{[]string{"-tags=bigfoot_portable", "-tags=a", "."}, "", false},
		{[]string{"-tags=a", "."}, "-tags=bigfoot_portable", false},
		{[]string{"-tags=bigfoot_portablex", "."}, "", false},
	} {
		inv, err := ParseArgs("build", tc.args)
		if err != nil {
			t.Fatal(err)
		}
		if got := inv.hasTag(tc.goflags, "bigfoot_portable"); got != tc.want {
			t.Errorf("hasTag of %q with GOFLAGS=%q: %v, want %v", tc.args, tc.goflags, got, tc.want)
		}
	}
}

// TestRaceTagDirsSkipRuntime: in bigfoot's own module the race runtime's
// packages, their test variants and external tests included, keep the tag
// race as it is (the runtime is compiled as without -race; its files under
// race use Go's race runtime), while the module's other packages get it
// renamed.
func TestRaceTagDirsSkipRuntime(t *testing.T) {
	mod := &listedModule{Path: ModulePath, Dir: "/m"}
	pkgs := []listedPackage{
		{ImportPath: ModulePath + "/detector", Dir: "/m/detector", Module: mod},
		{ImportPath: ModulePath + "/detector [" + ModulePath + "/detector.test]", Dir: "/m/detector", Module: mod},
		{ImportPath: ModulePath + "/shadow_test [" + ModulePath + "/shadow.test]", Dir: "/m/shadow", Module: mod},
		{ImportPath: ModulePath + "/detector.test", Dir: "/m/detector", Module: mod},
		{ImportPath: ModulePath + "/internal/spin", Dir: "/m/internal/spin", Module: mod},
		{ImportPath: ModulePath + "/mode [" + ModulePath + "/mode.test]", Dir: "/m/mode", Module: mod},
	}
	if got, want := raceTagDirs(pkgs, nil, ""), []string{"/m/mode"}; !reflect.DeepEqual(got, want) {
		t.Errorf("raceTagDirs = %v, want %v", got, want)
	}
}
