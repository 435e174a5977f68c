package instrument

import (
	"fmt"
	"go/ast"
	"go/token"
	"os"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// Unpublished objects (-mode=bigfoot; placement.Unpublished).
//
// An access to an object the function allocated and has not yet
// published (stored where another goroutine may read it, passed to a
// call, returned, captured, sent) cannot be in a race: it gets no check
// and no footprint record, and is not part of a static loop range. A site
// qualifies when every SSA access at it is unpublished, it anchors no
// RedCard check that covers other sites (they would lose their check) and
// belongs to no field group the file emits (whose check would check its
// bytes: fileRedcard.plan). Counting
// builds announce it (__bf.A), so the check ratio keeps its denominator;
// verifying builds do not, as for the static safe class: no check
// covers it.

// unpublishedSites returns the sites whose every access is unpublished
// (n counts the unpublished accesses of each site).
func (rc *redcardPkg) unpublishedSites(n map[siteKey]int) map[siteKey]bool {
	covering := map[siteKey]bool{} // anchors of checks that cover other sites
	for _, anchors := range rc.cover {
		for _, a := range anchors {
			covering[a] = true
		}
	}
	out := map[siteKey]bool{}
	for k, c := range n {
		if rcDebug {
			fmt.Fprintf(os.Stderr, "unpubdebug: %v %v: %d of %d, anchor %v\n", rc.fset.Position(k.pos), k.write, c, len(rc.ssaAcc[k]), covering[k])
		}
		if c == len(rc.ssaAcc[k]) && !covering[k] {
			out[k] = true
		}
	}
	return out
}

// unpublished reports whether the access e of kind write is left
// unchecked as an access to an unpublished object (pass 2 only).
func (r *fileRewriter) unpublished(e ast.Expr, write bool) bool {
	if r.rc == nil || r.rc.unpub == nil || r.p.std {
		return false
	}
	return r.rc.unpub[siteKey{ssaPos(e), write}]
}

// countAppends counts, by position, the calls of append in fn and those
// up says append to an unpublished object.
func countAppends(fn *ssa.Function, up map[ssa.Instruction]bool, n map[token.Pos][2]int) {
	for _, b := range fn.Blocks {
		for _, in := range b.Instrs {
			c, ok := in.(*ssa.Call)
			if !ok || !c.Pos().IsValid() {
				continue
			}
			if bi, ok := c.Call.Value.(*ssa.Builtin); !ok || bi.Name() != "append" {
				continue
			}
			x := n[c.Pos()]
			if up[in] {
				x[0]++
			}
			x[1]++
			n[c.Pos()] = x
		}
	}
}

// unpublishedAppend renders append(s, x, …) of an unpublished slice s
// (no spread argument): a plain append, through a helper that counts its
// accesses in counting builds (G.Count is empty otherwise).
func (r *fileRewriter) unpublishedAppend(e *ast.CallExpr, args []sub) (string, bool) {
	if r.rc == nil || r.rc.drop == nil || r.fn == nil || r.p.std || e.Ellipsis.IsValid() || len(e.Args) < 2 || !r.rc.pkg.unpubAppend[e.Lparen] {
		return "", false
	}
	name := "__bfApp_" + strings.TrimPrefix(r.siteVar, "__bfS_")
	if !r.appendEmitted {
		r.appendEmitted = true
		r.trailer.WriteString(fmt.Sprintf(appendHelperText, name))
	}
	head := sub{e.Pos(), e.Lparen + 1, name + "(" + r.g() + ", "}
	return r.spliceNode(e, append([]sub{head}, args...)...), true
}

// appendHelperText is the helper (%[1]s its name) for appends to
// unpublished slices: the accesses Appender.Add would check, counted.
const appendHelperText = `func %[1]s[S ~[]E, E any](g *__bf.G, s S, xs ...E) S {
	if len(s)+len(xs) > cap(s) { g.Count(len(s)) }
	g.Count(len(xs))
	return append(s, xs...)
}
`
