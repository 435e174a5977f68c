package entail

import (
	"fmt"
	"sync"
	"time"

	"github.com/aclements/go-z3/z3"
)

// Z3 is a Prover backed by the Z3 SMT solver (Debian package libz3-dev),
// over the theory of integer arithmetic, nonlinear for products (Product). A Z3 context is not safe
// for concurrent use, so one Z3 prover serializes its queries; make one per
// worker for parallel analysis.
type Z3 struct {
	mu     sync.Mutex
	ctx    *z3.Context
	solver *z3.Solver
	ints   z3.Sort
	vars   map[string]z3.Int
	errs   int
	calls  int           // queries asked
	spent  time.Duration // time in the solver
}

// NewZ3 returns a Z3 prover whose queries give up after timeoutMillis
// (a query that gives up is "not entailed").
func NewZ3(timeoutMillis uint) *Z3 {
	cfg := z3.NewContextConfig()
	cfg.SetUint("timeout", timeoutMillis)
	ctx := z3.NewContext(cfg)
	return &Z3{
		ctx:    ctx,
		solver: z3.NewSolver(ctx),
		ints:   ctx.IntSort(),
		vars:   make(map[string]z3.Int),
	}
}

// shared is the process's Z3 prover (SharedZ3).
var shared struct {
	once sync.Once
	z3   *Z3
}

// SharedZ3 returns the process's Z3 prover, made on first use with a
// timeout of a second per query. A context costs about 20 MB that Z3's
// allocator keeps after the context is deleted, so a build that
// instruments one package after another (forty in a small module's test
// build) asks one context for all of them instead of making one each:
// its queries are independent (the solver is reset before each) and
// serialized by its lock.
func SharedZ3() *Z3 {
	shared.once.Do(func() { shared.z3 = NewZ3(1000) })
	return shared.z3
}

// Entails implements Prover: hyps ⊢ goal iff hyps ∧ ¬goal is unsatisfiable.
// Unknown results, timeouts and solver errors (which go-z3 raises as
// panics) all answer false.
func (p *Z3) Entails(hyps []Fact, goal Fact) (entailed bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls++
	start := time.Now()
	defer func() { p.spent += time.Since(start) }()
	defer func() {
		if r := recover(); r != nil {
			p.errs++
			entailed = false
			p.solver = z3.NewSolver(p.ctx) // the old one may be mid-push
		}
	}()
	p.solver.Reset()
	for _, h := range hyps {
		p.solver.Assert(p.formula(h))
	}
	p.solver.Assert(p.formula(goal.Not()))
	sat, err := p.solver.Check()
	if err != nil {
		return false
	}
	return !sat
}

// Usage returns how many queries Z3 was asked and the time it spent.
func (p *Z3) Usage() (calls int, spent time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.calls, p.spent
}

// Errors returns how many queries failed inside Z3.
func (p *Z3) Errors() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.errs
}

func (p *Z3) formula(f Fact) z3.Bool {
	t := p.term(f.T)
	zero := p.ctx.FromInt(0, p.ints).(z3.Int)
	switch f.Op {
	case EQ:
		return t.Eq(zero)
	case NE:
		return t.NE(zero)
	case LE:
		return t.LE(zero)
	case LT:
		return t.LT(zero)
	}
	panic(fmt.Sprintf("entail: unknown op %d", f.Op))
}

func (p *Z3) term(t Term) z3.Int {
	sum := p.ctx.FromInt(t.Const, p.ints).(z3.Int)
	for _, m := range t.Monos {
		sum = sum.Add(p.ctx.FromInt(m.Coef, p.ints).(z3.Int).Mul(p.variable(m.Var)))
	}
	return sum
}

// variable returns the Z3 term of the variable name: the product of its
// factors for a product (Product), else an integer constant.
func (p *Z3) variable(name string) z3.Int {
	if x, y, ok := factors(name); ok {
		return p.variable(x).Mul(p.variable(y))
	}
	v, ok := p.vars[name]
	if !ok {
		v = p.ctx.IntConst(name)
		p.vars[name] = v
	}
	return v
}
