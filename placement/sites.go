package placement

import (
	"cmp"
	"fmt"
	"go/token"
	"go/types"
	"maps"
	"slices"
	"strings"
	"sync"
)

// The site plan (docs/placement.md, "The site plan").
//
// A SitePlan holds placement's decisions on the access sites of one
// package, keyed by position and kind, for the instrumenter to render:
// it maps each decision onto the syntax at that position and decides
// nothing of its own. Where it cannot render a decision (the syntax has
// no form for it), it writes its refusal and the reason back into the
// plan (Refuse) and checks the accesses at the access instead, so that
// the plan, refusals included, says what the binary does.
//
// The plan holds the static loop ranges (LoopSites) and which of them
// merge into one (RangeMerge), the RedCard drops, the field groups, the
// unpublished sites, the covered calls (AddFunction, Decide) and the
// footprints (AddFootprints; footprints.go).

// A SiteKey names the accesses of one kind at one source position: the
// position go/ssa gives the load or store (Access.Pos: the selector of
// x.f, the bracket of a[i], the star of *p), or, for an element address
// (LoopSite), its bracket.
type SiteKey struct {
	Pos   token.Pos
	Write bool
}

func (k SiteKey) compare(o SiteKey) int {
	if c := cmp.Compare(k.Pos, o.Pos); c != 0 {
		return c
	}
	switch {
	case k.Write == o.Write:
		return 0
	case o.Write:
		return -1
	}
	return 1
}

// A SitePlan is the decisions on the sites of one package. Its methods
// may be called from several goroutines.
type SitePlan struct {
	mu       sync.Mutex
	loops    map[SiteKey]*LoopSite
	drops    map[SiteKey]*Drop
	groupAt  map[SiteKey]*Group // by anchor
	memberOf map[SiteKey]*Group // by member left out
	unpub    map[SiteKey]bool
	mergeOf  map[SiteKey]*RangeMerge // by member
	covered  map[SiteKey]bool        // covered calls, by the call's parenthesis
	// footprints are the deferred checks, by ID; footprintOf by site
	// (footprints.go)
	footprints  []*Footprint
	footprintOf map[SiteKey]*Footprint
	fpCands     map[string]*fpCand // until Decide or DecideFootprints
	// access are the accesses of each site (Decide); notShared the
	// loads and stores of the sites that have only loads and stores of
	// memory no other goroutine can reach.
	access    map[SiteKey][]*Access
	notShared map[SiteKey][]*Access
	// groupStructs are the structs whose fields BigFoot's plans group.
	groupStructs map[*types.Struct]bool
	refused      map[entryKey]string
	rendered     map[entryKey]bool
	facts        siteFacts // until Decide
}

// An Entry is a kind of decision on a site.
type Entry uint8

const (
	EntryRange       Entry = iota // a static loop range (Loop)
	EntryDrop                     // a dropped check (Drop)
	EntryGroup                    // a field group's check, at its anchor (GroupAt)
	EntryMember                   // a member left out for its group (MemberOf)
	EntryUnpublished              // an unpublished site (Unpublished)
	EntryCall                     // a covered call, at its parenthesis (CoveredCall)
	EntryMerge                    // a merged static range, at its first member (Merges)
	EntryFootprint                // a site of a footprint (FootprintOf)
	EntryCheck                    // a check of its own, at the access (checks)
	EntryNotShared                // memory no other goroutine can reach (NotShared)
)

var entryNames = [...]string{"range", "dropped", "group", "member", "unpublished", "covered call", "merge", "footprint", "check", "not shared"}

func (e Entry) String() string { return entryNames[e] }

type entryKey struct {
	SiteKey
	entry Entry
}

// NewSitePlan returns an empty plan.
func NewSitePlan() *SitePlan {
	return &SitePlan{
		loops: map[SiteKey]*LoopSite{}, drops: map[SiteKey]*Drop{}, groupAt: map[SiteKey]*Group{},
		memberOf: map[SiteKey]*Group{}, unpub: map[SiteKey]bool{}, mergeOf: map[SiteKey]*RangeMerge{}, covered: map[SiteKey]bool{},
		refused: map[entryKey]string{}, rendered: map[entryKey]bool{},
		footprintOf: map[SiteKey]*Footprint{}, fpCands: map[string]*fpCand{},
		facts: siteFacts{acc: map[SiteKey][]*Access{}, local: map[SiteKey][]*Access{}, unpubN: map[SiteKey]int{}, syncFree: map[SiteKey]bool{},
			anchors: map[SiteKey]bool{}, cover: map[SiteKey][]SiteKey{}, structs: map[*types.Struct]bool{}, calls: map[token.Pos][2]int{}},
	}
}

// AddLoopSites adds the static-range decisions LoopSites made on one
// function. Where an element already has a decision (the instantiations
// of one generic function share positions), a refusal, then a read that
// must store its extent itself, wins over an admission.
func (p *SitePlan) AddLoopSites(m map[SiteKey]*LoopSite) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for k, s := range m {
		if old := p.loops[k]; old == nil || old.Refused == "" && (s.Refused != "" || s.AtAccess) {
			p.loops[k] = s
		}
	}
}

// Loop returns the static-range decision on the accesses of kind
// k.Write through the element address whose bracket is at k.Pos, or nil
// if placement made none.
func (p *SitePlan) Loop(k SiteKey) *LoopSite {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.loops[k]
}

// Refuse records that the instrumenter did not render the decision of
// kind e at k and why: the accesses there are checked where they are.
// The first reason given stands. The instrumenter records what it
// rendered last, once per file (Render or Refuse for each key).
func (p *SitePlan) Refuse(e Entry, k SiteKey, why string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.refused[entryKey{k, e}]; !ok {
		p.refused[entryKey{k, e}] = why
	}
}

// LoopKeys returns the keys of the static ranges placement admits in the
// loop statement at loop, sorted.
func (p *SitePlan) LoopKeys(loop token.Pos) []SiteKey {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []SiteKey
	for k, s := range p.loops {
		if s.Refused == "" && s.Loop == loop {
			out = append(out, k)
		}
	}
	slices.SortFunc(out, SiteKey.compare)
	return out
}

// Render records that the instrumenter rendered the decision of kind e
// at k.
func (p *SitePlan) Render(e Entry, k SiteKey) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rendered[entryKey{k, e}] = true
}

// Rendered reports whether the instrumenter rendered the decision of kind
// e at k.
func (p *SitePlan) Rendered(e Entry, k SiteKey) bool {
	if p == nil {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.rendered[entryKey{k, e}]
}

// Withdraw records that the decision of kind e at k, which a pass the
// instrumenter discards may have rendered, is not rendered, and why.
func (p *SitePlan) Withdraw(e Entry, k SiteKey, why string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.rendered, entryKey{k, e})
	p.refused[entryKey{k, e}] = why
}

// Drop returns the decision to drop the checks of site k, or nil.
func (p *SitePlan) Drop(k SiteKey) *Drop {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.drops[k]
}

// GroupAt returns the field group whose check the access at k makes, or
// nil.
func (p *SitePlan) GroupAt(k SiteKey) *Group {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.groupAt[k]
}

// MemberOf returns the field group whose check covers the access at k,
// left out for it, or nil.
func (p *SitePlan) MemberOf(k SiteKey) *Group {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.memberOf[k]
}

// Unpublished reports whether the access at k is to an object its
// function has not published: it needs no check.
func (p *SitePlan) Unpublished(k SiteKey) bool {
	if p == nil {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.unpub[k]
}

// CoveredCall reports whether the call whose parenthesis is at lparen is
// covered: it calls its callee's F__bfnc copy and records the covered
// bytes (Decisions.Call, Cover).
func (p *SitePlan) CoveredCall(lparen token.Pos) bool {
	if p == nil {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.covered[SiteKey{Pos: lparen}]
}

// NotShared reports whether the site k has no access: its loads or
// stores are of memory no other goroutine can reach (a local variable
// whose address does not leave its function, a fresh object), so it
// needs no check.
func (p *SitePlan) NotShared(k SiteKey) bool {
	return len(p.LocalAccesses(k)) > 0
}

// LocalAccesses returns the loads or stores of a site that NotShared
// reports (after Decide).
func (p *SitePlan) LocalAccesses(k SiteKey) []*Access {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.notShared[k]
}

// Accesses returns the accesses of site k (after Decide).
func (p *SitePlan) Accesses(k SiteKey) []*Access {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.access[k]
}

// Sites returns the sites with a decision of kind e (EntryDrop,
// EntryGroup, EntryMember, EntryUnpublished, EntryCall or
// EntryNotShared), sorted.
func (p *SitePlan) Sites(e Entry) []SiteKey {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var keys []SiteKey
	switch e {
	case EntryDrop:
		keys = slices.Collect(maps.Keys(p.drops))
	case EntryGroup:
		keys = slices.Collect(maps.Keys(p.groupAt))
	case EntryMember:
		keys = slices.Collect(maps.Keys(p.memberOf))
	case EntryUnpublished:
		keys = slices.Collect(maps.Keys(p.unpub))
	case EntryCall:
		keys = slices.Collect(maps.Keys(p.covered))
	case EntryNotShared:
		keys = slices.Collect(maps.Keys(p.notShared))
	}
	slices.SortFunc(keys, SiteKey.compare)
	return keys
}

// GroupStructs returns the structs whose fields BigFoot's plans group.
func (p *SitePlan) GroupStructs() []*types.Struct {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Collect(maps.Keys(p.groupStructs))
}

// A RangeDecision is the static-range decision on one element address,
// with its outcome, as bigfoot analyze prints it.
type RangeDecision struct {
	Pos   token.Position `json:"pos"` // the element's bracket
	Write bool           `json:"write"`
	// Loop is where the loop statement whose range holds the accesses
	// starts; Sites are the accesses.
	Loop  token.Position   `json:"loop"`
	Sites []token.Position `json:"sites"`
	// Decision is placement's ("ok", "at access: …", "refused: …").
	// For a range it admits, Rendered says whether the instrumenter
	// rendered it, and Refused why it did not; a range neither rendered
	// nor refused is one the instrumenter never reached.
	Decision string `json:"decision"`
	Rendered bool   `json:"rendered,omitempty"`
	Refused  string `json:"refused,omitempty"`
}

// Admitted reports whether placement admits the range.
func (d RangeDecision) Admitted() bool { return !strings.HasPrefix(d.Decision, "refused") }

func (d RangeDecision) String() string {
	kind := "R"
	if d.Write {
		kind = "W"
	}
	s := fmt.Sprintf("%s: %s range: %s", d.Pos, kind, d.Decision)
	switch {
	case d.Rendered:
		s += fmt.Sprintf(" (rendered in the loop at %d:%d)", d.Loop.Line, d.Loop.Column)
	case d.Refused != "":
		s += " (not rendered: " + d.Refused + ")"
	case d.Admitted():
		s += " (not reached)"
	}
	return s
}

// Ranges returns the static-range decisions of the plan in source order.
func (p *SitePlan) Ranges(fset *token.FileSet) []RangeDecision {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []RangeDecision
	for _, k := range slices.SortedFunc(maps.Keys(p.loops), SiteKey.compare) {
		s := p.loops[k]
		d := RangeDecision{Pos: fset.Position(k.Pos), Write: k.Write, Decision: s.String()}
		if s.Loop.IsValid() {
			d.Loop = fset.Position(s.Loop)
		}
		for _, a := range s.Sites {
			d.Sites = append(d.Sites, fset.Position(a.Pos))
		}
		if s.Refused == "" {
			d.Rendered, d.Refused = p.rendered[entryKey{k, EntryRange}], p.refused[entryKey{k, EntryRange}]
		}
		out = append(out, d)
	}
	return out
}

// A SiteDecision is a decision of the plan on one site other than a
// static range, with its outcome, as bigfoot analyze prints it.
type SiteDecision struct {
	Pos   token.Position `json:"pos"`
	Write bool           `json:"write"`
	// Decision is the kind of decision (Entry): "dropped" (By's check
	// covers the site), "group" (the site's check checks the field
	// group Group), "member" (left out for the group whose anchor is
	// By), "unpublished", "covered call" (Pos is the parenthesis of a
	// call that calls its callee's F__bfnc copy; Write is false), "not
	// shared" (no other goroutine can reach the memory), "check"
	// (checked where it is) or "unplanned check" (checked where it is,
	// with no access in the plan).
	Decision string          `json:"decision"`
	By       *token.Position `json:"by,omitempty"`
	ByWrite  bool            `json:"by_write,omitempty"`
	Group    string          `json:"group,omitempty"`
	// Rendered says whether the instrumenter rendered the decision, and
	// Refused why it did not; a decision neither rendered nor refused is
	// one the instrumenter never reached.
	Rendered bool   `json:"rendered,omitempty"`
	Refused  string `json:"refused,omitempty"`
}

func (d SiteDecision) String() string {
	s := fmt.Sprintf("%s: %s %s", d.Pos, kindName(d.Write), d.Decision)
	if d.Decision == EntryCall.String() {
		s = fmt.Sprintf("%s: %s", d.Pos, d.Decision) // a call, of no kind
	}
	if d.By != nil {
		s += fmt.Sprintf(" by %s %d:%d", kindName(d.ByWrite), d.By.Line, d.By.Column)
	}
	if d.Group != "" {
		s += " " + d.Group
	}
	return s + renderState(d.Rendered, d.Refused)
}

// Decisions returns the plan's decisions on sites other than static
// ranges, in source order. A site NotShared reports is listed where the
// instrumenter left a check out for it or refused to.
func (p *SitePlan) Decisions(fset *token.FileSet) []SiteDecision {
	var out []SiteDecision
	for _, e := range []Entry{EntryDrop, EntryGroup, EntryMember, EntryUnpublished, EntryCall, EntryNotShared} {
		for _, k := range p.Sites(e) {
			d := SiteDecision{Pos: fset.Position(k.Pos), Write: k.Write, Decision: e.String()}
			by := func(b SiteKey) {
				pos := fset.Position(b.Pos)
				d.By, d.ByWrite = &pos, b.Write
			}
			switch e {
			case EntryDrop:
				by(p.Drop(k).By)
			case EntryGroup:
				g := p.GroupAt(k)
				d.Group = fmt.Sprintf("%s (%d members)", g.String(), len(g.Members))
			case EntryMember:
				by(p.MemberOf(k).Anchor)
			}
			p.mu.Lock()
			d.Rendered, d.Refused = p.rendered[entryKey{k, e}], p.refused[entryKey{k, e}]
			p.mu.Unlock()
			if e == EntryNotShared && !d.Rendered && d.Refused == "" {
				continue // nothing in the syntax checks it: no check to leave out
			}
			out = append(out, d)
		}
	}
	out = append(out, p.checks(fset)...)
	slices.SortStableFunc(out, func(a, b SiteDecision) int {
		if c := cmp.Compare(a.Pos.Filename, b.Pos.Filename); c != 0 {
			return c
		}
		return cmp.Compare(a.Pos.Offset, b.Pos.Offset)
	})
	return out
}

// checks returns the plan's decisions to check a site where it is
// (EntryCheck): every access site with no other decision and outside the
// static ranges the instrumenter rendered, and every site the
// instrumenter checked where it is (where it refused the plan's other
// decision, a check of its own). A site the instrumenter checked that
// has no access in the plan, unless the instrumenter refused to render
// its not-shared decision, is an "unplanned check": the instrumenter
// decided it alone, which its tests rule out.
func (p *SitePlan) checks(fset *token.FileSet) []SiteDecision {
	p.mu.Lock()
	defer p.mu.Unlock()
	inRange := map[SiteKey]bool{}
	for k, s := range p.loops {
		if s.Refused == "" && p.rendered[entryKey{k, EntryRange}] {
			for _, a := range s.Sites {
				inRange[a] = true
			}
		}
	}
	decided := func(k SiteKey) bool {
		return p.drops[k] != nil || p.groupAt[k] != nil || p.memberOf[k] != nil || p.unpub[k] || p.footprintOf[k] != nil || inRange[k] || p.notShared[k] != nil
	}
	keys := map[SiteKey]bool{}
	for k := range p.access {
		if !decided(k) {
			keys[k] = true
		}
	}
	for ek := range p.rendered {
		if ek.entry == EntryCheck {
			keys[ek.SiteKey] = true
		}
	}
	var out []SiteDecision
	for _, k := range slices.SortedFunc(maps.Keys(keys), SiteKey.compare) {
		d := SiteDecision{Pos: fset.Position(k.Pos), Write: k.Write, Decision: EntryCheck.String()}
		if _, refused := p.refused[entryKey{k, EntryNotShared}]; len(p.access[k]) == 0 && !refused {
			d.Decision = "unplanned check"
		}
		d.Rendered = p.rendered[entryKey{k, EntryCheck}]
		out = append(out, d)
	}
	return out
}

// Merges returns the merged static ranges of the loop statement at loop,
// by their first member.
func (p *SitePlan) Merges(loop token.Pos) []*RangeMerge {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []*RangeMerge
	for k, m := range p.mergeOf {
		if m.Loop == loop && k == m.First {
			out = append(out, m)
		}
	}
	slices.SortFunc(out, func(a, b *RangeMerge) int { return a.First.compare(b.First) })
	return out
}

// A MergeDecision is a merged static range with its outcome, as bigfoot
// analyze prints it.
type MergeDecision struct {
	Loop  token.Position `json:"loop"`
	Write bool           `json:"write"`
	// Members are the accesses the range holds, in source order, First
	// the one at its first element, Step the index step (±1).
	Members []token.Position `json:"members"`
	First   token.Position   `json:"first"`
	Step    int64            `json:"step"`
	// Rendered says whether the instrumenter rendered the merge, and
	// Refused why it did not (its members then keep ranges of their
	// own); one neither rendered nor refused was never reached.
	Rendered bool   `json:"rendered,omitempty"`
	Refused  string `json:"refused,omitempty"`
}

func (d MergeDecision) String() string {
	s := fmt.Sprintf("%s: %s merged range of the loop at %d:%d, step %d:", d.First, kindName(d.Write), d.Loop.Line, d.Loop.Column, d.Step)
	for _, m := range d.Members {
		s += fmt.Sprintf(" %d:%d", m.Line, m.Column)
	}
	return s + renderState(d.Rendered, d.Refused)
}

// MergeDecisions returns the plan's merged static ranges in source order.
func (p *SitePlan) MergeDecisions(fset *token.FileSet) []MergeDecision {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []MergeDecision
	for _, k := range slices.SortedFunc(maps.Keys(p.mergeOf), SiteKey.compare) {
		m := p.mergeOf[k]
		if k != m.First {
			continue
		}
		d := MergeDecision{Loop: fset.Position(m.Loop), Write: m.Write, First: fset.Position(m.First.Pos), Step: m.Step}
		for _, a := range m.Members {
			d.Members = append(d.Members, fset.Position(a.Pos))
		}
		d.Rendered, d.Refused = p.rendered[entryKey{k, EntryMerge}], p.refused[entryKey{k, EntryMerge}]
		out = append(out, d)
	}
	return out
}

// A SiteReport is the plan of a build as bigfoot analyze prints it.
type SiteReport struct {
	Ranges     []RangeDecision     `json:"ranges"`
	Merges     []MergeDecision     `json:"merges"`
	Sites      []SiteDecision      `json:"sites"`
	Footprints []FootprintDecision `json:"footprints"`
}

// renderState is how a decision's rendering reads in its String: rendered,
// refused by the instrumenter with its reason, or never reached.
func renderState(rendered bool, refused string) string {
	switch {
	case rendered:
		return " (rendered)"
	case refused != "":
		return " (not rendered: " + refused + ")"
	}
	return " (not reached)"
}
