// Package entail decides entailment between linear integer facts, the
// question BigFoot's placement rules ask at every join and at every check
// site: does the history H entail a fact h (H ⊢ h), and does H•A entail an
// anticipated access (Rhodes' thesis, §3.3, the [If] and
// [Loop] rules and the side conditions of Fig. 3.7).
//
// Facts are linear (in)equalities over named integer variables (SSA values,
// induction variables, lengths). A Prover answers Entails(hyps, goal); the
// Z3 prover asks Z3 whether hyps ∧ ¬goal is unsatisfiable, and Cached puts
// a result cache and syntactic fast paths in front of any Prover, so most
// queries never reach the solver (the thesis reports ~10% of analysis time
// in the solver thanks to caching; Rhodes' thesis, §3.6).
//
// Linear answers most placement queries itself, by Fourier–Motzkin
// elimination with integer tightening over the hypotheses relevant to the
// goal, and passes the rest (those a ≠ hypothesis might decide) to Z3:
// placement queries are tiny, and a cgo round trip to Z3 costs
// milliseconds. The placement analysis uses NewCached(&Linear{Fallback:
// SharedZ3()}): one Z3 context per process.
//
// Every prover is conservative: a query that times out, comes back unknown
// or makes the solver fail is answered "not entailed", which keeps a check
// where it is rather than moving it unsoundly.
package entail
