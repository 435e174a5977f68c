package placement

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"

	"github.com/bigfoot-go/bigfoot/mode"
	"github.com/bigfoot-go/bigfoot/placement/entail"
)

// TestRealPackages analyzes real packages and prints per-package static
// check counts (fasttrack = accesses, redcard, bigfoot) and analysis times:
//
//	BIGFOOT_PKGS=golang.org/x/sync/... go test -run TestRealPackages -v ./placement
//
// BIGFOOT_DIR sets the directory packages are loaded from, BIGFOOT_TESTS
// includes test files (e.g. a copy of $GOROOT/src/runtime/race/testdata),
// BIGFOOT_VERBOSE prints every plan, BIGFOOT_FUNC restricts that to
// functions whose name contains it, BIGFOOT_WORSE lists functions where
// BigFoot places more static checks than RedCard.
//
// Every plan must pass Verify, and with BIGFOOT_PATHS set the bounded
// path checker (pathcheck_test.go).
func TestRealPackages(t *testing.T) {
	patterns := os.Getenv("BIGFOOT_PKGS")
	if patterns == "" {
		t.Skip("set BIGFOOT_PKGS to package patterns")
	}
	cfg := &packages.Config{Mode: packages.LoadAllSyntax, Tests: os.Getenv("BIGFOOT_TESTS") != "", Dir: os.Getenv("BIGFOOT_DIR")}
	pkgs, err := packages.Load(cfg, strings.Fields(patterns)...)
	if err != nil {
		t.Fatal(err)
	}
	packages.PrintErrors(pkgs)
	prog, ssapkgs := ssautil.AllPackages(pkgs, ssa.InstantiateGenerics)
	prog.Build()
	start := time.Now()
	ks := NewKillSets(prog)
	t.Logf("kill sets: %v", time.Since(start))
	var total Summary
	for _, p := range ssapkgs {
		if p == nil {
			continue
		}
		sum, plans := Summarize(p, ks)
		for _, plan := range plans {
			if err := Verify(plan); err != nil {
				t.Error(err)
			}
			if os.Getenv("BIGFOOT_PATHS") != "" {
				checkPlan(t, plan, ks, entail.NewCached(&entail.Linear{}))
			}
		}
		var avg time.Duration
		if len(sum.Funcs) > 0 {
			avg = sum.Elapsed / time.Duration(len(sum.Funcs))
		}
		fmt.Printf("%-30s funcs=%4d static ft/rc/bf=%5d %5d %5d  weighted=%.0f %.0f %.0f  fallbacks=%d time=%v avg=%v max=%v prover=%+v\n",
			sum.Pkg, len(sum.Funcs), sum.Accesses, sum.RedCardChecks, sum.Checks,
			sum.Weighted[mode.FastTrack], sum.Weighted[mode.RedCard], sum.Weighted[mode.BigFoot], sum.Fallbacks,
			sum.Elapsed.Round(time.Millisecond), avg.Round(time.Microsecond), sum.MaxFuncDuration.Round(time.Microsecond), sum.Prover)
		if os.Getenv("BIGFOOT_VERBOSE") != "" {
			for _, plan := range plans {
				if f := os.Getenv("BIGFOOT_FUNC"); f != "" && !strings.Contains(plan.Func.String(), f) {
					continue
				}
				if os.Getenv("BIGFOOT_SSA") != "" {
					plan.Func.WriteTo(os.Stdout)
				}
				rc := Analyze(plan.Func, Config{Mode: mode.RedCard, Effects: ks})
				fmt.Printf("  %s: accesses=%d redcard=%d bigfoot=%d %v\n", plan.Func, len(plan.Accesses), rc.StaticChecks(), plan.StaticChecks(), plan.Elapsed)
				for _, c := range plan.Checks {
					fmt.Printf("      BF %v %v %v covers=%d\n", prog.Fset.Position(c.At.Pos()), c, c.Why, len(c.Covers))
				}
				for _, c := range rc.Checks {
					fmt.Printf("      RC %v %v %v covers=%d\n", prog.Fset.Position(c.At.Pos()), c, c.Why, len(c.Covers))
				}
			}
		}
		slow := append([]FuncStat(nil), sum.Funcs...)
		sort.Slice(slow, func(i, j int) bool { return slow[i].Elapsed > slow[j].Elapsed })
		for i := 0; i < len(slow) && i < 2; i++ {
			fmt.Printf("    slowest %s: %v (accesses=%d)\n", slow[i].Func, slow[i].Elapsed.Round(time.Microsecond), slow[i].Accesses)
		}
		if os.Getenv("BIGFOOT_WORSE") != "" {
			for _, f := range sum.Funcs {
				if f.Checks > f.RedCard {
					fmt.Printf("    worse %s: redcard=%d bigfoot=%d\n", f.Func, f.RedCard, f.Checks)
				}
			}
		}
		for _, f := range sum.Funcs {
			if f.Fallback != "" && !strings.HasPrefix(f.Fallback, "irreducible") {
				fmt.Printf("    fallback %s: %.200s\n", f.Func, f.Fallback)
			}
		}
		total.Accesses += sum.Accesses
		total.RedCardChecks += sum.RedCardChecks
		total.Checks += sum.Checks
		for i := range total.Weighted {
			total.Weighted[i] += sum.Weighted[i]
		}
		total.Elapsed += sum.Elapsed
		total.Funcs = append(total.Funcs, sum.Funcs...)
	}
	fmt.Printf("TOTAL funcs=%d static ft/rc/bf=%d %d %d weighted=%.0f %.0f %.0f time=%v\n", len(total.Funcs), total.Accesses, total.RedCardChecks, total.Checks,
		total.Weighted[mode.FastTrack], total.Weighted[mode.RedCard], total.Weighted[mode.BigFoot], total.Elapsed.Round(time.Millisecond))
}
