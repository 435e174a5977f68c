package instrument

import "testing"

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
	src := "// +build linux\n\npackage p\n"
	got := string(languageUpgrade("go1.16", "/m/p.go", []byte(src)))
	want := "//go:build go1.21\n\n//line /m/p.go:1\n// (bigfoot) build linux\n\npackage p\n"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	src = "//go:build linux\n\npackage p\n"
	got = string(languageUpgrade("go1.16", "/m/p.go", []byte(src)))
	if want := "//go:build (linux) && go1.21\n\npackage p\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := string(languageUpgrade("go1.22", "/m/p.go", []byte(src))); got != src {
		t.Errorf("a go1.22 file was changed: %q", got)
	}
}

func TestShortHashStable(t *testing.T) {
	if shortHash("main.go") != shortHash("main.go") || shortHash("a.go") == shortHash("b.go") {
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
