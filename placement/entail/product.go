package entail

import "strings"

// Products (nonlinear terms).
//
// A Term is linear over its variables, but a variable may stand for the
// product of two others: the row offset i*n of a flattened 2-D index
// a[i*n+j]. Product names such a variable. Linear reasoning treats it as
// an unknown of its own (sound: what holds for every value of an unknown
// holds for the product), and the queries that Fourier–Motzkin cannot
// prove, that mention a product and that pin one of its factors by an
// equality go to the fallback prover (Linear.Fallback), which for Z3
// multiplies the factors: i = 2 ⊢ i*n = 2n needs it.

// Product returns the name of the variable standing for x·y. The name is
// the same for y·x.
func Product(x, y string) string {
	if y < x {
		x, y = y, x
	}
	return "⟨" + x + " × " + y + "⟩"
}

// factors returns the factors of the product variable name, or ok ==
// false if name is not a product.
func factors(name string) (x, y string, ok bool) {
	if !strings.HasPrefix(name, "⟨") || !strings.HasSuffix(name, "⟩") {
		return "", "", false
	}
	inner := strings.TrimSuffix(strings.TrimPrefix(name, "⟨"), "⟩")
	depth := 0
	for i, r := range inner {
		switch r {
		case '⟨':
			depth++
		case '⟩':
			depth--
		case '×':
			if depth == 0 && i > 0 && strings.HasSuffix(inner[:i], " ") && strings.HasPrefix(inner[i+len("×"):], " ") {
				return inner[:i-1], inner[i+len("×")+1:], true
			}
		}
	}
	return "", "", false
}

// withFactors returns vars and, transitively, the factors of the
// products among them.
func withFactors(vars []string) []string {
	out := append([]string(nil), vars...)
	for i := 0; i < len(out); i++ {
		if x, y, ok := factors(out[i]); ok {
			out = append(out, x, y)
		}
	}
	return out
}

// nonlinearHelps reports whether multiplying the factors may settle a
// query that Linear, with the products as unknowns, found feasible: some
// product of the query has a factor that an equality hypothesis pins
// down (i = 2 makes i·n the linear 2n). Without one, a solver call (~10
// ms through cgo) would almost always find the query feasible too: a
// 2-D stencil's loop asks dozens of such queries.
func nonlinearHelps(hyps []Fact, goal Fact) bool {
	fs := map[string]bool{}
	for _, f := range append([]Fact{goal}, hyps...) {
		for _, v := range f.T.Vars() {
			if x, y, ok := factors(v); ok {
				fs[x], fs[y] = true, true
			}
		}
	}
	if len(fs) == 0 {
		return false
	}
	for _, h := range hyps {
		if h.Op != EQ {
			continue
		}
		for _, v := range h.T.Vars() {
			if fs[v] {
				return true
			}
		}
	}
	return false
}
