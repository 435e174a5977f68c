package placement

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/token"
	"go/types"
	"math"
	"slices"
	"strings"
	"time"

	"golang.org/x/tools/go/ssa"

	"github.com/bigfoot-go/bigfoot/mode"
	"github.com/bigfoot-go/bigfoot/placement/entail"
)

// Config configures Analyze.
type Config struct {
	// Mode selects how much of the analysis runs. mode.RedCard checks
	// accesses in place but drops a check already covered by an earlier
	// check of the same or a larger location, of a covering kind, with no
	// release in between (redundant-check elimination; no motion, no
	// coalescing). mode.BigFoot runs the full placement: checks are
	// deferred to synchronization, merges and returns, coalesced into
	// field groups and strided ranges, and moved out of bounded loops.
	// The modes that drop no check (mode.FastTrack, mode.SlimState) get
	// the trivial plan, every access checked in place.
	Mode mode.Mode
	// Effects gives the synchronization effects of calls; nil treats
	// every call with a body as unknown (may acquire and release).
	Effects *KillSets
	// Prover decides entailment; nil uses a fresh cached Z3 prover per
	// call of Analyze. Share one entail.Cached across functions (per
	// goroutine) to share its cache.
	Prover entail.Prover
	// MaxVisits bounds the fixed-point iteration (block visits per block);
	// past it the analysis falls back to per-access checks. 0 means 50.
	MaxVisits int
	// Safe is the static safe class of the function's package
	// (FindSafeVars): loads and stores of its variables are not
	// accesses. nil: every shared variable is checked.
	Safe *SafeVars
	// Decisions are the package's covered calls and unpublished objects
	// (Decide), BigFoot mode only: the plan lists the function's, and
	// its unpublished accesses are not accesses. nil: none.
	Decisions *Decisions
}

// A Plan is the outcome of Analyze for one function: the checks the
// instrumenter emits instead of one check per access.
type Plan struct {
	Func     *ssa.Function
	Mode     mode.Mode
	Accesses []*Access // every access the fasttrack placement would check
	// Local are the loads and stores of memory no other goroutine can
	// reach (accessesOf): not accesses, never checked.
	Local    []*Access
	Checks   []*Check // the placed checks, in block and instruction order
	Fallback string   // non-empty: analysis gave up, use per-access checks (reason)
	Elapsed  time.Duration

	// With Config.Decisions (BigFoot mode):
	Unpublished []*Access       // accesses to objects not yet published: no check
	Calls       []*CallDecision // calls that call a copy of their callee
	Copies      []string        // the function's own specialized copies
}

// A Check is one placed check statement.
type Check struct {
	At    Point
	Paths []Path // one field group, one strided range, or single paths
	Write bool
	// Guard, if non-nil, makes the check conditional: emit it as
	// `if Guard.Lo < Guard.Hi { check }` (a check deferred past a loop of
	// an access made on every iteration is legitimate only if the loop
	// ran; see doc.go).
	Guard *Guard
	// Covers lists the accesses this check covers: those whose past
	// access it commits, and later accesses made redundant by it.
	Covers []*Access
	Why    Reason
}

// A Guard is the condition Lo < Hi over SSA values.
type Guard struct {
	Lo, Hi entail.Term
	names  *namer
}

func (g *Guard) String() string {
	if g.names == nil {
		return g.Lo.String() + "<" + g.Hi.String()
	}
	return g.names.term(g.Lo) + "<" + g.names.term(g.Hi)
}

// A Reason says why a check is where it is; several bits may be set.
type Reason uint16

const (
	AtAccess     Reason = 1 << iota // at the access itself (fasttrack, redcard)
	Merged                          // covers other accesses of the same location (redundant checks dropped)
	Moved                           // placed away from the accesses it covers
	LoopRange                       // a range covering the accesses of many loop iterations
	FieldGroup                      // several fields of one object coalesced
	BeforeSync                      // before an acquire or release
	BeforeCall                      // before a call that may synchronize
	BeforeReturn                    // before the function returns
	BeforePanic                     // before an explicit panic
	AtMerge                         // where a control-flow merge forgets the access
	LoopEntry                       // before entering a loop with no trip bound
	BeforeWrite                     // before a store or call that may redirect an extended path
)

var reasonNames = []string{"at-access", "merged", "moved", "loop-range", "field-group",
	"before-sync", "before-call", "before-return", "before-panic", "at-merge", "loop-entry", "before-write"}

func (r Reason) String() string {
	var parts []string
	for i, n := range reasonNames {
		if r&(1<<i) != 0 {
			parts = append(parts, n)
		}
	}
	return strings.Join(parts, "|")
}

// A Point is where a check goes.
//
//   - Edge == nil: immediately before Block.Instrs[Index]. Index is never
//     that of a φ. Index == len(Block.Instrs)-1 is the end of the block,
//     before its terminator (Jump, If, Return, Panic).
//   - Edge != nil: on the CFG edge Block→Edge, which is critical (Block has
//     several successors and Edge several predecessors): the emitter must
//     split it. Index is len(Block.Instrs)-1.
//
// A check after the instruction at i (the write of append, whose path names
// the result) is the point before i+1.
type Point struct {
	Block *ssa.BasicBlock
	Index int
	Edge  *ssa.BasicBlock
}

// Pos returns a source position for p, best effort: the instruction's own
// position, else the nearest positioned instruction after it in the block,
// else before it, else the function's.
func (p Point) Pos() token.Pos {
	instrs := p.Block.Instrs
	if p.Edge != nil {
		for _, in := range p.Edge.Instrs {
			if pos := instrPos(in); pos.IsValid() {
				return pos
			}
		}
	}
	for i := p.Index; i < len(instrs); i++ {
		if pos := instrPos(instrs[i]); pos.IsValid() {
			return pos
		}
	}
	for i := p.Index - 1; i >= 0; i-- {
		if pos := instrPos(instrs[i]); pos.IsValid() {
			return pos
		}
	}
	return p.Block.Parent().Pos()
}

// instrPos is in.Pos(), except that an implicit return (falling off the
// end of the body) is placed at the body's closing brace.
func instrPos(in ssa.Instruction) token.Pos {
	if r, ok := in.(*ssa.Return); ok && !r.Pos().IsValid() {
		switch syn := r.Parent().Syntax().(type) {
		case *ast.FuncDecl:
			if syn.Body != nil {
				return syn.Body.Rbrace
			}
		case *ast.FuncLit:
			return syn.Body.Rbrace
		}
		return token.NoPos
	}
	return in.Pos()
}

func (p Point) String() string {
	if p.Edge != nil {
		return fmt.Sprintf("edge %d→%d", p.Block.Index, p.Edge.Index)
	}
	return fmt.Sprintf("b%d[%d]", p.Block.Index, p.Index)
}

// String prints the check as "W p.x,p.y" (the golden-test notation).
func (c *Check) String() string {
	ps := make([]string, len(c.Paths))
	for i, p := range c.Paths {
		ps[i] = p.String()
	}
	s := kindName(c.Write) + " " + strings.Join(ps, ",")
	if c.Guard != nil {
		s += " if " + c.Guard.String()
	}
	return s
}

// StaticChecks returns the number of check statements the plan emits.
func (p *Plan) StaticChecks() int {
	if p.Fallback != "" {
		return len(p.Accesses)
	}
	return len(p.Checks)
}

// Summary aggregates plans for a package.
//
// Static counts are a proxy: BigFoot may place more check statements than
// RedCard (a pending range is checked at every exit of a loop with early
// returns) while executing far fewer. The weighted counts estimate dynamic
// frequency by weighting each check with 10^(loop depth) of its point.
type Summary struct {
	Pkg             string
	Funcs           []FuncStat
	Accesses        int // accesses = fasttrack static checks
	RedCardChecks   int
	Checks          int                       // bigfoot static checks
	Weighted        [mode.BigFoot + 1]float64 // loop-weighted checks, indexed by mode.Mode (SlimState's stays 0)
	Fallbacks       int
	Elapsed         time.Duration
	Prover          entail.Stats
	Z3Calls         int           // queries Fourier-Motzkin left to Z3
	Z3Time          time.Duration // time spent in Z3
	MaxFuncDuration time.Duration
}

// FuncStat is one function's line of a Summary.
type FuncStat struct {
	Func     string
	Accesses int
	RedCard  int
	Checks   int
	Fallback string
	Elapsed  time.Duration
}

// TargetSizes returns the gc compiler's sizes for the target
// architecture (GOARCH of go/build's default context), or amd64's.
func TargetSizes() types.Sizes {
	if s := types.SizesFor("gc", build.Default.GOARCH); s != nil {
		return s
	}
	return types.SizesFor("gc", "amd64")
}

// Summarize analyzes every function of pkg (members, methods, closures) in
// RedCard and BigFoot modes with one shared cached Z3 prover, and returns
// the BigFoot plans. BigFoot mode leaves out the static safe class
// (FindSafeVars) and unpublished accesses (Decide), as the build does;
// the access counts include them.
func Summarize(pkg *ssa.Package, effects *KillSets) (*Summary, []*Plan) {
	z3 := entail.SharedZ3()
	calls0, spent0 := z3.Usage() // the process's prover: count this package's queries
	prover := entail.NewCached(&entail.Linear{Fallback: z3})
	sum := &Summary{Pkg: pkg.Pkg.Path()}
	fns := AnalyzedFunctions(pkg)
	safe := FindSafeVars(pkg, SafeOptions{})
	dec := Decide(fns, NewFacts(effects, TargetSizes()), DecideOptions{Covers: true, Unpublished: true})
	var plans []*Plan
	for _, fn := range fns {
		rc := Analyze(fn, Config{Mode: mode.RedCard, Effects: effects, Prover: prover})
		bf := Analyze(fn, Config{Mode: mode.BigFoot, Effects: effects, Prover: prover, Safe: safe, Decisions: dec})
		plans = append(plans, bf)
		st := FuncStat{Func: fn.String(), Accesses: len(rc.Accesses), RedCard: rc.StaticChecks(),
			Checks: bf.StaticChecks(), Fallback: bf.Fallback, Elapsed: bf.Elapsed}
		sum.Funcs = append(sum.Funcs, st)
		depth := loopDepths(fn)
		for _, p := range []*Plan{rc, bf} {
			for _, c := range p.Checks {
				sum.Weighted[p.Mode] += weight(depth, c.At)
			}
		}
		for _, a := range rc.Accesses { // the static safe class's included
			sum.Weighted[mode.FastTrack] += weight(depth, Point{Block: a.Instr.Block()})
		}
		sum.Accesses += st.Accesses
		sum.RedCardChecks += st.RedCard
		sum.Checks += st.Checks
		if st.Fallback != "" {
			sum.Fallbacks++
		}
		sum.Elapsed += bf.Elapsed
		if bf.Elapsed > sum.MaxFuncDuration {
			sum.MaxFuncDuration = bf.Elapsed
		}
	}
	sum.Prover = prover.Stats()
	calls, spent := z3.Usage()
	sum.Z3Calls, sum.Z3Time = calls-calls0, spent-spent0
	return sum, plans
}

// FuncDurationQuantile returns the q-quantile (0 <= q <= 1, nearest rank)
// of the BigFoot analysis time per function: 0.5 is the median, 0.95 the
// 95th percentile. It is 0 for a summary without functions.
func (s *Summary) FuncDurationQuantile(q float64) time.Duration {
	ds := make([]time.Duration, len(s.Funcs))
	for i, f := range s.Funcs {
		ds[i] = f.Elapsed
	}
	return DurationQuantile(ds, q)
}

// DurationQuantile returns the q-quantile (nearest rank) of ds, or 0 if
// ds is empty. ds is sorted in place.
func DurationQuantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	i := int(math.Ceil(q*float64(len(ds)))) - 1
	return ds[min(max(i, 0), len(ds)-1)]
}

// loopDepths returns the natural-loop nesting depth of each block.
func loopDepths(fn *ssa.Function) map[*ssa.BasicBlock]int {
	a := &analysis{fn: fn, n: newNamer(fn, nil), acc: map[ssa.Instruction][]*Access{}}
	depth := make(map[*ssa.BasicBlock]int)
	for _, l := range a.findLoops() {
		for b := range l.body {
			depth[b]++
		}
	}
	return depth
}

// weight estimates how often a check at p runs: 10^depth, with the
// shallower end of an edge.
func weight(depth map[*ssa.BasicBlock]int, p Point) float64 {
	d := depth[p.Block]
	if p.Edge != nil && depth[p.Edge] < d {
		d = depth[p.Edge]
	}
	return math.Pow(10, float64(d))
}
