package placement

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"sort"

	"golang.org/x/tools/go/ssa"
)

// Package decisions: covered calls and unpublished objects.
//
// Two decisions of bigfoot mode span functions: a call in a loop of a
// callee with an access summary (Cover) calls a copy of the callee without
// the covered checks, F__bfnc, and records the covered bytes as a pending
// range; an access to an object the function has not published yet
// (Unpublished) gets no check, and a call passing such an object to a
// parameter that does not publish it (NoEscape) calls a copy of the
// callee, F__bfup<i>, that does not check the accesses through parameter
// i. Decide makes both decisions for a package once; Analyze (with
// Config.Decisions) copies the ones of its function into the plan, which
// `bigfoot analyze` prints and the instrumenter maps onto syntax. The
// instrumenter decides nothing of its own here: it may only refuse a
// decision it cannot render (keeping the checks), never add one.

// Names of the specialized copies.
const (
	// CoverSuffix names the copy of a function with an access summary
	// that leaves the covered accesses unchecked.
	CoverSuffix = "__bfnc"
	// upSuffix (with the parameter's index) names the copy of a function
	// that leaves the accesses through an unpublished parameter
	// unchecked.
	upSuffix = "__bfup"
)

// UpSuffix returns the suffix of the copy of a function for unpublished
// parameter i.
func UpSuffix(i int) string { return fmt.Sprintf("%s%d", upSuffix, i) }

// DecideOptions says which decisions Decide makes.
type DecideOptions struct {
	// Covers: covered calls in loops (bigfoot mode's static ranges).
	Covers bool
	// Unpublished: unpublished objects and their copies (bigfoot mode's
	// static safe class).
	Unpublished bool
	// Copyable reports whether fn may get a specialized copy: the
	// emitter can render its declaration a second time under another
	// name. nil: every function declared with a body, other than main and
	// init, that is not generic.
	Copyable func(fn *ssa.Function) bool
}

// Notes returns the plan's decisions as `bigfoot analyze` prints them
// and the golden tests expect them, each with its position: "unpub W
// s.x" for an unpublished access, "call F__bfnc covers param 1: R
// [0,8)" or "call F__bfup0 unpublished arg 0" for a call, "copy F__bfnc"
// (at the function) for each of the function's copies.
func (p *Plan) Notes() []Note {
	var out []Note
	for _, c := range p.Copies {
		out = append(out, Note{p.Func.Pos(), "copy " + c})
	}
	for _, a := range p.Unpublished {
		out = append(out, Note{a.Pos, "unpub " + kindName(a.Write) + " " + a.Path.String()})
	}
	for _, c := range p.Calls {
		out = append(out, Note{c.Call.Pos(), c.String()})
	}
	return out
}

// A Note is one decision of a plan beyond its checks (Plan.Notes).
type Note struct {
	Pos  token.Pos
	Text string
}

// Decisions are the covered calls and unpublished objects of one package.
type Decisions struct {
	// NoEscape is the package's parameters that do not publish (nil
	// without DecideOptions.Unpublished).
	NoEscape *NoEscape
	// Covers are the access summaries of the functions that get an
	// F__bfnc copy: those with a summary called in a loop of the package.
	Covers map[*ssa.Function]*Cover
	// UpCopies are the F__bfup<i> copies, by function, sorted by
	// parameter.
	UpCopies map[*ssa.Function][]*UpCopy

	unpub map[*ssa.Function]map[ssa.Instruction]int // Unpublished, per function
	calls map[*ssa.Call]*CallDecision               // the calls made to copies
}

// An UpCopy is the copy F__bfup<Param> of Func: the loads and stores
// through the parameter are not checked, and the calls passing the
// parameter on to a parameter of a function with a copy call that copy.
type UpCopy struct {
	Func      *ssa.Function
	Param     int
	Unchecked []ssa.Instruction     // loads and stores through the parameter, in block order
	Calls     map[*ssa.Call]int     // call → parameter of the callee's copy it calls
	Callees   map[*ssa.Call]*UpCopy // call → the copy it calls
}

// Name returns the copy's name.
func (c *UpCopy) Name() string { return c.Func.Name() + UpSuffix(c.Param) }

// A CallDecision says that a call of the analyzed function calls a copy of
// its callee instead of the callee.
type CallDecision struct {
	Call   *ssa.Call
	Callee *ssa.Function
	// Cover, if non-nil: the call is covered; the caller records the
	// spans of argument Cover.Param as a pending static range and calls
	// the F__bfnc copy.
	Cover *Cover
	// Param >= 0: argument Param is an unpublished object the callee
	// does not publish; the call calls the F__bfup<Param> copy.
	Param int
}

// Copy returns the name of the copy the call calls.
func (d *CallDecision) Copy() string {
	if d.Cover != nil {
		return d.Callee.Name() + CoverSuffix
	}
	return d.Callee.Name() + UpSuffix(d.Param)
}

func (d *CallDecision) String() string {
	if d.Cover != nil {
		return fmt.Sprintf("call %s covers %s", d.Copy(), d.Cover)
	}
	return fmt.Sprintf("call %s unpublished arg %d", d.Copy(), d.Param)
}

// Decide computes the decisions for fns, the analyzed functions of one
// package (AnalyzedFunctions), with the emission facts f.
func Decide(fns []*ssa.Function, f *Facts, opts DecideOptions) *Decisions {
	d := &Decisions{Covers: map[*ssa.Function]*Cover{}, UpCopies: map[*ssa.Function][]*UpCopy{},
		unpub: map[*ssa.Function]map[ssa.Instruction]int{}, calls: map[*ssa.Call]*CallDecision{}}
	copyable := opts.Copyable
	if copyable == nil {
		copyable = defaultCopyable
	}
	if opts.Covers {
		d.decideCovers(fns, f, copyable)
	}
	if opts.Unpublished {
		d.NoEscape = FindNoEscape(fns)
		for _, fn := range fns {
			if up := Unpublished(fn, d.NoEscape); len(up) > 0 {
				d.unpub[fn] = up
			}
		}
		d.decideUpCopies(fns, f, copyable)
	}
	return d
}

// defaultCopyable is DecideOptions.Copyable's default.
func defaultCopyable(fn *ssa.Function) bool {
	if fn.Synthetic != "" || fn.Parent() != nil || fn.TypeParams().Len() > 0 || len(fn.TypeArgs()) > 0 || len(fn.Blocks) == 0 {
		return false
	}
	if d, ok := fn.Syntax().(*ast.FuncDecl); !ok || d.Body == nil {
		return false
	}
	return fn.Signature.Recv() != nil || fn.Name() != "main" && fn.Name() != "init"
}

// decideCovers records the access summaries of the package-level
// functions called in a loop of the package, and the calls in loops that
// call their copies (coverable.go says which calls can).
func (d *Decisions) decideCovers(fns []*ssa.Function, f *Facts, copyable func(*ssa.Function) bool) {
	summary := map[*ssa.Function]*Cover{}
	coverOf := func(fn *ssa.Function) *Cover {
		if c, ok := summary[fn]; ok {
			return c
		}
		var c *Cover
		if fn.Pkg != nil && fn.Signature.Recv() == nil && fn.Synthetic == "" && fn.Pos().IsValid() {
			if _, ok := fn.Object().(*types.Func); ok && copyable(fn) {
				c = f.CoverOf(fn)
			}
		}
		summary[fn] = c
		return c
	}
	inPkg := map[*ssa.Function]bool{}
	for _, fn := range fns {
		inPkg[fn] = true
	}
	for _, fn := range fns {
		var cs *callSyntax
		for _, b := range fn.Blocks {
			if !inCycle(b) {
				continue
			}
			for _, in := range b.Instrs {
				call, ok := in.(*ssa.Call)
				if !ok || call.Call.IsInvoke() {
					continue
				}
				callee := call.Call.StaticCallee()
				if callee == nil || !inPkg[callee] || callee.Pkg != fn.Pkg {
					continue
				}
				c := coverOf(callee)
				if c == nil || c.Param >= len(call.Call.Args) {
					continue
				}
				if cs == nil {
					cs = newCallSyntax(fn)
				}
				if cs.coverable(call.Pos(), c.Param) {
					d.Covers[callee] = c
					d.calls[call] = &CallDecision{Call: call, Callee: callee, Cover: c, Param: -1}
				}
			}
		}
	}
}

// inCycle reports whether b lies on a cycle of its function's CFG.
func inCycle(b *ssa.BasicBlock) bool {
	seen := map[*ssa.BasicBlock]bool{}
	stack := append([]*ssa.BasicBlock(nil), b.Succs...)
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if x == b {
			return true
		}
		if !seen[x] {
			seen[x] = true
			stack = append(stack, x.Succs...)
		}
	}
	return false
}

// decideUpCopies records the calls that pass an unpublished object to a
// parameter that does not publish it, of a function that may get a copy,
// and the copies they need, transitively.
func (d *Decisions) decideUpCopies(fns []*ssa.Function, f *Facts, copyable func(*ssa.Function) bool) {
	var need []*UpCopy
	want := func(fn *ssa.Function, i int) *UpCopy {
		// A copy runs under another name: only a function that cannot
		// show its frame to the program gets one (QuietWith).
		if !copyable(fn) || !d.NoEscape.Param(fn, i) || !f.QuietWith(fn, i) {
			return nil
		}
		for _, c := range need {
			if c.Func == fn && c.Param == i {
				return c
			}
		}
		c := &UpCopy{Func: fn, Param: i}
		need = append(need, c)
		return c
	}
	for _, fn := range fns {
		for in, p := range d.unpub[fn] {
			call, ok := in.(*ssa.Call)
			if !ok || p < 0 {
				continue
			}
			if c := want(call.Call.StaticCallee(), p); c != nil {
				d.calls[call] = &CallDecision{Call: call, Callee: c.Func, Param: p}
			}
		}
	}
	// The copies' own unchecked accesses and calls, to a fixed point.
	for k := 0; k < len(need); k++ {
		c := need[k]
		c.Calls, c.Callees = map[*ssa.Call]int{}, map[*ssa.Call]*UpCopy{}
		for _, b := range c.Func.Blocks {
			for _, in := range b.Instrs {
				if ParamAccess(in, c.Param) {
					c.Unchecked = append(c.Unchecked, in)
				}
				call, ok := in.(*ssa.Call)
				if !ok || call.Call.StaticCallee() == nil || call.Call.IsInvoke() {
					continue
				}
				for j, a := range call.Call.Args {
					if DerivedFrom(a, c.Func.Params[c.Param]) {
						if cc := want(call.Call.StaticCallee(), j); cc != nil {
							c.Calls[call] = j
							c.Callees[call] = cc
						}
					}
				}
			}
		}
	}
	sort.SliceStable(need, func(i, j int) bool { return need[i].Param < need[j].Param })
	for _, c := range need {
		d.UpCopies[c.Func] = append(d.UpCopies[c.Func], c)
	}
}

// Unpublished returns Unpublished(fn, d.NoEscape), as Decide computed it.
func (d *Decisions) Unpublished(fn *ssa.Function) map[ssa.Instruction]int {
	if d == nil {
		return nil
	}
	return d.unpub[fn]
}

// Call returns the decision for the call c, or nil: c calls its callee.
func (d *Decisions) Call(c *ssa.Call) *CallDecision {
	if d == nil {
		return nil
	}
	return d.calls[c]
}

// unpublishedAccess reports whether the decisions leave the load or store
// in unchecked as an access to an unpublished object.
func (d *Decisions) unpublishedAccess(in ssa.Instruction) bool {
	if d == nil || AddrOf(in) == nil {
		return false
	}
	p, ok := d.unpub[in.Parent()][in]
	return ok && p < 0
}

// copiesOf returns the names of fn's copies, sorted.
func (d *Decisions) copiesOf(fn *ssa.Function) []string {
	if d == nil {
		return nil
	}
	var out []string
	if d.Covers[fn] != nil {
		out = append(out, fn.Name()+CoverSuffix)
	}
	for _, c := range d.UpCopies[fn] {
		out = append(out, c.Name())
	}
	return out
}
