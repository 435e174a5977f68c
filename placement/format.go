package placement

import (
	"fmt"
	"go/token"
	"io"
	"path/filepath"

	"golang.org/x/tools/go/ssa"

	"github.com/bigfoot-go/bigfoot/placement/entail"
)

// Values returns the SSA values the check names (path bases, the atoms of
// index and guard terms, the operands of len atoms), which the emitter must
// have in scope and unchanged at the check's point, reifying them into
// temporaries where the source has no name for them. Extended paths name
// their root only; the emitter re-evaluates the rest (d.buf) at the point.
func (c *Check) Values() []ssa.Value {
	seen := make(map[ssa.Value]bool)
	var out []ssa.Value
	add := func(v ssa.Value) {
		if v != nil && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	for _, p := range c.Paths {
		if p.names == nil {
			add(p.Base)
			continue
		}
		for _, v := range p.atoms(p.names) {
			add(v)
		}
	}
	if c.Guard != nil {
		for _, t := range []entail.Term{c.Guard.Lo, c.Guard.Hi} {
			for _, name := range t.Vars() {
				add(c.Guard.names.atom(name))
			}
		}
	}
	return out
}

// Format writes the plan the way `bigfoot analyze` shows it: the function,
// its static counts, and each check with its position, kind and paths,
// why it is there, and the accesses it covers.
func (p *Plan) Format(w io.Writer, fset *token.FileSet) {
	fmt.Fprintf(w, "%s: %d accesses, %s: %d checks", p.Func, len(p.Accesses), p.Mode, p.StaticChecks())
	if p.Fallback != "" {
		fmt.Fprintf(w, " (fallback: %s)", p.Fallback)
	}
	fmt.Fprintf(w, " [%v]\n", p.Elapsed)
	if p.Fallback != "" {
		return
	}
	short := func(pos token.Pos) string {
		if !pos.IsValid() {
			return "-"
		}
		q := fset.Position(pos)
		return fmt.Sprintf("%s:%d:%d", filepath.Base(q.Filename), q.Line, q.Column)
	}
	for _, c := range p.Checks {
		fmt.Fprintf(w, "\t%s\t%v\t%s\t(%v)\n", short(c.At.Pos()), c.At, c, c.Why)
		for _, a := range c.Covers {
			fmt.Fprintf(w, "\t\tcovers %s %s at %s\n", kindName(a.Write), a.Path, short(a.Pos))
		}
	}
	for _, n := range p.Notes() {
		fmt.Fprintf(w, "\t%s\t%s\n", short(n.Pos), n.Text)
	}
}
