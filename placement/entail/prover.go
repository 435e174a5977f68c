package entail

import "sync"

// A Prover decides entailment between linear facts. Entails reports whether
// every integer assignment satisfying all hyps satisfies goal. A Prover may
// answer false when it cannot decide; it must never answer true wrongly.
type Prover interface {
	Entails(hyps []Fact, goal Fact) bool
}

// Stats counts how a Cached prover answered.
type Stats struct {
	Queries   int // calls to Entails
	Syntactic int // answered by a fast path without the cache or solver
	CacheHits int // answered from the cache
	Solver    int // passed to the underlying prover
}

// Cached answers what it can syntactically, remembers the underlying
// prover's answers, and is safe for concurrent use if the underlying prover
// is (the Z3 prover is: it serializes its own solver).
type Cached struct {
	under Prover

	mu    sync.Mutex
	memo  map[string]bool
	stats Stats
}

// NewCached returns a caching prover in front of under.
func NewCached(under Prover) *Cached {
	return &Cached{under: under, memo: make(map[string]bool)}
}

// Entails implements Prover.
func (c *Cached) Entails(hyps []Fact, goal Fact) bool {
	c.mu.Lock()
	c.stats.Queries++
	c.mu.Unlock()
	if v, ok := syntactic(hyps, goal); ok {
		c.mu.Lock()
		c.stats.Syntactic++
		c.mu.Unlock()
		return v
	}
	k := key(hyps, goal)
	c.mu.Lock()
	v, ok := c.memo[k]
	if ok {
		c.stats.CacheHits++
	} else {
		c.stats.Solver++
	}
	c.mu.Unlock()
	if ok {
		return v
	}
	v = c.under.Entails(hyps, goal)
	c.mu.Lock()
	c.memo[k] = v
	c.mu.Unlock()
	return v
}

// Stats returns the counts so far.
func (c *Cached) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}

// syntactic decides the queries that need no solver. It answers only when
// its answer is certain (ok == true).
func syntactic(hyps []Fact, goal Fact) (value, ok bool) {
	if v, isConst := goal.Eval(); isConst && v {
		return true, true
	}
	for _, h := range hyps {
		if hv, isConst := h.Eval(); isConst && !hv {
			return true, true // inconsistent hypotheses entail everything
		}
		if h.Equal(goal) {
			return true, true
		}
		if weaker(h, goal) {
			return true, true
		}
	}
	if len(hyps) == 0 && (goal.Op == EQ || goal.Op == LE) && !goal.T.IsConst() {
		// A non-constant linear equality or upper bound is falsified by
		// some assignment of its variables.
		return false, true
	}
	if v, isConst := goal.Eval(); isConst && !v && len(hyps) == 0 {
		return false, true
	}
	return false, false
}

// weaker reports whether goal follows from h alone because they constrain
// the same linear combination and goal's bound is looser: from T <= 0 or
// T == 0 follows T + c <= 0 for every c <= 0.
func weaker(h, goal Fact) bool {
	if goal.Op != LE || (h.Op != LE && h.Op != EQ) {
		return false
	}
	d := goal.T.Sub(h.T)
	return d.IsConst() && d.Const <= 0
}
