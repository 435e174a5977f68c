package placement

import (
	"testing"

	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"

	"github.com/bigfoot-go/bigfoot/mode"
	"github.com/bigfoot-go/bigfoot/placement/entail"
)

// TestWorkloadPaths runs the bounded path checker (pathcheck_test.go) and
// Verify over the BigFoot plans of every bench workload: the plans the
// build emits for the shapes the bench measures (strided stencils, row
// bands, block-partitioned closures) must be precise.
func TestWorkloadPaths(t *testing.T) {
	if testing.Short() {
		t.Skip("loads every bench workload with its dependencies")
	}
	cfg := &packages.Config{Mode: packages.LoadAllSyntax, Dir: "../bench/workloads"}
	pkgs, err := packages.Load(cfg, "./...")
	if err != nil {
		t.Fatal(err)
	}
	if packages.PrintErrors(pkgs) > 0 {
		t.Fatal("workloads do not load")
	}
	prog, ssapkgs := ssautil.AllPackages(pkgs, ssa.InstantiateGenerics)
	prog.Build()
	ks := NewKillSets(prog)
	prover := entail.NewCached(&entail.Linear{Fallback: entail.NewZ3(1000)})
	for _, p := range ssapkgs {
		if p == nil {
			continue
		}
		t.Run(p.Pkg.Path(), func(t *testing.T) {
			for _, fn := range AnalyzedFunctions(p) {
				plan := Analyze(fn, Config{Mode: mode.BigFoot, Effects: ks, Prover: prover})
				if err := Verify(plan); err != nil {
					t.Error(err)
				}
				checkPlan(t, plan, ks, entail.NewCached(&entail.Linear{}))
			}
		})
	}
}
