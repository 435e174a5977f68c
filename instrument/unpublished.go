package instrument

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ssa"

	"github.com/bigfoot-go/bigfoot/placement"
)

// Unpublished objects (-mode=bigfoot; placement.Unpublished).
//
// An access to an object the function allocated and has not yet
// published (stored where another goroutine may read it, passed to a
// call, returned, captured, sent) cannot be in a race: it gets no check
// and no footprint record, and is not part of a static loop range. The
// site plan decides which sites qualify (placement.SitePlan.Unpublished):
// every SSA access at the site is unpublished, it anchors no RedCard
// check that covers other sites (they would lose their check) other than
// unpublished ones, and it is in no field group (whose check checks its
// bytes); the instrumenter renders the decision where the access maps
// one-to-one to its wrapper (fileRedcard.plan). Counting
// builds announce it (__bf.A), so the check ratio keeps its denominator;
// verifying builds do not, as for the static safe class: no check
// covers it.

// unpublished reports whether the access e of kind write is left
// unchecked as an access to an unpublished object (pass 2 only).
func (r *fileRewriter) unpublished(e ast.Expr, write bool) bool {
	if r.upSites[siteKey{ssaPos(e), write}] {
		return true
	}
	k := siteKey{ssaPos(e), write}
	if r.rc == nil || !r.rc.unpub[k] {
		return false
	}
	r.rc.pkg.sites.Render(placement.EntryUnpublished, planKey(k))
	return true
}

// notShared reports whether the access e of kind write is left unchecked
// as one the plan states not shared (pass 2 only): its memory is a local
// variable whose address does not leave its function, or a fresh object.
func (r *fileRewriter) notShared(e ast.Expr, write bool) bool {
	k := siteKey{ssaPos(e), write}
	if r.rc == nil || !r.rc.local[k] {
		return false
	}
	r.rc.pkg.sites.Render(placement.EntryNotShared, planKey(k))
	return true
}

// countAppends counts, by position, the calls of append in fn and those
// up says append to an unpublished object.
func countAppends(fn *ssa.Function, up map[ssa.Instruction]int, n map[token.Pos][2]int) {
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
			if _, ok := up[in]; ok {
				x[0]++
			}
			x[1]++
			n[c.Pos()] = x
		}
	}
}

// unpublishedAppend renders append(s, x, …) of an unpublished slice s
// (no spread argument): a plain append, through a helper that counts its
// accesses in counting builds (G.Count is empty otherwise). The helper
// infers the element type from s alone (methodAppend): a generic
// function taking the elements too would infer it from them and reject
// append(ps, &T{}) with ps []I, or append(xs, 1, "a") with xs []any.
// The helper is declared at package scope, so a package that declares
// len, cap or append there keeps its appends as they are.
func (r *fileRewriter) unpublishedAppend(e *ast.CallExpr, args []sub) (string, bool) {
	if r.rc == nil || r.rc.drop == nil || r.fn == nil || r.p.std || e.Ellipsis.IsValid() || len(e.Args) < 2 || !r.rc.pkg.unpubAppend[e.Lparen] {
		return "", false
	}
	if sc := r.p.pkg.Types.Scope(); sc.Lookup("len") != nil || sc.Lookup("cap") != nil || sc.Lookup("append") != nil {
		return "", false
	}
	name := "__bfApp_" + strings.TrimPrefix(r.siteVar, "__bfS_")
	if !r.appendEmitted {
		r.appendEmitted = true
		r.trailer.WriteString(fmt.Sprintf(appendHelperText, name))
	}
	return r.methodAppend(e, args, name+"("+r.g()+", ", "add"), true
}

// appendHelperText is the helper (%[1]s its name, %[1]sA its type) for
// appends to unpublished slices: the accesses Appender.Add would check,
// counted. Its constraint is interface{}, not any, which a package may
// declare (sprig v3 has a func any).
const appendHelperText = `type %[1]sA[S ~[]E, E interface{}] struct {
	g *__bf.G
	s S
}

func %[1]s[S ~[]E, E interface{}](g *__bf.G, s S) %[1]sA[S, E] { return %[1]sA[S, E]{g, s} }

func (a %[1]sA[S, E]) add(xs ...E) S {
	if len(a.s)+len(xs) > cap(a.s) { a.g.Count(len(a.s)) }
	a.g.Count(len(xs))
	return append(a.s, xs...)
}
`

// Calls that keep an object unpublished.
//
// A call that passes an unpublished object to a parameter that does not
// publish it (placement.NoEscape) calls a copy of the callee, F__bfup<i>
// (i the parameter), in which the accesses through the parameter are not
// checked, and whose own calls passing the parameter on call their copies
// in turn. montecarlo's rng.normal() reaches rng.state through normal,
// uniform and next: the three copies make no check of it. Only functions
// that cannot panic, block or call what could, with the parameter
// non-nil, get a copy (placement.QuietWith): a copy's name would show in
// a panic's trace and in runtime.Caller, and the instrumentation must
// not change what the program can observe.

// An upCopy is one specialized copy (placement.UpCopy) mapped onto
// positions: the function, the parameter, the sites it leaves unchecked
// and the calls it renames.
type upCopy struct {
	fn     *ssa.Function
	param  int
	sites  map[siteKey]bool
	rename map[token.Pos]int // call Lparen -> parameter of the callee's copy
}

// upSuffix names the copy of a function for unpublished parameter i.
func upSuffix(i int) string { return placement.UpSuffix(i) }

// noteCalls records, by position, the parameter each static call of fn
// passes an unpublished object to, as placement decided (-2: none).
func noteCalls(fn *ssa.Function, dec *placement.Decisions, n map[token.Pos][]int) {
	for _, b := range fn.Blocks {
		for _, in := range b.Instrs {
			c, ok := in.(*ssa.Call)
			if !ok || !c.Pos().IsValid() || c.Call.StaticCallee() == nil {
				continue
			}
			if _, ok := c.Call.Value.(*ssa.Builtin); ok {
				continue
			}
			p := -2
			if d := dec.Call(c); d != nil && d.Cover == nil {
				p = d.Param
			}
			n[c.Pos()] = append(n[c.Pos()], p)
		}
	}
}

// planUnpublishedCalls keeps the call positions whose every SSA call
// placement renames to the copy for the same parameter, and maps the
// copies placement decided onto positions.
func (rc *redcardPkg) planUnpublishedCalls(n map[token.Pos][]int) {
	rc.unpubCall = map[token.Pos]int{}
	rc.upCopies = map[token.Pos][]*upCopy{}
	for pos, ps := range n {
		p := ps[0]
		same := p >= 0
		for _, q := range ps {
			same = same && q == p
		}
		if same {
			rc.unpubCall[pos] = p
		}
	}
	for fn, cs := range rc.dec.UpCopies {
		for _, c := range cs {
			u := &upCopy{fn: fn, param: c.Param, sites: map[siteKey]bool{}, rename: map[token.Pos]int{}}
			for _, in := range c.Unchecked {
				if in.Pos().IsValid() {
					_, write := in.(*ssa.Store)
					u.sites[siteKey{in.Pos(), write}] = true
				}
			}
			for call, j := range c.Calls {
				u.rename[call.Pos()] = j
			}
			rc.upCopies[fn.Pos()] = append(rc.upCopies[fn.Pos()], u)
		}
	}
}

// copyable reports whether fn is declared by a function declaration
// the rewriter can render a second time under another name, in a file it
// rewrites (not one that imports "C", which stays as it is: its functions
// get no copy, and no call is renamed to one).
func (rc *redcardPkg) copyable(fn *ssa.Function) bool {
	d, ok := fn.Syntax().(*ast.FuncDecl)
	if !ok || d.Body == nil || d.Type.TypeParams != nil || skipDirective(d) != "" ||
		d.Recv == nil && (d.Name.Name == "main" || d.Name.Name == "init") {
		return false
	}
	for _, adjusted := range []bool{true, false} {
		name := rc.fset.PositionFor(d.Pos(), adjusted).Filename
		if name == "" {
			return false
		}
		cgo, ok := rc.cgoFile[name]
		if !ok {
			cgo = fileImportsC(name)
			rc.cgoFile[name] = cgo
		}
		if cgo {
			return false
		}
	}
	return true
}

// unpublishedCallee returns the name of the copy the call e (whose callee
// is named by id) calls instead of its callee: the call passes an
// unpublished object to a parameter that does not publish it.
func (r *fileRewriter) unpublishedCallee(e *ast.CallExpr, id *ast.Ident) (string, bool) {
	if r.rc == nil || r.fn == nil || r.p.std || r.rc.pkg.upCopies == nil {
		return "", false
	}
	i, ok := r.upRename[e.Lparen]
	if !ok {
		i, ok = r.rc.pkg.unpubCall[e.Lparen]
	}
	if !ok {
		return "", false
	}
	fn, isFunc := r.info.Uses[id].(*types.Func)
	if !isFunc || fn.Pkg() != r.p.pkg.Types {
		return "", false
	}
	for _, c := range r.rc.pkg.upCopies[fn.Pos()] {
		if c.param == i {
			return id.Name + upSuffix(i), true
		}
	}
	return "", false
}

// renderUpCopies appends to the trailer the unpublished-parameter copies
// of the function declared by d, as renderCopies does for covers.
func (r *fileRewriter) renderUpCopies(d *ast.FuncDecl) {
	for _, c := range r.rc.pkg.upCopies[d.Name.Pos()] {
		r.upSites, r.upRename = c.sites, c.rename
		subs := r.funcDecl(d)
		r.upSites, r.upRename = nil, nil
		subs = append([]sub{{d.Name.Pos(), d.Name.End(), d.Name.Name + upSuffix(c.param)}}, subs...)
		p := r.tf.Position(d.Pos())
		fmt.Fprintf(&r.trailer, "//line %s:%d:%d\n%s\n", r.tf.Name(), p.Line, p.Column, r.splice(d.Pos(), d.End(), subs...))
	}
}
