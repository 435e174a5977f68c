package placement

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"maps"
	"slices"
	"strings"

	"golang.org/x/tools/go/ssa"

	"github.com/bigfoot-go/bigfoot/mode"
)

// Footprints: the deferred checks of -mode=slimstate and -mode=bigfoot
// (docs/instrument.md, "deferred checks"; the runtime's
// detector.Footprint).
//
// An access in a loop of its function records its address in a footprint
// instead of being checked in place; the footprint merges the addresses
// it records into strided ranges and checks them at the goroutine's next
// synchronization, at the function's return, or when the pattern breaks.
// Which accesses share a footprint decides which ranges form, and which
// sites a report of a race in one of them has to choose from. The plan
// decides it over SSA:
//
//   - an element access a[e], a[e].f.g (an IndexAddr of a slice, an
//     array or a pointer to one, below field selections of the element)
//     in a natural loop of its function shares a footprint with the
//     element accesses of its kind in the function's loops that have the
//     same operand, field path and index progression: the index with
//     constant terms added or subtracted at the top left out, so that
//     a[i-1], a[i] and a[i+1] share one, a[2*i] and a[2*i+1] share one,
//     and a[i] and a[j] do not (SlimState's per-thread footprints merge
//     the first into maximal ranges, Rhodes' thesis §3.5.2; a merge
//     loop's a[i] and b[j], each advancing on its own, keep a range
//     each). Operands and indices are compared by their computation
//     (loads of one field, the same φ), not by SSA value;
//   - the element read of a range statement over a slice or a pointer to
//     an array has a footprint of its own, keyed by the statement's
//     value variable (go/ssa gives the load no position);
//   - in -mode=bigfoot, a field access v.f.g whose base v is
//     invariant in the innermost loop holding the access (defined
//     outside it, or a load of a variable the loop does not store) has a
//     footprint per field path and kind: BigFoot's loop-invariant checks
//     (Rhodes' thesis §3.3.3), made at run time, so that a loop left
//     early, a recovered panic or runtime.Goexit checks exactly the
//     accesses that ran;
//   - a call of append in a natural loop of its function has a
//     footprint of its own for the writes of the elements it adds
//     (keyed by its position, SiteKey{Lparen, true}): s = append(s, c)
//     in a parser's or an encoder's loop writes the next element of s at
//     each iteration, one range per backing array;
//   - in -mode=bigfoot, a field group's check (GroupAt) in a natural
//     loop whose object is invariant there as above, or an element
//     p := &s[j] the loop computes before the access, has a footprint
//     per object, fields and kind: moldyn's pi.x, pi.y, pi.z (pi fixed
//     in the inner loop) are checked once per synchronization-free
//     stretch, pj.x, ... of pj := &ps[j] as one strided range.
//
// The runtime checks whatever addresses a footprint records, so the
// grouping decides the cost and the report, never soundness. The static
// loop ranges (LoopSites) and field groups are decided elsewhere; a site
// with a static range keeps it.

// A FootprintKind says why sites share a footprint.
type FootprintKind uint8

const (
	FootprintElement FootprintKind = iota // a[e], a[e].f: operand, field path, index progression
	FootprintRange                        // a range statement's element read
	FootprintField                        // a loop-invariant field path (bigfoot)
	FootprintGroup                        // a field group's check (bigfoot), at its anchor
	FootprintAppend                       // an append's writes of its new elements
)

var footprintKindNames = [...]string{"element", "range", "field", "group", "append"}

func (k FootprintKind) String() string { return footprintKindNames[k] }

// A Footprint is one deferred check of a function: the sites whose
// accesses record their addresses in it.
type Footprint struct {
	ID    int // in the package, in source order of the first site
	Func  string
	Kind  FootprintKind
	Write bool
	// Key is what the sites share: "a.f@i" (operand, field path and
	// index progression), "over xs at 12:2" (a range statement's),
	// "field p.n" or "group p.x-z".
	Key   string
	Sites []FootprintSite // in source order
}

// A FootprintSite is one site of a footprint, with its index term's
// constant: a[2*i+1] is at Delta 1 of the progression 2*i (0 for the
// sites of other kinds).
type FootprintSite struct {
	SiteKey
	Delta int64
	// Repeat: the site accesses the element that another site of the
	// footprint accessed earlier in the same iteration (repeatSites):
	// it never grows the footprint's range, so a report never has to
	// tell its elements from that site's.
	Repeat bool
}

// fpCand is a site of a footprint being gathered (AddFunction), by key.
type fpCand struct {
	fn    *ssa.Function
	kind  FootprintKind
	write bool
	key   string
	sites map[SiteKey]int64
	// accs are the sites' access instructions and addresses
	// (element accesses only), for repeatSites
	accs    map[SiteKey]siteAccess
	repeats map[SiteKey]bool
}

// A siteAccess is a footprint site's access: its instruction and the
// address it accesses.
type siteAccess struct {
	instr ssa.Instruction
	addr  ssa.Value
}

// AddFootprints gathers the footprint sites of fn in mode m (one with
// footprints); info types fn's syntax (the range statements). Decide, or
// DecideFootprints in a plan that holds nothing else, decides them once
// every function of the package is added. AddFunction calls it.
func (p *SitePlan) AddFootprints(fn *ssa.Function, info *types.Info, m mode.Mode) {
	cands := map[string]*fpCand{}
	addFootprints(fn, info, m.StaticRanges(), cands)
	p.mu.Lock()
	defer p.mu.Unlock()
	for k, c := range cands {
		if old := p.fpCands[k]; old != nil {
			maps.Copy(old.sites, c.sites)
			maps.Copy(old.repeats, c.repeats)
		} else {
			p.fpCands[k] = c
		}
	}
}

// DecideFootprints decides the footprints of a plan made with
// AddFootprints alone (-mode=slimstate, which has no other decisions).
func (p *SitePlan) DecideFootprints() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.decideFootprints()
}

// addFootprints gathers the footprint sites of fn into cands, keyed by
// function, kind, key and access kind. info types fn's syntax (for the
// range statements); fields says whether loop-invariant fields get one
// (bigfoot).
func addFootprints(fn *ssa.Function, info *types.Info, fields bool, cands map[string]*fpCand) {
	inner := innermostLoops(fn)
	if len(inner) == 0 {
		return
	}
	selStart := selectorStarts(fn.Syntax())
	add := func(kind FootprintKind, write bool, key string, k SiteKey, delta int64) *fpCand {
		ck := fmt.Sprintf("%d %s %d %v %s", fn.Pos(), fn.String(), kind, write, key)
		c := cands[ck]
		if c == nil {
			c = &fpCand{fn: fn, kind: kind, write: write, key: key, sites: map[SiteKey]int64{}, accs: map[SiteKey]siteAccess{}}
			cands[ck] = c
		}
		c.sites[k] = delta
		return c
	}
	defer func() {
		for _, c := range cands {
			c.repeats = repeatSites(c.accs)
		}
	}()
	for _, b := range fn.Blocks {
		loop := inner[b]
		if loop == nil {
			continue
		}
		for _, in := range b.Instrs {
			var addr ssa.Value
			write := false
			switch in := in.(type) {
			case *ssa.Call:
				if isAppend(in) && in.Pos().IsValid() {
					p := fn.Prog.Fset.Position(in.Pos())
					add(FootprintAppend, true, fmt.Sprintf("append at %d:%d", p.Line, p.Column), SiteKey{in.Pos(), true}, 0)
				}
				continue
			case *ssa.UnOp:
				if in.Op != token.MUL {
					continue
				}
				addr = in.X
			case *ssa.Store:
				addr, write = in.Addr, true
			default:
				continue
			}
			if !in.Pos().IsValid() {
				continue
			}
			k := SiteKey{in.Pos(), write}
			start := in.Pos()
			if st, ok := selStart[start]; ok {
				start = st
			}
			if key, delta, ok := elementKey(addr, start); ok {
				add(FootprintElement, write, key, k, delta).accs[k] = siteAccess{in, addr}
			} else if fields {
				if key, ok := invariantField(addr, loop); ok {
					add(FootprintField, write, key, k, 0)
				}
			}
		}
	}
	if info != nil {
		addRangeFootprints(fn, info, add)
	}
}

// isAppend reports whether c calls the builtin append. Its position is
// the call's left parenthesis.
func isAppend(c *ssa.Call) bool {
	b, ok := c.Call.Value.(*ssa.Builtin)
	return ok && b.Name() == "append"
}

// addRangeFootprints adds the element reads of fn's range statements
// over a slice or a pointer to an array with a value variable, one
// footprint each, keyed by the value variable's position: the element
// the language makes the loop read in order.
func addRangeFootprints(fn *ssa.Function, info *types.Info, add func(FootprintKind, bool, string, SiteKey, int64) *fpCand) {
	inspectOwn(fn, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.RangeStmt:
			if n.Value == nil || n.Tok != token.DEFINE {
				return true
			}
			if id, ok := n.Value.(*ast.Ident); ok && id.Name == "_" {
				return true
			}
			t := info.TypeOf(n.X)
			if t == nil {
				return true
			}
			switch u := CoreType(t).(type) {
			case *types.Slice:
			case *types.Pointer:
				if _, ok := CoreType(u.Elem()).(*types.Array); !ok {
					return true
				}
			default:
				return true
			}
			p := fn.Prog.Fset.Position(n.Pos())
			add(FootprintRange, false, fmt.Sprintf("over %s at %d:%d", types.ExprString(n.X), p.Line, p.Column), SiteKey{n.Value.Pos(), false}, 0)
		}
		return true
	})
}

// selectorStarts maps the position of the selected name of each selector
// expression in syn to the expression's start.
func selectorStarts(syn ast.Node) map[token.Pos]token.Pos {
	out := map[token.Pos]token.Pos{}
	if syn == nil {
		return out
	}
	ast.Inspect(syn, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			out[sel.Sel.Pos()] = sel.Pos()
		}
		return true
	})
	return out
}

// elementKey returns the key of the element access through addr (an
// IndexAddr of a slice, array or pointer to an array, below direct
// field selections) made by the expression that starts at start: its
// operand and field path, "@", its index with the constant terms at the
// top left out, and those terms' sum. The element's address must be
// computed by that expression (s[i].f), not taken earlier (p := &s[i]
// before p.f, which records p's field at whatever element p is).
func elementKey(addr ssa.Value, start token.Pos) (key string, delta int64, ok bool) {
	var fields []string
	for {
		switch a := addr.(type) {
		case *ssa.FieldAddr:
			fields = append(fields, fieldName(a.X.Type(), a.Field))
			addr = a.X
			continue
		case *ssa.IndexAddr:
			if a.Pos() < start {
				return "", 0, false
			}
			idx, delta := dropConstTerms(a.Index)
			var b strings.Builder
			b.WriteString(exprKey(a.X, 0))
			for i := len(fields) - 1; i >= 0; i-- {
				b.WriteString("." + fields[i])
			}
			return b.String() + "@" + exprKey(idx, 0), delta, true
		}
		return "", 0, false
	}
}

// repeatSites returns the sites of accs, one footprint's element
// accesses in one function, that access the element another of them
// accessed earlier in the same iteration: a site whose address is
// computed from the same values (the same operand and index values, the
// same fields, loads of the same address) as a site whose instruction
// dominates it. Every value the address is computed from dominates the
// earlier site, so no path reaches the later one through a new
// definition of a value that skips the earlier one: both access one
// element (buf[j] in a merge's condition and in the assignment it
// guards). The runtime checks whatever a footprint records: this decides
// only which record form (F or FM) a site gets.
func repeatSites(accs map[SiteKey]siteAccess) map[SiteKey]bool {
	var out map[SiteKey]bool
	for k, a := range accs {
		for k2, b := range accs {
			if k2 != k && dominatesInstr(b.instr, a.instr) && addrsAlike(a.addr, b.addr, true) {
				if out == nil {
					out = map[SiteKey]bool{}
				}
				out[k] = true
				break
			}
		}
	}
	return out
}

// dominatesInstr reports whether a, another instruction than b, comes
// before b on every path from the function's entry to b.
func dominatesInstr(a, b ssa.Instruction) bool {
	ab, bb := a.Block(), b.Block()
	if ab != bb {
		return ab.Dominates(bb)
	}
	for _, in := range ab.Instrs {
		switch in {
		case a:
			return true
		case b:
			return false
		}
	}
	return false
}

// invariantField returns the key of the field access through addr, a
// field path v.f.g, if its base v is invariant in the loop: a value
// defined outside the loop's blocks, or a load of a variable that no
// instruction of the loop stores.
func invariantField(addr ssa.Value, loop map[*ssa.BasicBlock]bool) (string, bool) {
	var fields []string
	for {
		fa, ok := addr.(*ssa.FieldAddr)
		if !ok {
			break
		}
		fields = append(fields, fieldName(fa.X.Type(), fa.Field))
		addr = fa.X
	}
	if len(fields) == 0 || !invariantIn(addr, loop) {
		return "", false
	}
	k := exprKey(addr, 0)
	for i := len(fields) - 1; i >= 0; i-- {
		k += "." + fields[i]
	}
	return "field " + k, true
}

// invariantIn reports whether v has the same value in every iteration of
// loop: a parameter or free variable, an instruction outside the loop,
// or a load from a local variable (Alloc) or free variable the loop never
// stores to (nor passes anywhere: a call could store through it).
func invariantIn(v ssa.Value, loop map[*ssa.BasicBlock]bool) bool {
	switch v := v.(type) {
	case *ssa.Parameter:
		return true
	case *ssa.Global, *ssa.Const:
		return false // a package-level variable: any call may assign it
	case *ssa.UnOp:
		if v.Op != token.MUL || !loop[v.Block()] {
			return !loop[v.Block()]
		}
		switch x := v.X.(type) {
		case *ssa.Alloc, *ssa.FreeVar:
			for _, ref := range *x.Referrers() {
				if ref.Block() == nil || !loop[ref.Block()] {
					continue
				}
				switch ref := ref.(type) {
				case *ssa.UnOp:
				case *ssa.DebugRef:
				case *ssa.Store:
					if ref.Addr == x {
						return false
					}
				default:
					return false // its address escapes in the loop
				}
			}
			return true
		}
		return false
	case ssa.Instruction:
		return !loop[v.Block()]
	}
	return false
}

// fieldName is the name of field i of the struct t points to.
func fieldName(t types.Type, i int) string {
	if p, ok := CoreType(t).(*types.Pointer); ok {
		if st, ok := CoreType(p.Elem()).(*types.Struct); ok && i < st.NumFields() {
			return st.Field(i).Name()
		}
	}
	return fmt.Sprint("#", i)
}

// dropConstTerms strips the constant operands of a top-level sum or
// difference from the index x and returns what is left and their sum:
// i+1, 1+i and i-1 give i.
func dropConstTerms(x ssa.Value) (ssa.Value, int64) {
	var delta int64
	for {
		switch v := x.(type) {
		case *ssa.Convert:
			x = v.X
			continue
		case *ssa.BinOp:
			if v.Op == token.ADD || v.Op == token.SUB {
				if c, ok := v.Y.(*ssa.Const); ok {
					if k, ok := constInt(c); ok {
						if v.Op == token.SUB {
							k = -k
						}
						delta += k
						x = v.X
						continue
					}
				}
				if c, ok := v.X.(*ssa.Const); ok && v.Op == token.ADD {
					if k, ok := constInt(c); ok {
						delta += k
						x = v.Y
						continue
					}
				}
			}
		}
		return x, delta
	}
}

// exprKey names the computation of v: loads, field and element
// addresses, arithmetic and conversions by their operands, so that two
// loads of p.buf or two evaluations of 2*i name one thing; anything else
// (a φ, a parameter, a call) by its SSA name. depth bounds the walk.
func exprKey(v ssa.Value, depth int) string {
	if depth > 8 {
		return "…" + v.Name()
	}
	switch v := v.(type) {
	case *ssa.Const:
		if v.Value == nil {
			return "nil"
		}
		return v.Value.ExactString()
	case *ssa.UnOp:
		return v.Op.String() + "(" + exprKey(v.X, depth+1) + ")"
	case *ssa.BinOp:
		return "(" + exprKey(v.X, depth+1) + v.Op.String() + exprKey(v.Y, depth+1) + ")"
	case *ssa.FieldAddr:
		return exprKey(v.X, depth+1) + "." + fieldName(v.X.Type(), v.Field)
	case *ssa.IndexAddr:
		return exprKey(v.X, depth+1) + "[" + exprKey(v.Index, depth+1) + "]"
	case *ssa.Convert:
		return exprKey(v.X, depth+1)
	case *ssa.ChangeType:
		return exprKey(v.X, depth+1)
	case *ssa.Global:
		return "global " + v.RelString(nil)
	case *ssa.Parameter, *ssa.FreeVar:
		return v.Name()
	}
	return v.Name() // an SSA register: t12
}

// innermostLoops maps each block of fn that lies in a natural loop to the
// body of the innermost such loop.
func innermostLoops(fn *ssa.Function) map[*ssa.BasicBlock]map[*ssa.BasicBlock]bool {
	var loops []map[*ssa.BasicBlock]bool
	byHeader := map[*ssa.BasicBlock]map[*ssa.BasicBlock]bool{}
	for _, b := range fn.Blocks {
		for _, h := range b.Succs {
			if !h.Dominates(b) {
				continue
			}
			body := byHeader[h]
			if body == nil {
				body = map[*ssa.BasicBlock]bool{h: true}
				byHeader[h] = body
				loops = append(loops, body)
			}
			stack := []*ssa.BasicBlock{b}
			for len(stack) > 0 {
				x := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				if !body[x] {
					body[x] = true
					stack = append(stack, x.Preds...)
				}
			}
		}
	}
	out := map[*ssa.BasicBlock]map[*ssa.BasicBlock]bool{}
	for _, body := range loops {
		for b := range body {
			if old := out[b]; old == nil || len(body) < len(old) {
				out[b] = body
			}
		}
	}
	return out
}

// addGroupFootprints adds the footprints of the field groups of the
// plan whose checks record into one (the anchor's access acc[anchor]).
func (p *SitePlan) addGroupFootprints(acc map[SiteKey][]*Access) {
	loops := map[*ssa.Function]map[*ssa.BasicBlock]map[*ssa.BasicBlock]bool{}
	starts := map[*ssa.Function]map[token.Pos]token.Pos{}
	for k, g := range p.groupAt {
		if len(acc[k]) != 1 {
			continue
		}
		in := acc[k][0].Instr
		fa, ok := AddrOf(in).(*ssa.FieldAddr)
		fn := in.Parent()
		if !ok || fn == nil {
			continue
		}
		if loops[fn] == nil {
			loops[fn], starts[fn] = innermostLoops(fn), selectorStarts(fn.Syntax())
		}
		loop := loops[fn][in.Block()]
		if loop == nil {
			continue
		}
		base := fa.X
		start, ok := starts[fn][k.Pos]
		alias := false
		if ix, isIx := base.(*ssa.IndexAddr); isIx && ok && ix.Pos() < start && loop[ix.Block()] {
			alias = true
		}
		if !alias && !invariantIn(base, loop) {
			continue
		}
		key := fmt.Sprintf("group %s.%s-%s", exprKey(base, 0), g.Struct.Field(g.Fields[0]).Name(), g.Struct.Field(g.Fields[len(g.Fields)-1]).Name())
		ck := fmt.Sprintf("%d %s %d %v %s", fn.Pos(), fn.String(), FootprintGroup, k.Write, key)
		c := p.fpCands[ck]
		if c == nil {
			c = &fpCand{fn: fn, kind: FootprintGroup, write: k.Write, key: key, sites: map[SiteKey]int64{}}
			p.fpCands[ck] = c
		}
		c.sites[k] = 0
	}
}

// decideFootprints turns the gathered candidates into the plan's
// footprints: a site in several (two instantiations' bodies share
// positions) stays in the first; a site dropped, in a field group or
// unpublished has that decision instead (a site has one decision),
// except a group's anchor in its group's footprint.
// Sites with a static range keep it (LoopSites): the footprint is where
// the instrumenter records them if it cannot render the range.
func (p *SitePlan) decideFootprints() {
	list := slices.Collect(maps.Values(p.fpCands))
	p.fpCands = nil
	first := func(c *fpCand) SiteKey { return slices.MinFunc(slices.Collect(maps.Keys(c.sites)), SiteKey.compare) }
	slices.SortFunc(list, func(a, b *fpCand) int {
		if c := first(a).compare(first(b)); c != 0 {
			return c
		}
		return cmp.Compare(a.key, b.key)
	})
	for _, c := range list {
		f := &Footprint{Func: c.fn.String(), Kind: c.kind, Write: c.write, Key: c.key}
		for _, k := range slices.SortedFunc(maps.Keys(c.sites), SiteKey.compare) {
			other := p.drops[k] != nil || p.groupAt[k] != nil || p.memberOf[k] != nil || p.unpub[k]
			if p.footprintOf[k] == nil && (c.kind == FootprintGroup || !other) {
				f.Sites = append(f.Sites, FootprintSite{k, c.sites[k], c.repeats[k]})
				p.footprintOf[k] = f
			}
		}
		if len(f.Sites) > 0 {
			f.ID = len(p.footprints)
			p.footprints = append(p.footprints, f)
		}
	}
}

// LogsSites reports whether f's accesses must log their sites for a
// report to tell them apart: two of its sites that may grow its range
// (not a Repeat) access the same elements of its progression (s[i] in
// both branches of an if, a merge's dst[k]). Sites at different offsets
// (pairs[2*i], pairs[2*i+1]) are told apart by their index. Such a
// footprint records with detector.FM, which logs each change of site
// (docs/runtime.md, "Site changes"), instead of F.
func (f *Footprint) LogsSites() bool {
	if f.Kind != FootprintElement {
		return false // one field of one object, or one range's reads: the first access names it
	}
	seen := map[int64]bool{}
	for _, s := range f.Sites {
		if s.Repeat {
			continue
		}
		if seen[s.Delta] {
			return true
		}
		seen[s.Delta] = true
	}
	return false
}

// FootprintOf returns the footprint whose sites include the access of
// kind k.Write at k.Pos (for a range statement's element read, the
// position of its value variable), or nil: the access is checked where
// it is (or has a static range).
func (p *SitePlan) FootprintOf(k SiteKey) *Footprint {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.footprintOf[k]
}

// RefuseUnreached records, for every site of a footprint at a position in
// [pos, end) (a file) that the instrumenter neither rendered nor refused,
// that it did not render it, and why.
func (p *SitePlan) RefuseUnreached(pos, end token.Pos, why string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for k := range p.footprintOf {
		ek := entryKey{k, EntryFootprint}
		if pos <= k.Pos && k.Pos < end && !p.rendered[ek] {
			if _, ok := p.refused[ek]; !ok {
				p.refused[ek] = why
			}
		}
	}
}

// A FootprintDecision is a footprint of the plan with what the
// instrumenter made of each site, as bigfoot analyze prints it.
type FootprintDecision struct {
	ID    int    `json:"id"`
	Func  string `json:"func"`
	Kind  string `json:"kind"`
	Write bool   `json:"write"`
	Key   string `json:"key"`
	// LogsSites: the sites record with FM, logging changes of site
	// (Footprint.LogsSites).
	LogsSites bool `json:"logsSites,omitempty"`
	// Sites are the accesses that record into the footprint, each
	// rendered as a record (Rendered), refused with a reason (its
	// access is then checked where it is), or never reached.
	Sites []FootprintSiteDecision `json:"sites"`
}

// A FootprintSiteDecision is one site of a footprint.
type FootprintSiteDecision struct {
	Pos      token.Position `json:"pos"`
	Delta    int64          `json:"delta"`
	Repeat   bool           `json:"repeat,omitempty"`
	Rendered bool           `json:"rendered,omitempty"`
	Refused  string         `json:"refused,omitempty"`
}

func (d FootprintDecision) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "footprint %d of %s: %s %s %s", d.ID, d.Func, kindName(d.Write), d.Kind, d.Key)
	if d.LogsSites {
		b.WriteString(", logging its sites")
	}
	b.WriteString(":")
	for _, s := range d.Sites {
		rep := ""
		if s.Repeat {
			rep = " (a repeat)"
		}
		fmt.Fprintf(&b, "\n\t%s%s%s", s.Pos, rep, renderState(s.Rendered, s.Refused))
	}
	return b.String()
}

// FootprintDecisions returns the plan's footprints in source order of
// their first sites, in files for which keep says so.
func (p *SitePlan) FootprintDecisions(fset *token.FileSet, keep func(file string) bool) []FootprintDecision {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []FootprintDecision
	for _, f := range p.footprints {
		d := FootprintDecision{ID: f.ID, Func: f.Func, Kind: f.Kind.String(), Write: f.Write, Key: f.Key, LogsSites: f.LogsSites()}
		for _, s := range f.Sites {
			k := entryKey{s.SiteKey, EntryFootprint}
			d.Sites = append(d.Sites, FootprintSiteDecision{Pos: fset.Position(s.Pos), Delta: s.Delta, Repeat: s.Repeat, Rendered: p.rendered[k], Refused: p.refused[k]})
		}
		if keep(d.Sites[0].Pos.Filename) {
			out = append(out, d)
		}
	}
	return out
}
