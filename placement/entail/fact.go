package entail

import (
	"sort"
	"strings"
)

// An Op is the relation of a Fact's term to zero.
type Op uint8

const (
	EQ Op = iota // T == 0
	NE           // T != 0
	LE           // T <= 0
	LT           // T < 0
)

var opNames = [...]string{EQ: "==", NE: "!=", LE: "<=", LT: "<"}

func (op Op) String() string { return opNames[op] }

// A Fact states T op 0 for a linear term T. Facts built by the constructors
// below are normalized (LT over integers becomes LE with T+1), so that
// syntactically equal facts compare equal.
type Fact struct {
	Op Op
	T  Term
}

// Eq returns the fact a == b.
func Eq(a, b Term) Fact { return Fact{Op: EQ, T: a.Sub(b)} }

// Ne returns the fact a != b.
func Ne(a, b Term) Fact { return Fact{Op: NE, T: a.Sub(b)} }

// Le returns the fact a <= b.
func Le(a, b Term) Fact { return Fact{Op: LE, T: a.Sub(b)} }

// Lt returns the fact a < b, normalized to a - b + 1 <= 0.
func Lt(a, b Term) Fact { return Fact{Op: LE, T: a.Sub(b).AddConst(1)} }

// Ge returns the fact a >= b.
func Ge(a, b Term) Fact { return Le(b, a) }

// Gt returns the fact a > b.
func Gt(a, b Term) Fact { return Lt(b, a) }

// Not returns the negation of f.
func (f Fact) Not() Fact {
	switch f.Op {
	case EQ:
		return Fact{Op: NE, T: f.T}
	case NE:
		return Fact{Op: EQ, T: f.T}
	case LE: // ¬(T <= 0) ⇔ T > 0 ⇔ -T < 0 ⇔ -T + 1 <= 0
		return Fact{Op: LE, T: f.T.Scale(-1).AddConst(1)}
	default: // LT: ¬(T < 0) ⇔ -T <= 0
		return Fact{Op: LE, T: f.T.Scale(-1)}
	}
}

// Eval decides a fact whose term is constant; ok is false otherwise.
func (f Fact) Eval() (value, ok bool) {
	if !f.T.IsConst() {
		return false, false
	}
	c := f.T.Const
	switch f.Op {
	case EQ:
		return c == 0, true
	case NE:
		return c != 0, true
	case LE:
		return c <= 0, true
	default:
		return c < 0, true
	}
}

// Equal reports whether f and g are syntactically the same fact.
func (f Fact) Equal(g Fact) bool { return f.Op == g.Op && f.T.Equal(g.T) }

// String prints f as "T op 0".
func (f Fact) String() string { return f.T.String() + " " + f.Op.String() + " 0" }

// key returns a canonical string for the query hyps ⊢ goal; hypotheses are
// a set, so their order does not matter.
func key(hyps []Fact, goal Fact) string {
	hs := make([]string, len(hyps))
	for i, h := range hyps {
		hs[i] = h.String()
	}
	sort.Strings(hs)
	return strings.Join(hs, " ; ") + " |- " + goal.String()
}
