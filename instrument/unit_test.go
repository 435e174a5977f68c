package instrument

import (
	"go/build/constraint"
	"strings"
	"testing"
)

func TestVersionAtLeast(t *testing.T) {
	for _, c := range []struct {
		have, want string
		ok         bool
	}{
		{"go1.22", "go1.22", true},
		{"go1.21.3", "go1.22", false},
		{"go1.26", "go1.21", true},
		{"go1.9", "go1.21", false},
	} {
		if got := versionAtLeast(c.have, c.want); got != c.ok {
			t.Errorf("versionAtLeast(%q, %q) = %v", c.have, c.want, got)
		}
	}
}

func TestLanguageUpgrade(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"// +build linux\n\npackage p\n",
			"//go:build go1.21\n\n//line /m/p.go:1:1\n// (bigfoot) build linux\n\npackage p\n"},
		{"//+build !foo\n\npackage p\n",
			"//go:build go1.21\n\n//line /m/p.go:1:1\n// (bigfoot) build !foo\n\npackage p\n"},
		{"// Copyright.\n\n//+build linux darwin\n// +build amd64,!foo\n\npackage p\n",
			"//go:build go1.21\n\n//line /m/p.go:1:1\n// Copyright.\n\n// (bigfoot) build linux darwin\n// (bigfoot) build amd64,!foo\n\npackage p\n"},
		{"//go:build linux\n\npackage p\n",
			"//go:build (linux) && go1.21\n\npackage p\n"},
		{"//go:build linux || darwin\n//+build linux darwin\n\npackage p\n",
			"//go:build (linux || darwin) && go1.21\n// (bigfoot) build linux darwin\n\npackage p\n"},
		{"//go:build\t!foo\n\npackage p\n",
			"//go:build (!foo) && go1.21\n\npackage p\n"},
	} {
		got := string(languageUpgrade("go1.16", "/m/p.go", []byte(c.src)))
		if got != c.want {
			t.Errorf("languageUpgrade(%q):\ngot  %q\nwant %q", c.src, got, c.want)
		}
		// What go vet's buildtag check requires: no +build line is left
		// beside the //go:build line.
		for _, l := range strings.Split(got, "\n") {
			if constraint.IsPlusBuild(l) {
				t.Errorf("languageUpgrade(%q) keeps %q", c.src, l)
			}
		}
	}
	src := "//go:build linux\n\npackage p\n"
	if got := string(languageUpgrade("go1.22", "/m/p.go", []byte(src))); got != src {
		t.Errorf("a go1.22 file was changed: %q", got)
	}
}

func TestShortHashStable(t *testing.T) {
	if a, b := shortHash("main.go"), shortHash("main.go"); a != b || shortHash("a.go") == shortHash("b.go") {
		t.Error("shortHash is not a stable function of the name")
	}
}

func TestHasBuildTag(t *testing.T) {
	for _, tc := range []struct {
		flags []string
		want  bool
	}{
		{[]string{"-tags=bigfoot_count"}, true},
		{[]string{"-tags=a,bigfoot_count"}, true},
		{[]string{"-tags", "a bigfoot_count"}, true},
		{[]string{"--tags=bigfoot_count"}, true},
		{[]string{"-tags=bigfoot_counter"}, false},
		{[]string{"-mod=readonly", "-tags"}, false},
		{nil, false},
	} {
		if got := hasBuildTag(tc.flags, "bigfoot_count"); got != tc.want {
			t.Errorf("hasBuildTag(%q) = %v, want %v", tc.flags, got, tc.want)
		}
	}
}
