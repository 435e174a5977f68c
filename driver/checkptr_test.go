package driver

import (
	"reflect"
	"testing"
)

// TestCheckptrArgs checks the -gcflags that give bigfoot's build go
// -race's pointer checks: every package's, the user's flags (of GOFLAGS
// and of the command line, in either form) kept with -d=checkptr in front,
// bigfoot's runtime exempt after the last of them, and nothing after
// -args touched.
func TestCheckptrArgs(t *testing.T) {
	const all, exempt = "-gcflags=all=-d=checkptr", "-gcflags=" + checkptrExempt + "=-d=checkptr=0"
	for _, tc := range []struct {
		args    []string
		goflags string
		want    []string
	}{
		{[]string{"."}, "", []string{all, exempt, "-tags=bigfoot_race", "."}},
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
		if got := inv.goArgs(tc.goflags); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("go args of %q with GOFLAGS=%q:\n got %q\nwant %q", tc.args, tc.goflags, got, tc.want)
		}
	}
}
