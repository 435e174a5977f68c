package placement

import (
	"errors"
	"fmt"

	"golang.org/x/tools/go/ssa"
)

// Verify checks the structural invariants a plan's consumer relies on,
// independently of how the analysis derived it:
//
//   - every access is covered by some check, and every check covers some
//     access (no access without a covering check, no check that cannot be
//     legitimate, Rhodes' thesis §3.2);
//   - every point is well formed: before a non-φ instruction of its block,
//     or on an edge to a successor that is critical;
//   - every SSA value a check names is defined at its point (its block
//     dominates the point's, or it comes earlier in the same block), so the
//     emitter can name it there.
//
// It is not the dynamic precise-checks verifier of §3.5, which checks
// coverage and legitimacy on executed traces.
func Verify(p *Plan) error {
	if p.Fallback != "" {
		if len(p.Checks) != len(p.Accesses) {
			return fmt.Errorf("%s: fallback plan with %d checks for %d accesses", p.Func, len(p.Checks), len(p.Accesses))
		}
		return nil
	}
	var errs []error
	covered := make(map[*Access]bool)
	for _, c := range p.Checks {
		if len(c.Covers) == 0 {
			errs = append(errs, fmt.Errorf("check %v at %v covers no access", c, c.At))
		}
		for _, a := range c.Covers {
			covered[a] = true
		}
		if err := verifyPoint(c.At); err != nil {
			errs = append(errs, fmt.Errorf("check %v: %v", c, err))
			continue
		}
		for _, v := range c.Values() {
			if !definedAt(v, c.At) {
				errs = append(errs, fmt.Errorf("check %v at %v names %s, not defined there", c, c.At, v.Name()))
			}
		}
	}
	for _, a := range p.Accesses {
		if !covered[a] {
			errs = append(errs, fmt.Errorf("%s access %v is covered by no check", kindName(a.Write), a.Path))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s: %w", p.Func, errors.Join(errs...))
	}
	return nil
}

func verifyPoint(pt Point) error {
	b := pt.Block
	if b == nil || pt.Index < 0 || pt.Index >= len(b.Instrs) {
		return fmt.Errorf("point %v out of range", pt)
	}
	if _, ok := b.Instrs[pt.Index].(*ssa.Phi); ok {
		return fmt.Errorf("point %v is before a φ", pt)
	}
	if pt.Edge != nil {
		if pt.Index != len(b.Instrs)-1 {
			return fmt.Errorf("edge point %v not at the block's end", pt)
		}
		succ := false
		for _, s := range b.Succs {
			succ = succ || s == pt.Edge
		}
		if !succ || len(b.Succs) < 2 || len(pt.Edge.Preds) < 2 {
			return fmt.Errorf("edge point %v is not a critical edge", pt)
		}
	}
	return nil
}

// definedAt reports whether v has its value at pt.
func definedAt(v ssa.Value, pt Point) bool {
	instr, ok := v.(ssa.Instruction)
	if !ok {
		return true // parameters, free variables, globals, constants
	}
	if ops, ok := recomputable(v); ok && !definedIn(instr, pt) {
		for _, x := range ops {
			if !definedAt(x, pt) {
				return false
			}
		}
		return true // the emitter evaluates v again at pt
	}
	return definedIn(instr, pt)
}

// definedIn reports whether the instruction instr has run, on every path,
// when control reaches pt.
func definedIn(instr ssa.Instruction, pt Point) bool {
	db := instr.Block()
	if db != pt.Block {
		return db.Dominates(pt.Block)
	}
	if pt.Edge != nil {
		return true
	}
	for i := 0; i < pt.Index; i++ {
		if pt.Block.Instrs[i] == instr {
			return true
		}
	}
	return false
}
