package driver

import (
	"reflect"
	"strings"
	"testing"

	"github.com/bigfoot-go/bigfoot/mode"
)

func TestParseArgs(t *testing.T) {
	for _, tc := range []struct {
		verb, args string
		want       Invocation // only the fields compared below
	}{
		{"build", "", Invocation{Mode: mode.BigFoot}},
		{"build", "-mode fasttrack -o out -v ./...", Invocation{
			Mode: mode.FastTrack, Output: "out",
			GoArgs: []string{"-o", "out", "-v", "./..."}, Patterns: []string{"./..."}}},
		{"build", "-mode=redcard -tags=a,b -ldflags -s -work .", Invocation{
			Mode: mode.RedCard, Work: true, GoWork: true,
			GoArgs:     []string{"-tags=a,b", "-ldflags", "-s", "-work", "."},
			Patterns:   []string{"."},
			BuildFlags: []string{"-tags=a,b"}}},
		{"build", "-C sub -mod=mod -x p", Invocation{
			Mode: mode.BigFoot, Dir: "sub", X: true,
			GoArgs: []string{"-x", "p"}, Patterns: []string{"p"}, Dropped: []string{"-mod=mod"}}},
		{"build", "-mod readonly p q", Invocation{
			Mode:   mode.BigFoot,
			GoArgs: []string{"-mod", "readonly", "p", "q"}, Patterns: []string{"p", "q"},
			BuildFlags: []string{"-mod=readonly"}}},
		{"test", "-run TestX -count=1 ./a ./b -v -mode fasttrack -timeout 1m -myflag", Invocation{
			Mode:     mode.FastTrack,
			GoArgs:   []string{"-run", "TestX", "-count=1", "./a", "./b", "-v", "-timeout", "1m", "-myflag"},
			Patterns: []string{"./a", "./b"}}},
		{"test", "./a -args -mode x y", Invocation{
			Mode:     mode.BigFoot,
			GoArgs:   []string{"./a", "-args", "-mode", "x", "y"},
			Patterns: []string{"./a"}}},
		{"test", "./a -v extra args", Invocation{
			Mode:     mode.BigFoot,
			GoArgs:   []string{"./a", "-v", "extra", "args"},
			Patterns: []string{"./a"}}},
		{"test", "-c -o t.test -bfv .", Invocation{
			Mode: mode.BigFoot, Verbose: true, Output: "t.test",
			GoArgs: []string{"-c", "-o", "t.test", "."}, Patterns: []string{"."}}},
		{"run", "-mode fasttrack . -mode x -v", Invocation{
			Mode:   mode.FastTrack,
			GoArgs: []string{"."}, Patterns: []string{"."}, ProgArgs: []string{"-mode", "x", "-v"}}},
		{"build", "-deps=modules -deps all .", Invocation{
			Mode: mode.BigFoot, Deps: ScopeAll, GoArgs: []string{"."}, Patterns: []string{"."}}},
		{"test", "-deps main . -deps modules", Invocation{
			Mode: mode.BigFoot, Deps: ScopeModules, GoArgs: []string{"."}, Patterns: []string{"."}}},
		{"run", "-exec=prog a.go b.go arg", Invocation{
			Mode: mode.BigFoot, Exec: []string{"prog"},
			GoArgs: []string{"a.go", "b.go"}, Patterns: []string{"a.go", "b.go"}, ProgArgs: []string{"arg"}}},
	} {
		args := strings.Fields(tc.args)
		got, err := ParseArgs(tc.verb, args)
		if err != nil {
			t.Errorf("ParseArgs(%s %q): %v", tc.verb, tc.args, err)
			continue
		}
		got.Verb, got.buildArgs, got.tagsArg = "", nil, 0
		norm := func(inv *Invocation) {
			for _, s := range []*[]string{&inv.GoArgs, &inv.Patterns, &inv.BuildFlags, &inv.ProgArgs, &inv.Exec, &inv.Dropped} {
				if len(*s) == 0 {
					*s = nil
				}
			}
		}
		norm(got)
		norm(&tc.want)
		if tc.want.Deps == "" {
			tc.want.Deps = DefaultScope
		}
		if !reflect.DeepEqual(*got, tc.want) {
			t.Errorf("ParseArgs(%s %q) =\n\t%+v\nwant\n\t%+v", tc.verb, tc.args, *got, tc.want)
		}
	}
}

func TestParseArgsErrors(t *testing.T) {
	for _, tc := range []struct{ verb, args, want string }{
		{"build", "-race .", "bigfoot replaces -race"},
		{"test", "-race=true .", "bigfoot replaces -race"},
		{"build", "-mode nosuch .", "invalid -mode"},
		{"build", "-mode", "needs an argument"},
		{"build", "-deps=some .", "invalid -deps"},
		{"build", "-deps", "needs an argument"},
		{"build", "-nosuchflag .", "not defined"},
		{"build", "-modfile x.mod .", "-modfile is not supported"},
		{"run", "-v", "no go files"},
		{"vet", ".", "unknown command"},
	} {
		_, err := ParseArgs(tc.verb, strings.Fields(tc.args))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseArgs(%s %q) error = %v, want %q", tc.verb, tc.args, err, tc.want)
		}
		if _, ok := err.(*UsageError); !ok {
			t.Errorf("ParseArgs(%s %q) error is %T, want *UsageError", tc.verb, tc.args, err)
		}
	}
	if _, err := ParseArgs("test", []string{"-h"}); !IsHelp(err) {
		t.Errorf("ParseArgs(test -h) = %v, want help", err)
	}
}

func TestPlainArgs(t *testing.T) {
	inv, err := ParseArgs("test", strings.Fields("-run X -tags t -gcflags=-N -v ./p -count 1"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"-tags", "t", "-gcflags=-N", "-v", "./p"}
	if got := inv.plainArgs(); !reflect.DeepEqual(got, want) {
		t.Errorf("plainArgs = %q, want %q", got, want)
	}
}

func TestFilterGOFLAGS(t *testing.T) {
	kept, dropped := filterGOFLAGS("-mod=mod -tags=x -modfile=a.mod -mod=readonly -race")
	if kept != "-tags=x -mod=readonly" {
		t.Errorf("kept = %q", kept)
	}
	if want := []string{"-mod=mod", "-modfile=a.mod", "-race"}; !reflect.DeepEqual(dropped, want) {
		t.Errorf("dropped = %q, want %q", dropped, want)
	}
}

func TestToolchainVersion(t *testing.T) {
	for in, want := range map[string]string{
		"go1.26.8":                   "1.26.8",
		"go1.27rc1":                  "1.27rc1",
		"go1.26.8 X:nocoverredesign": "1.26.8",
		"devel go1.27-abcdef":        "",
	} {
		if got := toolchainVersion(in); got != want {
			t.Errorf("toolchainVersion(%q) = %q, want %q", in, got, want)
		}
	}
}
