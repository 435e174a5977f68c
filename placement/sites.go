package placement

import (
	"cmp"
	"fmt"
	"go/token"
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
// Today the plan holds the static loop ranges (LoopSites); checks,
// drops, field groups, footprints, unpublished objects and covered calls
// are still passed to the instrumenter as before (Plan, Decisions).

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
	refused  map[SiteKey]string
	rendered map[SiteKey]bool
}

// NewSitePlan returns an empty plan.
func NewSitePlan() *SitePlan {
	return &SitePlan{loops: map[SiteKey]*LoopSite{}, refused: map[SiteKey]string{}, rendered: map[SiteKey]bool{}}
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

// Refuse records that the instrumenter did not render the decision at k
// and why: the accesses there are checked where they are. The first
// reason given stands. The instrumenter records what it rendered last,
// once per file (Render or Refuse for each key).
func (p *SitePlan) Refuse(k SiteKey, why string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.refused[k]; !ok {
		p.refused[k] = why
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

// Render records that the instrumenter rendered the static range that
// placement admits at k.
func (p *SitePlan) Render(k SiteKey) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rendered[k] = true
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
			d.Rendered, d.Refused = p.rendered[k], p.refused[k]
		}
		out = append(out, d)
	}
	return out
}
