// Package placement decides where the BigFoot race detector checks memory
// accesses: instead of one check per access (FastTrack), a few checks,
// placed before synchronization, at control-flow merges and at returns,
// each covering many accesses, coalesced into field groups and strided
// array ranges. It implements the static analysis of Rhodes, Flanagan and
// Freund, "BigFoot: Static Check Placement for Dynamic Race Detection"
// (PLDI 2017), as described in the thesis chapter
// (Rhodes, Access Classification for Race Detection Optimization, UC
// Santa Cruz 2019, chapter 3), §3.2–§3.5 (cited below by section), over golang.org/x/tools/go/ssa.
//
// # Precise checks
//
// A check covers an access of the same location by the same goroutine if
// it precedes the access with no release in between, or follows it with no
// acquire in between; it is legitimate for the access if it precedes it
// with no acquire in between, or follows it with no release in between
// (Rhodes' thesis §3.2). A placement is precise if every access is covered by some
// check and every check is legitimate for some access: then a trace has a
// data race iff it has a check race. Reads and writes differ (Rhodes' thesis §3.5.1):
// a write check covers reads and writes, a read check only reads; a read
// check is legitimate for any access, a write check only for a write.
//
// # Accesses and paths
//
// An Access is an SSA instruction touching memory another goroutine may
// reach: loads (*ssa.UnOp MUL) and stores through field, index, global and
// pointer addresses; map lookups, updates, deletes, len, clear and range
// (the map is one object, m{}); copy, append, clear of slices and
// []byte→string conversions (ranges). Memory that cannot be shared needs no
// check: Allocs SSA keeps on the stack (Heap == false), compiler state
// (names with '$'), and allocations the function makes and never lets
// escape (escape.go).
//
// A Path names locations in terms of SSA values: a base value and steps,
// printed as Go would write them:
//
//	p.x          field x of the struct p points to
//	a[i]         element i of slice (or array) a
//	a[lo..hi]    elements lo ≤ k < hi
//	a[lo..hi:k]  elements lo, lo+k, lo+2k, … < hi (a strided range, Rhodes' thesis §3.3.1)
//	*p           the whole variable p points to (a captured variable, a global)
//	m{}          the map m
//	d.buf[i]     an extended path (Rhodes' thesis §3.5): element i of the slice loaded
//	             from d.buf; valid until a store or call may change d.buf
//
// Index terms are linear (package entail) over SSA values, so i+1 is the
// term i + 1 over the φ i.
//
// # Contexts
//
// At each point the analysis knows a context H•A (Rhodes' thesis §3.3.1–§3.3.2):
//
//   - H, the history, flows forward: past accesses p◁ (accessed, no
//     release since: a covering check is still owed), past checks p✓
//     (checked, no release since), and boolean facts. In SSA every value is
//     defined once, so a branch condition holds wherever its edge dominates
//     ([Assign] is free) and facts need not be stored in H: blockFacts
//     collects them. Alias facts x = y.f become extended paths.
//   - A, the anticipated accesses p◇, flows backward: every path from here
//     accesses p before any acquire.
//
// Both are greatest fixed points, computed from ⊤ (Rhodes' thesis §3.5).
//
// # Rules (rules.go), per Fig. 3.7
//
//   - [Read]/[Write] (Rhodes' thesis §3.3.3): an access covered by a past check of a
//     covering kind is redundant; otherwise it becomes a past access.
//     Adjacent indices of one array extend a strided range.
//   - [Acq] (Rhodes' thesis §3.3.3): before an acquire, unchecked past accesses are
//     checked; anticipation stops.
//   - [Rel] (Rhodes' thesis §3.3.3): before a release, unchecked past accesses are
//     checked unless anticipated (the later access's check covers them);
//     then past accesses and checks are forgotten.
//   - [Call] (Rhodes' thesis §3.3.3): a call's effects come from KillSets, a
//     whole-program pass over static call edges; unknown callees (interface
//     and func-value calls, functions without bodies) may acquire and
//     release, except the sync-free standard functions of pureStd.
//   - [If] and merges (Rhodes' thesis §3.3.3): the history after a merge is the meet
//     of the predecessors' (what each entails); a past access the meet
//     forgets is checked on its incoming edge, unless anticipated.
//   - [Rename] (Rhodes' thesis §3.3.3): at a φ the history is renamed: on a back edge where
//     φ = φ'+k, the old φ' becomes φ-k; values that do not reach the merge
//     make their properties forgotten (checked).
//   - [Loop] (Rhodes' thesis §3.3.3, 933): for a loop with a trip bound, the header's
//     history also keeps invariant candidates built from its linear
//     induction variables: a[init..φ:k]◁ for each access a[φ] of the body,
//     and "p◁ if the loop ran" (a guard init < φ) for each invariant path
//     accessed on every iteration. A candidate survives if every incoming
//     edge entails it (on entry it is vacuous). After the loop one check of
//     a[0..i] replaces the per-iteration checks.
//   - Returns and explicit panics check every unchecked past access.
//
// A check is needed only where a past access is forgotten, so checks land
// before synchronization, at merges, at returns and panics, and before a
// store or call that may redirect an extended path (BeforeWrite).
//
// # Termination
//
// The thesis assumes loops terminate (Rhodes' thesis §3.3.3): a check deferred past a
// loop that never ends is never made. This package does not: a loop
// without a provable trip bound (an exit test on every iteration comparing
// a linear induction variable with a loop-invariant bound in the direction
// of its step, or a range over a map or string) stops anticipation at its
// entry and back edges and checks every unchecked past access on entering
// it, so nothing is deferred into or past it and its accesses are checked
// on every iteration (LoopEntry, AtMerge). Deferred checks are also made
// before explicit panics; a runtime panic (nil dereference, index out of
// range) can still skip the deferred checks of its goroutine, as in the
// thesis (Rhodes' thesis §3.5.2, "guarantees precision only for error-free traces").
// Irreducible control flow (goto into a loop) makes Analyze fall back to
// per-access checks.
//
// # Coalescing (coalesce.go, §3.4)
//
// At each check point, paths with one designator merge: fields of one base
// into one field group (W p.x,p.y,p.z), index ranges of one array into one
// strided range (coalesceRanges: a single index joins a range a[lo..hi:k]
// only if it is congruent to lo modulo k, and interleaved ranges
// a[lo..hi:2k], a[lo+k..hi+k:2k] become a[lo..hi:k]). The static field
// proxies of §3.4 are not computed: the runtime's shadow is per byte range
// (docs/placement.md, "Not done").
//
// # Refinement
//
// Deferring every check as late as possible can check one past access at
// several forget points (each arm of a branch): the same dynamic cost, more
// code. refine greedily commits such an access where it happens when that
// lowers the static count, which is always precise, and never inside a
// loop the deferred checks are outside of.
//
// # Output
//
// A Plan lists the Accesses and the Checks: each at a Point (before an
// instruction, at a block's end, or on a critical edge the emitter
// splits), with its coalesced Paths, kind, optional Guard, the accesses it
// Covers, and a Reason. Plans whose analysis failed have a Fallback reason
// and one check per access. Summarize reports per-package static and
// loop-weighted counts for FastTrack, RedCard and BigFoot; Format prints a
// plan for `bigfoot analyze`. The tests check each plan's structural
// invariants (coverage, well-formed points, names in scope: Verify). The tests also replay
// every plan on bounded CFG paths and check the definitions of precise
// checks directly (pathcheck_test.go).
//
// # Golden tests
//
// testdata/src/<case> holds Go packages annotated in the manner of
// x/tools' analysistest. A comment
//
//	// want "W p.x,p.y,p.z" "R b.f if 0<i"
//
// lists the BigFoot checks whose Point.Pos is on that line: the kind (R or
// W), the coalesced paths, and the guard if any; `// redcard "..."` lists
// RedCard checks (compared for cases with at least one); `// want
// "fallback <reason>"` on a func line expects the analysis to give up.
// Every comparison is exact, and every access must be covered by some
// check and every check must cover some access.
package placement
