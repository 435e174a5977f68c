package entail

import (
	"strconv"
	"strings"
)

// A Term is a linear combination of integer variables plus a constant:
// Const + Σ Coef·Var. The zero Term is the constant 0. Terms are values:
// every operation returns a new Term in canonical form (monomials sorted by
// variable name, no zero coefficients), so equal terms print equally.
type Term struct {
	Const int64
	Monos []Mono
}

// A Mono is one monomial Coef·Var of a Term.
type Mono struct {
	Var  string
	Coef int64
}

// Var returns the term 1·name.
func Var(name string) Term { return Term{Monos: []Mono{{Var: name, Coef: 1}}} }

// Const returns the constant term c.
func Const(c int64) Term { return Term{Const: c} }

// IsConst reports whether t has no variables.
func (t Term) IsConst() bool { return len(t.Monos) == 0 }

// Add returns t + u.
func (t Term) Add(u Term) Term { return combine(t, u, 1) }

// Sub returns t - u.
func (t Term) Sub(u Term) Term { return combine(t, u, -1) }

// AddConst returns t + c.
func (t Term) AddConst(c int64) Term {
	t.Monos = append([]Mono(nil), t.Monos...)
	t.Const += c
	return t
}

// Scale returns k·t.
func (t Term) Scale(k int64) Term {
	if k == 0 {
		return Term{}
	}
	r := Term{Const: t.Const * k, Monos: make([]Mono, len(t.Monos))}
	for i, m := range t.Monos {
		r.Monos[i] = Mono{Var: m.Var, Coef: m.Coef * k}
	}
	return r
}

// Vars returns the variables of t in canonical order.
func (t Term) Vars() []string {
	vs := make([]string, len(t.Monos))
	for i, m := range t.Monos {
		vs[i] = m.Var
	}
	return vs
}

// Equal reports whether t and u are the same linear combination.
func (t Term) Equal(u Term) bool {
	if t.Const != u.Const || len(t.Monos) != len(u.Monos) {
		return false
	}
	for i := range t.Monos {
		if t.Monos[i] != u.Monos[i] {
			return false
		}
	}
	return true
}

// String prints t canonically, e.g. "2*i + n - 1".
func (t Term) String() string { return t.Format(func(v string) string { return v }, " ") }

// Format prints t with each variable named by name and the + and - signs
// between monomials surrounded by space (" " or "" for the compact form
// "2*i+n-1").
func (t Term) Format(name func(string) string, space string) string {
	var b strings.Builder
	sign := func(s string) { b.WriteString(space + s + space) }
	for i, m := range t.Monos {
		c := m.Coef
		switch {
		case i == 0 && c < 0:
			b.WriteString("-")
			c = -c
		case i > 0 && c < 0:
			sign("-")
			c = -c
		case i > 0:
			sign("+")
		}
		if c != 1 {
			b.WriteString(strconv.FormatInt(c, 10))
			b.WriteString("*")
		}
		b.WriteString(name(m.Var))
	}
	switch {
	case len(t.Monos) == 0:
		b.WriteString(strconv.FormatInt(t.Const, 10))
	case t.Const > 0:
		sign("+")
		b.WriteString(strconv.FormatInt(t.Const, 10))
	case t.Const < 0:
		sign("-")
		b.WriteString(strconv.FormatInt(-t.Const, 10))
	}
	return b.String()
}

// combine returns t + k·u in canonical form. Both monomial lists are
// sorted by variable, so this is a merge (placement adds terms in its inner
// loops; a map per call made the garbage collector the analysis's main
// cost).
func combine(t, u Term, k int64) Term {
	r := Term{Const: t.Const + k*u.Const}
	if len(t.Monos)+len(u.Monos) > 0 {
		r.Monos = make([]Mono, 0, len(t.Monos)+len(u.Monos))
	}
	i, j := 0, 0
	for i < len(t.Monos) || j < len(u.Monos) {
		switch {
		case j == len(u.Monos) || i < len(t.Monos) && t.Monos[i].Var < u.Monos[j].Var:
			r.Monos = append(r.Monos, t.Monos[i])
			i++
		case i == len(t.Monos) || u.Monos[j].Var < t.Monos[i].Var:
			if c := k * u.Monos[j].Coef; c != 0 {
				r.Monos = append(r.Monos, Mono{Var: u.Monos[j].Var, Coef: c})
			}
			j++
		default:
			if c := t.Monos[i].Coef + k*u.Monos[j].Coef; c != 0 {
				r.Monos = append(r.Monos, Mono{Var: t.Monos[i].Var, Coef: c})
			}
			i++
			j++
		}
	}
	if len(r.Monos) == 0 {
		r.Monos = nil
	}
	return r
}
