package placement

import (
	"fmt"
	"go/constant"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"
)

// Facts for emission. The plans propose; before the instrumenter leaves a
// check out or moves one, these re-prove on the SSA, independently of the
// dataflow, that the result stays exact: a covering check has the same
// address computation and nothing between that may synchronize (or
// panic), a field group's span cannot synchronize, panic or fail to
// return, and its bytes are exactly its fields'. The instrumenter only
// maps what they accept onto syntax.

// Facts holds what the emission proofs need of a program: its kill sets,
// the target's struct layout, and which functions are simple (memoized).
// A Facts is not safe for concurrent use.
type Facts struct {
	ks     *KillSets
	sizes  types.Sizes
	simple simpleFuncs
}

// NewFacts returns the emission facts of the program whose kill sets are
// ks, for a target with the given sizes.
func NewFacts(ks *KillSets, sizes types.Sizes) *Facts {
	f := &Facts{ks: ks, sizes: sizes}
	f.simple.f = f
	return f
}

// Simple reports whether a call of fn returns normally without
// synchronizing: fn has a body with no loop (an acyclic CFG), never
// panics (MayPanicAt, with its own non-nil facts), never synchronizes,
// and calls only simple functions; or it belongs to package math.
// Recursion is never simple.
func (f *Facts) Simple(fn *ssa.Function) bool { return f.simple.is(fn) }

// AnchorOf returns the access a RedCard check sits at: the one access it
// covers whose instruction is at the check's point, of the check's kind
// and path; nil if there is no such single access.
func AnchorOf(c *Check) *Access {
	if c.Guard != nil || c.At.Edge != nil || len(c.Paths) != 1 || c.At.Index >= len(c.At.Block.Instrs) {
		return nil
	}
	at := c.At.Block.Instrs[c.At.Index]
	var found *Access
	for _, a := range c.Covers {
		if a.Instr == at && a.Write == c.Write && a.Path.Key() == c.Paths[0].Key() && a.Pos.IsValid() {
			if found != nil {
				return nil
			}
			found = a
		}
	}
	return found
}

// AddrOf is the address a load or store accesses, or nil.
func AddrOf(in ssa.Instruction) ssa.Value {
	switch in := in.(type) {
	case *ssa.UnOp:
		if in.Op == token.MUL {
			return in.X
		}
	case *ssa.Store:
		return in.Addr
	}
	return nil
}

// sameAddr reports whether x and y compute the same address: the same
// value, or the same field or index step from the same address.
func sameAddr(x, y ssa.Value) bool { return addrsAlike(x, y, false) }

// addrsAlike is sameAddr; with loads, loads of addresses alike count as
// the same value too (m[i] of m[i][j], read twice in one iteration),
// which is true unless something stores there between them: for
// decisions that change no check (FootprintSite.Repeat), never for a
// cover.
func addrsAlike(x, y ssa.Value, loads bool) bool {
	if x == y {
		return true
	}
	switch x := x.(type) {
	case *ssa.FieldAddr:
		y, ok := y.(*ssa.FieldAddr)
		return ok && x.Field == y.Field && addrsAlike(x.X, y.X, loads)
	case *ssa.IndexAddr:
		y, ok := y.(*ssa.IndexAddr)
		return ok && (sameValue(x.Index, y.Index) || loads && sameArith(x.Index, y.Index)) && addrsAlike(x.X, y.X, loads)
	case *ssa.UnOp:
		y, ok := y.(*ssa.UnOp)
		return loads && ok && x.Op == token.MUL && y.Op == token.MUL && addrsAlike(x.X, y.X, loads)
	}
	return false
}

// sameArith reports whether x and y are one value, equal constants, or
// the same arithmetic (a[j-1] twice: two BinOps) of such values.
func sameArith(x, y ssa.Value) bool {
	if sameValue(x, y) {
		return true
	}
	bx, ok1 := x.(*ssa.BinOp)
	by, ok2 := y.(*ssa.BinOp)
	return ok1 && ok2 && bx.Op == by.Op && sameArith(bx.X, by.X) && sameArith(bx.Y, by.Y)
}

func sameValue(x, y ssa.Value) bool {
	if x == y {
		return true
	}
	cx, ok1 := x.(*ssa.Const)
	cy, ok2 := y.(*ssa.Const)
	return ok1 && ok2 && cx.Value != nil && cy.Value != nil && cx.Value.ExactString() == cy.Value.ExactString()
}

// VerifyCover checks, independently of the plan, that a check of kind
// write at anchor covers the access b: same block, same address, and no
// release between them (anchor first) or, for a write check after a read,
// no acquire between them.
func VerifyCover(ks *KillSets, anchor, b *Access, write bool) bool {
	if b.Write && !write {
		return false
	}
	xa, xb := AddrOf(anchor.Instr), AddrOf(b.Instr)
	if xa == nil || xb == nil || !sameAddr(xa, xb) {
		return false
	}
	if anchor.Instr.Block() != b.Instr.Block() {
		return verifyAcross(ks, anchor.Instr, b.Instr)
	}
	instrs := anchor.Instr.Block().Instrs
	ia, ib := IndexIn(instrs, anchor.Instr), IndexIn(instrs, b.Instr)
	if ia < 0 || ib < 0 || ia == ib {
		return false
	}
	kill := Release
	lo, hi := ia, ib
	if ib < ia {
		if !write || b.Write {
			return false
		}
		kill, lo, hi = Acquire, ib, ia
	}
	for _, in := range instrs[lo+1 : hi] {
		if ks.Instr(in)&kill != 0 || HandlerCall(in) {
			return false
		}
		if kill == Acquire && MayPanic(in) && !inAddrChain(in, AddrOf(b.Instr)) {
			// A recovered panic between the read and the write would
			// leave the read unchecked.
			return false
		}
	}
	return true
}

// inAddrChain reports whether in computes the address addr or one it is
// derived from (its field or index steps): if that panics, so did the
// access through addr, before.
func inAddrChain(in ssa.Instruction, addr ssa.Value) bool {
	v, ok := in.(ssa.Value)
	if !ok {
		return false
	}
	for addr != nil {
		if sameAddr(v, addr) {
			return true
		}
		switch a := addr.(type) {
		case *ssa.FieldAddr:
			addr = a.X
		case *ssa.IndexAddr:
			addr = a.X
		default:
			addr = nil
		}
	}
	return false
}

// MayPanic reports whether in may panic, conservatively: anything but
// arithmetic other than integer division, conversions, closures and the
// builtins append, len and cap.
func MayPanic(in ssa.Instruction) bool {
	switch in := in.(type) {
	case *ssa.BinOp:
		if in.Op == token.QUO || in.Op == token.REM || in.Op == token.SHL || in.Op == token.SHR {
			b, ok := in.Y.Type().Underlying().(*types.Basic)
			return !ok || b.Info()&types.IsInteger != 0
		}
		return false
	case *ssa.UnOp:
		return in.Op == token.MUL || in.Op == token.ARROW
	case *ssa.ChangeType, *ssa.Convert, *ssa.MakeClosure, *ssa.DebugRef, *ssa.MakeInterface:
		return false
	case *ssa.Call:
		if b, ok := in.Call.Value.(*ssa.Builtin); ok {
			switch b.Name() {
			case "append", "len", "cap":
				return false
			}
		}
	}
	return true
}

// verifyAcross checks that the check at instruction a covers the later
// access at b in another block: a's block A dominates b's block B, A lies
// on no cycle through which B is reached (so the registers a's address uses
// are not redefined between them, and the last execution of a before b is
// the one that dominates it), and no instruction that can run between
// them may release: the rest of A, every block on a path from A to B, and
// B up to b (all of B if B is on such a cycle itself).
func verifyAcross(ks *KillSets, a, b ssa.Instruction) bool {
	A, B := a.Block(), b.Block()
	if !A.Dominates(B) || B == B.Parent().Recover {
		return false
	}
	// fwd: reachable from A's successors; bwd: reaching B's predecessors.
	reach := func(start []*ssa.BasicBlock, next func(*ssa.BasicBlock) []*ssa.BasicBlock) map[*ssa.BasicBlock]bool {
		seen := map[*ssa.BasicBlock]bool{}
		work := append([]*ssa.BasicBlock(nil), start...)
		for len(work) > 0 {
			x := work[len(work)-1]
			work = work[:len(work)-1]
			if seen[x] {
				continue
			}
			seen[x] = true
			work = append(work, next(x)...)
		}
		return seen
	}
	fwd := reach(A.Succs, func(x *ssa.BasicBlock) []*ssa.BasicBlock { return x.Succs })
	bwd := reach(B.Preds, func(x *ssa.BasicBlock) []*ssa.BasicBlock { return x.Preds })
	if fwd[A] && (bwd[A] || A == B) {
		return false // A is on a cycle that reaches B
	}
	if !fwd[B] {
		return false
	}
	bad := func(instrs []ssa.Instruction) bool {
		for _, in := range instrs {
			if ks.Instr(in)&Release != 0 || HandlerCall(in) {
				return true
			}
		}
		return false
	}
	if bad(A.Instrs[IndexIn(A.Instrs, a)+1:]) {
		return false
	}
	for x := range fwd {
		if x == B || !bwd[x] {
			continue
		}
		if bad(x.Instrs) {
			return false
		}
	}
	if fwd[B] && bwd[B] { // B is on a cycle between A and b
		return !bad(B.Instrs)
	}
	return !bad(B.Instrs[:IndexIn(B.Instrs, b)])
}

func IndexIn(instrs []ssa.Instruction, in ssa.Instruction) int {
	for i, x := range instrs {
		if x == in {
			return i
		}
	}
	return -1
}

// HandlerCall reports whether in calls a function with the signature of an
// HTTP handler, which the instrumenter gives an acquire and a release.
func HandlerCall(in ssa.Instruction) bool {
	call, ok := in.(ssa.CallInstruction)
	if !ok {
		return false
	}
	return handlerSig(call.Common().Signature())
}

// handlerSig reports whether sig has the parameters of an HTTP handler,
// func(http.ResponseWriter, *http.Request): the instrumenter gives every
// function of that signature an acquire at entry and a release at exit.
func handlerSig(sig *types.Signature) bool {
	if sig == nil || sig.Params().Len() != 2 {
		return false
	}
	return types.TypeString(sig.Params().At(0).Type(), nil) == "net/http.ResponseWriter" &&
		types.TypeString(sig.Params().At(1).Type(), nil) == "*net/http.Request"
}

// SpanUnsafe says why the instructions strictly between b.Instrs[lo] and
// b.Instrs[hi] could make a check at one end miss or invent an access at
// the other ("" if none): synchronization, a panic, a call that may not
// return.
func (f *Facts) SpanUnsafe(b *ssa.BasicBlock, lo, hi int) string {
	nonNil := map[string]bool{}
	for i, in := range b.Instrs[:hi] {
		if i > lo {
			if f.ks.Instr(in) != 0 || HandlerCall(in) {
				return fmt.Sprintf("%v may synchronize", in)
			}
			if f.MayPanicAt(in, nonNil) {
				return fmt.Sprintf("%v may panic or not return", in)
			}
		}
		noteNonNil(in, nonNil)
	}
	return ""
}

// ContiguousRuns splits the sorted field indices into runs of consecutive
// fields with no padding between them (gc layout of the target).
func (f *Facts) ContiguousRuns(st *types.Struct, fields []int) [][]int {
	if st == nil || len(fields) < 2 {
		return nil
	}
	vars := make([]*types.Var, st.NumFields())
	for i := range vars {
		vars[i] = st.Field(i)
	}
	offs := f.sizes.Offsetsof(vars)
	var out [][]int
	cur := []int{fields[0]}
	for _, fi := range fields[1:] {
		prev := cur[len(cur)-1]
		if fi == prev+1 && offs[prev]+f.sizes.Sizeof(vars[prev].Type()) == offs[fi] && f.sizes.Sizeof(vars[fi].Type()) > 0 {
			cur = append(cur, fi)
			continue
		}
		out = append(out, cur)
		cur = []int{fi}
	}
	out = append(out, cur)
	var multi [][]int
	for _, r := range out {
		if len(r) >= 2 {
			multi = append(multi, r)
		}
	}
	return multi
}

// AddrKey names the address computation of v: equal keys denote the
// same address (the same register, or the same field and constant index
// steps from equal keys).
func AddrKey(v ssa.Value) string {
	switch v := v.(type) {
	case *ssa.FieldAddr:
		return fmt.Sprintf("%s.%d", AddrKey(v.X), v.Field)
	case *ssa.IndexAddr:
		if c, ok := v.Index.(*ssa.Const); ok && c.Value != nil {
			return fmt.Sprintf("%s[%s]", AddrKey(v.X), c.Value.ExactString())
		}
	}
	return fmt.Sprintf("%p", v)
}

// noteNonNil records the pointers that in, having run, proved non-nil:
// the operands of its address computations and dereferences; and the
// slices it proved long enough: an element address x[k] of a slice
// with a constant k proves every constant index up to k within x's
// bounds (boundKey), as the gc compiler's bounds-check hint `_ = b[7]`
// does.
func noteNonNil(in ssa.Instruction, nonNil map[string]bool) {
	var addr ssa.Value
	switch in := in.(type) {
	case *ssa.IndexAddr:
		if _, ok := in.X.Type().Underlying().(*types.Slice); ok {
			if k, ok := constIndex(in.Index); ok {
				for j := range min(k, maxBoundIndex) + 1 {
					nonNil[boundKey(in.X, j)] = true
				}
			}
		}
		addr = pointerOperand(in)
	case *ssa.FieldAddr:
		addr = pointerOperand(in)
	case *ssa.UnOp:
		if in.Op == token.MUL {
			addr = in.X
		}
	case *ssa.Store:
		addr = in.Addr
	}
	for ; addr != nil; addr = pointerOperand(addr) {
		nonNil[AddrKey(addr)] = true
	}
}

// pointerOperand is the pointer an address computation v dereferences (the
// x of &x.f, or of &x[i] when x is a pointer to an array), or nil.
func pointerOperand(v ssa.Value) ssa.Value {
	switch a := v.(type) {
	case *ssa.FieldAddr:
		return a.X
	case *ssa.IndexAddr:
		if _, ok := a.X.Type().Underlying().(*types.Pointer); ok {
			return a.X
		}
	}
	return nil
}

// isNonNil reports whether pointer v cannot be nil at a point where
// nonNil holds.
func isNonNil(v ssa.Value, nonNil map[string]bool) bool {
	switch v.(type) {
	case *ssa.Alloc, *ssa.Global, *ssa.FieldAddr, *ssa.IndexAddr:
		// An address computed without panicking is not nil.
		return true
	}
	return nonNil[AddrKey(v)]
}

// MayPanicAt reports whether in may panic or not return, given the
// pointers known non-nil before it. It is mayPanic refined: loads, stores
// and field addresses through non-nil pointers, division and shifts by
// constants, and calls of simple functions do not.
func (f *Facts) MayPanicAt(in ssa.Instruction, nonNil map[string]bool) bool {
	switch in := in.(type) {
	case *ssa.FieldAddr:
		return !isNonNil(in.X, nonNil)
	case *ssa.UnOp:
		switch in.Op {
		case token.MUL:
			return !isNonNil(in.X, nonNil)
		case token.ARROW:
			return true
		}
		return false
	case *ssa.Store:
		return !isNonNil(in.Addr, nonNil)
	case *ssa.Field, *ssa.Extract, *ssa.Phi, *ssa.Alloc, *ssa.MakeMap:
		return false
	case *ssa.Index:
		return !constInRange(in.Index, in.X.Type())
	case *ssa.IndexAddr:
		if _, ok := in.X.Type().Underlying().(*types.Slice); ok {
			k, ok := constIndex(in.Index)
			return !ok || !nonNil[boundKey(in.X, k)]
		}
		pt, ok := in.X.Type().Underlying().(*types.Pointer)
		return !ok || !isNonNil(in.X, nonNil) || !constInRange(in.Index, pt.Elem())
	case *ssa.BinOp:
		switch in.Op {
		case token.QUO, token.REM:
			if b, ok := in.Y.Type().Underlying().(*types.Basic); ok && b.Info()&types.IsInteger == 0 {
				return false
			}
			// Only a zero divisor panics (x / -1 is defined for the most
			// negative x).
			c, ok := in.Y.(*ssa.Const)
			return !ok || c.Value == nil || constant.Sign(c.Value) == 0
		case token.SHL, token.SHR:
			if b, ok := in.Y.Type().Underlying().(*types.Basic); ok && b.Info()&types.IsUnsigned != 0 {
				return false
			}
			c, ok := in.Y.(*ssa.Const)
			return !ok || c.Value == nil || constant.Sign(c.Value) < 0
		}
		return false
	case *ssa.TypeAssert:
		return !in.CommaOk
	case *ssa.Call:
		if b, ok := in.Call.Value.(*ssa.Builtin); ok {
			switch b.Name() {
			case "append", "len", "cap", "min", "max", "real", "imag", "complex", "copy":
				return false
			}
			return true
		}
		if in.Call.IsInvoke() {
			return true
		}
		callee := in.Call.StaticCallee()
		return callee == nil || !f.Simple(callee)
	}
	return MayPanic(in)
}

// maxBoundIndex is the largest constant index noteNonNil records a
// slice's bound for: its facts grow with the index.
const maxBoundIndex = 255

// boundKey is the key of the fact "len(x) > k" in noteNonNil's map.
func boundKey(x ssa.Value, k int64) string { return fmt.Sprintf("len(%s)>%d", AddrKey(x), k) }

// constIndex returns the value of a constant, non-negative index.
func constIndex(idx ssa.Value) (int64, bool) {
	c, ok := idx.(*ssa.Const)
	if !ok || c.Value == nil {
		return 0, false
	}
	n, exact := constant.Int64Val(constant.ToInt(c.Value))
	return n, exact && n >= 0
}

// constInRange reports whether idx is a constant index within the array
// type t (or *array).
func constInRange(idx ssa.Value, t types.Type) bool {
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	at, ok := t.Underlying().(*types.Array)
	c, ok2 := idx.(*ssa.Const)
	if !ok || !ok2 || c.Value == nil {
		return false
	}
	n, exact := constant.Int64Val(c.Value)
	return exact && n >= 0 && n < at.Len()
}

// simpleFuncs memoizes which functions are simple: they have a body with
// no loop (an acyclic CFG), never panic (mayPanicAt, with their own
// non-nil facts), never synchronize, and call only simple functions; or
// they belong to package math, whose functions compute and return. A
// call of a simple function returns, normally, without synchronizing.
// Recursion is never simple.
type simpleFuncs struct {
	f    *Facts
	memo map[*ssa.Function]int8 // 1 simple, -1 not, 2 in progress
}

func (s *simpleFuncs) is(fn *ssa.Function) bool {
	if s.memo == nil {
		s.memo = map[*ssa.Function]int8{}
	}
	switch s.memo[fn] {
	case 1:
		return true
	case -1, 2:
		return false
	}
	s.memo[fn] = 2
	ok := s.compute(fn)
	if ok {
		s.memo[fn] = 1
	} else {
		s.memo[fn] = -1
	}
	return ok
}

func (s *simpleFuncs) compute(fn *ssa.Function) bool {
	if fn.Pkg != nil && fn.Pkg.Pkg.Path() == "math" {
		return true
	}
	if !s.f.ks.hasBody(fn) {
		// Another package's function: its summary says (summary.go).
		sum, ok := s.f.ks.externalLocked(fn)
		return ok && sum.Simple
	}
	if fn.Recover != nil || s.f.ks.Of(fn) != 0 {
		return false
	}
	if cyclic(fn) { // a loop may not terminate
		return false
	}
	for _, b := range fn.Blocks {
		nonNil := map[string]bool{}
		for _, in := range b.Instrs {
			switch in.(type) {
			case *ssa.Jump, *ssa.If, *ssa.Return, *ssa.DebugRef:
				continue
			case *ssa.Defer, *ssa.Go, *ssa.Panic, *ssa.RunDefers, *ssa.Send, *ssa.Select:
				return false
			}
			if s.f.MayPanicAt(in, nonNil) {
				return false
			}
			noteNonNil(in, nonNil)
		}
	}
	return true
}
