package placement

import (
	"fmt"
	"go/token"
	"go/types"
	"sort"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// Access summaries: checks of a callee moved into its callers.
//
// A function that reads k[0] and k[1] through its pointer parameter k on
// every call makes two checks per call; called in a loop, `for j := 0; j <
// rounds; j++ { round(r, &k[j]) }`, that is two checks per iteration where
// BigFoot's placement would make one range check k[0..rounds-1] for the
// loop. The thesis's [Call] rule (Rhodes' thesis §3.3.3) moves
// checks across a call only by the callee's synchronization; an access
// summary also says what memory the callee accesses through its
// parameters, so that the caller can check it instead: the single check
// "moved past later accesses" of BigFoot's placement, interprocedurally.
//
// A Cover is such a summary. It is sound to check the callee's accesses
// at the call site, before the call, exactly when they are certain to run
// once the call starts, with no synchronization between: the callee is
// harmless given a non-nil covered parameter (no synchronization, no
// panic other than the dereference of that parameter when it is nil, no
// loop, no recursion, no defer, it returns), and a covered access lies on
// every path from the entry to a return (a must access). Accesses on some
// paths only (the may set) keep their checks in the callee: checking them
// in the caller would check memory the call may not touch. The caller
// records the covered bytes only when the argument is non-nil: a nil
// argument makes the callee panic at its first dereference, before any
// covered access.
//
// The covered accesses are left unchecked in a copy of the callee that
// covered call sites call instead (the instrumenter's specialized copy);
// every other caller still calls the checked original.

// A Span is Size bytes at offset Off of the pointee of a parameter, read
// or (Write) written by every call.
type Span struct {
	Off, Size int64
	Write     bool
}

func (s Span) String() string {
	return fmt.Sprintf("%s [%d,%d)", kindName(s.Write), s.Off, s.Off+s.Size)
}

// A CoverSite is one access of the callee that the caller's check of the
// spans covers: the position go/ssa gives its load or store, its kind,
// and the bytes [Off, Off+Size) of the pointee it accesses.
type CoverSite struct {
	Pos       token.Pos
	Write     bool
	Off, Size int64
}

// A Cover is the access summary of a function: the bytes of the pointee
// of parameter Param that every call accesses, and the accesses that make
// them. Spans are disjoint, sorted by kind and offset; a read span never
// overlaps a write span (a write check covers the reads of its bytes).
type Cover struct {
	Param int // index in fn.Params (a method's receiver is 0)
	Spans []Span
	Sites []CoverSite
}

func (c *Cover) String() string {
	var parts []string
	for _, s := range c.Spans {
		parts = append(parts, s.String())
	}
	return fmt.Sprintf("param %d: %s", c.Param, strings.Join(parts, ", "))
}

// maxCoverBlocks bounds the functions CoverOf looks at: it is for small
// leaf functions called in loops.
const maxCoverBlocks = 64

// CoverOf returns the access summary of fn, or nil if fn has none: no
// pointer parameter that every call dereferences, or a body that may
// synchronize, panic otherwise, loop, recurse or defer. sizes is the
// target's layout (nil: the gc compiler's for amd64).
func (f *Facts) CoverOf(fn *ssa.Function) *Cover {
	if fn == nil || len(fn.Blocks) == 0 || len(fn.Blocks) > maxCoverBlocks || fn.Parent() != nil ||
		len(fn.FreeVars) > 0 || fn.Recover != nil || fn.TypeParams().Len() > 0 || len(fn.TypeArgs()) > 0 || cyclic(fn) {
		return nil
	}
	if f.ks == nil || f.ks.Of(fn) != 0 {
		return nil
	}
	var best *Cover
	for i, p := range fn.Params {
		if _, ok := p.Type().Underlying().(*types.Pointer); !ok {
			continue
		}
		if c := f.coverParam(fn, i); c != nil && (best == nil || width(c) > width(best)) {
			best = c
		}
	}
	return best
}

func width(c *Cover) int64 {
	var n int64
	for _, s := range c.Spans {
		n += s.Size
	}
	return n
}

// coverParam returns the cover of fn's parameter i, assumed non-nil, or
// nil.
func (f *Facts) coverParam(fn *ssa.Function, i int) *Cover {
	p := fn.Params[i]
	must := mustBlocks(fn)
	type acc struct {
		off, size int64
		write     bool
		pos       token.Pos
	}
	var accs []acc
	ok := walkNonNil(fn, p, func(in ssa.Instruction, nonNil map[string]bool) bool {
		if in, isCall := in.(*ssa.Call); isCall {
			s := f.ks.CallSummary(in)
			return s.Harmless() && !in.Call.IsInvoke() && f.ks.Instr(in) == 0 && !HandlerCall(in)
		}
		if f.MayPanicAt(in, nonNil) {
			return false
		}
		addr := AddrOf(in)
		if addr == nil || !must[in.Block()] || !in.Pos().IsValid() {
			return true
		}
		if off, size, ok := f.offsetIn(addr, p); ok {
			_, write := in.(*ssa.Store)
			accs = append(accs, acc{off, size, write, in.Pos()})
		}
		return true
	})
	if !ok {
		return nil
	}
	if len(accs) == 0 {
		return nil
	}
	// The bytes written, then the bytes only read.
	written := map[int64]bool{}
	read := map[int64]bool{}
	for _, a := range accs {
		for x := a.off; x < a.off+a.size; x++ {
			if a.write {
				written[x] = true
			} else {
				read[x] = true
			}
		}
	}
	for x := range written {
		delete(read, x)
	}
	c := &Cover{Param: i}
	c.Spans = append(runs(written, true), runs(read, false)...)
	if len(c.Spans) == 0 || len(c.Spans) > 4 {
		return nil
	}
	for _, a := range accs {
		c.Sites = append(c.Sites, CoverSite{a.pos, a.write, a.off, a.size})
	}
	return c
}

// runs returns the maximal runs of consecutive offsets in set as spans.
func runs(set map[int64]bool, write bool) []Span {
	xs := make([]int64, 0, len(set))
	for x := range set {
		xs = append(xs, x)
	}
	sort.Slice(xs, func(i, j int) bool { return xs[i] < xs[j] })
	var out []Span
	for _, x := range xs {
		if n := len(out); n > 0 && out[n-1].Off+out[n-1].Size == x {
			out[n-1].Size++
			continue
		}
		out = append(out, Span{Off: x, Size: 1, Write: write})
	}
	return out
}

// offsetIn returns the byte offset and size of the location addr within
// the pointee of p: addr is p, or fields and constant in-range array
// indices of it (never through a loaded pointer).
func (f *Facts) offsetIn(addr ssa.Value, p *ssa.Parameter) (off, size int64, ok bool) {
	sizes := f.sizes
	if sizes == nil {
		sizes = types.SizesFor("gc", "amd64")
	}
	elem := addr.Type().Underlying().(*types.Pointer).Elem()
	size = sizes.Sizeof(elem)
	for v := addr; ; {
		switch a := v.(type) {
		case *ssa.Parameter:
			return off, size, a == p && size > 0
		case *ssa.FieldAddr:
			st := a.X.Type().Underlying().(*types.Pointer).Elem().Underlying().(*types.Struct)
			fields := make([]*types.Var, st.NumFields())
			for i := range fields {
				fields[i] = st.Field(i)
			}
			off += sizes.Offsetsof(fields)[a.Field]
			v = a.X
		case *ssa.IndexAddr:
			pt, isPtr := a.X.Type().Underlying().(*types.Pointer)
			if !isPtr || !constInRange(a.Index, pt.Elem()) {
				return 0, 0, false
			}
			at := pt.Elem().Underlying().(*types.Array)
			n := a.Index.(*ssa.Const).Int64()
			off += n * sizes.Sizeof(at.Elem())
			v = a.X
		default:
			return 0, 0, false
		}
	}
}

// mustBlocks returns the blocks of fn (acyclic) on every path from its
// entry to a return: those whose removal leaves no return reachable.
func mustBlocks(fn *ssa.Function) map[*ssa.BasicBlock]bool {
	returns := func(b *ssa.BasicBlock) bool {
		_, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
		return ok
	}
	must := map[*ssa.BasicBlock]bool{}
	for _, avoid := range fn.Blocks {
		seen := map[*ssa.BasicBlock]bool{avoid: true}
		reached := false
		var visit func(b *ssa.BasicBlock)
		visit = func(b *ssa.BasicBlock) {
			if seen[b] || reached {
				return
			}
			seen[b] = true
			if returns(b) {
				reached = true
				return
			}
			for _, s := range b.Succs {
				visit(s)
			}
		}
		if fn.Blocks[0] != avoid {
			visit(fn.Blocks[0])
		}
		must[avoid] = !reached
	}
	return must
}

// QuietWith reports whether no call of fn with a non-nil parameter i can
// show fn's frame to the program: fn cannot panic (a panic's trace names
// it), and it calls only functions that cannot panic either, except
// functions it passes its parameter on to, which must be quiet with it in
// turn (their own copies). It has no defer, go statement, channel
// operation or select. The instrumenter's specialized copies of a
// function run under another name (F__bfup<i>), which runtime.Caller, a
// panic's trace or a blocked goroutine's dump would show; a function
// that cannot reach any of those keeps the instrumentation invisible.
func (f *Facts) QuietWith(fn *ssa.Function, i int) bool {
	return f.quietWith(fn, i, map[*ssa.Function]bool{})
}

func (f *Facts) quietWith(fn *ssa.Function, i int, visiting map[*ssa.Function]bool) bool {
	if fn == nil || i >= len(fn.Params) || len(fn.Blocks) == 0 || fn.Recover != nil || visiting[fn] {
		return false // recursion: not proved
	}
	visiting[fn] = true
	defer delete(visiting, fn)
	p := fn.Params[i]
	return walkNonNil(fn, p, func(in ssa.Instruction, nonNil map[string]bool) bool {
		switch in := in.(type) {
		case *ssa.Call:
			if in.Call.IsInvoke() || HandlerCall(in) {
				return false
			}
			if !f.ks.CallSummary(in).MayPanic {
				return true
			}
			// Only a call passing the parameter on, to a callee quiet
			// with it, may panic when the parameter is nil.
			j := -1
			for k, a := range in.Call.Args {
				if DerivedFrom(a, p) {
					j = k
				}
			}
			return j >= 0 && f.quietWith(in.Call.StaticCallee(), j, visiting)
		case *ssa.UnOp:
			if in.Op == token.ARROW {
				return false
			}
		}
		return !f.MayPanicAt(in, nonNil)
	})
}

// walkNonNil calls visit for each instruction of fn that may fail or
// call, in block order, with the pointers known to be non-nil there (the
// parameter p from the block's start, and what the block dereferenced
// before), and reports whether every visit returned true. It returns
// false at once at a defer, go statement, panic, channel send or select:
// the instructions after which a function's effects and its frame can no
// longer be reasoned about one call at a time.
func walkNonNil(fn *ssa.Function, p *ssa.Parameter, visit func(in ssa.Instruction, nonNil map[string]bool) bool) bool {
	for _, b := range fn.Blocks {
		nonNil := map[string]bool{AddrKey(p): true}
		for _, in := range b.Instrs {
			switch in.(type) {
			case *ssa.Jump, *ssa.If, *ssa.Return, *ssa.DebugRef:
				continue
			case *ssa.Defer, *ssa.Go, *ssa.RunDefers, *ssa.Panic, *ssa.Send, *ssa.Select:
				return false
			}
			if !visit(in, nonNil) {
				return false
			}
			noteNonNil(in, nonNil)
		}
	}
	return true
}
