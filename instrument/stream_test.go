package instrument

import (
	"context"
	"os"
	"reflect"
	"slices"
	"testing"

	"github.com/bigfoot-go/bigfoot/mode"
)

// TestStreamSameAsSummarizeFirst checks the streaming of a run without test
// variants (stream.go) on a module whose main package's plans depend on
// its library's effect summaries: the overlay, notes, facts and plan are
// those of summarizing every package first and rendering them in load
// order, and each package's syntax and type information is released once
// it is rendered, so that a run over many packages does not hold them all.
func TestStreamSameAsSummarizeFirst(t *testing.T) {
	w := newWorkspace(t, "testdata/src/summaries")
	cfg := Config{Dir: w.mod, Patterns: []string{"./..."}, Env: append(os.Environ(), "GOFLAGS=", "GOWORK=off", "GOPROXY=off"), Mode: mode.BigFoot}
	streamed, _, _, err := load(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	first, _, _, err := load(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(streamed) < 2 || !oneVariantEach(streamed) {
		t.Fatalf("want two or more packages without test variants, have %d", len(streamed))
	}
	// Importers first, so that streaming renders in another order than
	// summarizing first does.
	slices.Reverse(streamed)
	slices.Reverse(first)
	if order := dependencyOrder(streamed); order[0].PkgPath == streamed[0].PkgPath {
		t.Fatalf("%s first is the dependency order: the test would not see a reordering", streamed[0].PkgPath)
	}
	got := instrumentPackages(streamed, mode.BigFoot, recording{}, false, built{runtimeHooks: true, syncOnce: true}, nil)
	want := renderPackages(summarizeFirst, first, mode.BigFoot, recording{}, false, built{runtimeHooks: true, syncOnce: true}, nil)
	for _, p := range streamed {
		if p.Syntax != nil || p.TypesInfo != nil {
			t.Errorf("%s: syntax or type information kept after rendering", p.PkgPath)
		}
	}
	if len(got.Replace) == 0 || len(got.Facts) == 0 || len(got.Plan.Sites) == 0 {
		t.Fatalf("nothing instrumented: %d files, %d facts, %d sites", len(got.Replace), len(got.Facts), len(got.Plan.Sites))
	}
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"Replace", got.Replace, want.Replace},
		{"Add", got.Add, want.Add},
		{"Notes", got.Notes, want.Notes},
		{"Facts", got.Facts, want.Facts},
		{"Plan", got.Plan, want.Plan},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s differs between streaming and summarizing first", c.name)
		}
	}
}
