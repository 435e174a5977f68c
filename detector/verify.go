// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"bufio"
	"cmp"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"unsafe"

	"github.com/bigfoot-go/bigfoot/shadow"
)

// The precise-checks verifier.
//
// BigFoot's placement is correct when every trace it produces has precise
// checks: each access is covered by a check (no missed race) and each check
// is legitimate for an access (no false alarm)
// (Rhodes' thesis §3.2). A check covers an access of the same
// location by the same thread if it precedes the access with no intervening
// release or follows it with no intervening acquire (:704-706); it is
// legitimate for the access if it precedes it with no intervening acquire or
// follows it with no intervening release (:713-716). Reads and writes are
// distinguished as in §3.5 (:929): a write check covers read and write
// accesses, a read check covers reads only; a write check is legitimate only
// for a write access, a read check for a read or a write access. The thesis
// verified its runs with a dynamic analysis of exactly this property
// (:915); this is ours, on when the runtime is built with the build tag
// bigfoot_verify (verifyChecks).
//
// Each goroutine records, during a span — the stretch between two of its
// synchronization operations — the accesses and checks it makes:
//
//   - R, W, Read, Write, ReadRange, WriteRange,
//     MapRead, MapWrite, the helpers built on them and the runtime's own
//     checks (a lock's read, a channel's header, an atomic variable, site 0)
//     check in place: each is an access and a check of the same bytes
//     ((*G).check, (*G).checkRange);
//   - F records an access only; the footprint's commit (checkOne,
//     checkStrided) is a check only;
//   - A records an access only: one whose check the static pass elided
//     because another check covers it.
//
// When the span ends (countSync, Fork, Exit, and the end of the program in
// finish), after the pending footprints are committed, the verifier
// requires, byte by byte, that every accessed byte be checked by a check
// of a covering kind that covers it, and every checked byte be accessed by
// an access for which the check is legitimate. Within a span a check
// covers and is legitimate for every access; across the operations that
// end spans, it depends on what each does to the goroutine's clock
// (countSyncAs): an operation that only acquires (Lock, WaitGroup.Wait)
// lets a check before it cover the accesses after it, as the static pass's
// [Acq] rule does, and an access before it legitimize a check after it; one
// that only releases (Unlock, a go statement) lets a check after it cover
// the accesses before it, as [Rel] does for an anticipated access, and an
// access after it legitimize a check before it. An operation that may do
// both (a channel operation, an atomic, an unknown call's) separates
// spans entirely. So the records of the spans since the last release
// (prior) are kept while only acquires end spans, and the accesses not
// yet covered and checks not yet legitimate (pending) are kept while only
// releases do; the goroutine's exit and the program's end decide the rest.
//
// Violations are printed, one line per site and kind, with the race
// reports; the counts are printed at exit, and a run with violations and no
// other failure exits with status verifyExitCode.
//
// Addresses are compared as integers: memory freed and reused within one
// span merges two objects' records, which can hide a violation but never
// invent one. Memory on the goroutine's own stack is not recorded, as the
// shadow does not record it (without getg, on ports other than amd64 and
// arm64, it is, and a stack that moves within a span may then look like
// an uncovered access and an illegitimate check). A span whose records
// expand to more than verifyCap intervals is not verified: its records are
// dropped (every later check of the span could cover an earlier access, so
// the span cannot be cut short soundly) and it is counted as unverified,
// as are the spans that could have been covered or legitimized by records
// dropped from prior or pending.

// verifyExitCode is the exit status of a run whose checks were not precise
// and that has no other reason to fail.
const verifyExitCode = 67

// verifyCap bounds the intervals one span's records may expand to.
const verifyCap = 1 << 20

// Kinds of records (bits).
const (
	vWrite  = 1 << iota // a write access or check; else a read
	vAccess             // an access
	vCheck              // a check
)

// A verifyRec is a recorded access or check, or both: n elements of size
// bytes at addr, addr+step, ... (step is two's complement: a descending
// loop's records have a negative step).
type verifyRec struct {
	addr, size, step uintptr
	n                int
	site             uint32
	kind             uint8
}

// gapped reports whether r's elements are separated by gaps, so that they
// expand to n intervals rather than one.
func (r *verifyRec) gapped() bool {
	return r.n > 1 && (int(r.step) > int(r.size) || -int(r.step) > int(r.size))
}

// weight returns the number of intervals r expands to.
func (r *verifyRec) weight() int {
	if r.gapped() {
		return r.n
	}
	return 1
}

// each calls f with the byte intervals [lo, hi) of r's elements, in
// ascending order (overlapping or adjacent elements as one interval).
func (r *verifyRec) each(f func(lo, hi uintptr)) {
	addr, step := r.addr, r.step
	if r.n > 1 && int(step) < 0 {
		addr += uintptr(r.n-1) * step
		step = -step
	}
	if r.n == 1 || step <= r.size {
		f(addr, addr+uintptr(r.n-1)*step+r.size)
		return
	}
	for range r.n {
		f(addr, addr+r.size)
		addr += step
	}
}

// A verifyLog is a goroutine's records of its current span, and of the
// earlier spans whose records can still matter.
type verifyLog struct {
	recs     []verifyRec
	weight   int  // intervals the records expand to
	overflow bool // the span exceeded verifyCap: its records were dropped
	partial  bool // some record is an access only or a check only
	accesses uint64
	checks   uint64
	// prior holds the intervals of the earlier spans since the last
	// release: their checks cover, and their accesses legitimize, what
	// the current span leaves uncovered or illegitimate. It is sorted
	// and merged (union) only when consulted. priorLost says that some
	// were dropped (verifyCap): until the next release, what prior could
	// settle is counted unverified.
	prior       intervalSets
	priorSorted bool
	priorLost   bool
	// pending holds what the earlier spans since the last acquire left
	// undecided: accesses not yet covered and checks not yet legitimate,
	// which a check or an access of the current span may still settle.
	pending       []pendingRec
	pendingWeight int
	// The current span's intervals (a buffer of verify, kept from span
	// to span).
	cur intervalSets
}

// intervalSets holds the bytes accessed (written, or read or written) and
// checked (by a write check, or by any). Records are added to raw, tagged
// with their kind; union sorts raw once and builds the four sets from it
// (a record that is an access and a check, most of them, would otherwise
// be sorted into each of four sets).
type intervalSets struct {
	accW, accAll, chkW, chkAll []interval
	raw                        []taggedInterval
	// seen caches intervals added since the last union, by hash: one
	// added again adds nothing to it.
	seen [1 << seenBits]taggedInterval
	// Buffers of sorted, kept from union to union.
	keys    []uint64
	sortBuf []taggedInterval
}

// seenBits is the size of intervalSets.seen (log2).
const seenBits = 8

// A taggedInterval is an interval of a record of kind (vWrite, vAccess,
// vCheck bits).
type taggedInterval struct {
	interval
	kind uint8
}

// add adds r's intervals.
func (v *intervalSets) add(r *verifyRec) {
	k := r.kind
	r.each(func(lo, hi uintptr) {
		// A record's intervals, and consecutive records of a
		// loop, often touch the last one: merge them here.
		if n := len(v.raw); n > 0 {
			if last := &v.raw[n-1]; last.kind == k && lo <= last.hi && hi >= last.lo {
				last.lo, last.hi = min(last.lo, lo), max(last.hi, hi)
				return
			}
		}
		t := taggedInterval{interval{lo, hi}, k}
		h := uint64(lo^hi<<7^uintptr(k)) * 0x9e3779b97f4a7c15 >> (64 - seenBits)
		if v.seen[h] == t {
			return // a search's or a scan's bytes again
		}
		v.seen[h] = t
		v.raw = append(v.raw, t)
	})
}

// union makes each set a union (sorted intervals that neither overlap nor
// touch) of its intervals and those added since.
func (v *intervalSets) union() {
	if len(v.raw) == 0 {
		return
	}
	for _, s := range [...]struct {
		ivs  []interval
		kind uint8
	}{{v.accW, vAccess | vWrite}, {v.accAll, vAccess}, {v.chkW, vCheck | vWrite}, {v.chkAll, vCheck}} {
		for _, iv := range s.ivs {
			v.raw = append(v.raw, taggedInterval{iv, s.kind})
		}
	}
	v.accW, v.accAll, v.chkW, v.chkAll = v.accW[:0], v.accAll[:0], v.chkW[:0], v.chkAll[:0]
	for _, t := range v.sorted() {
		if t.kind&vAccess != 0 {
			v.accAll = put(v.accAll, t.interval)
			if t.kind&vWrite != 0 {
				v.accW = put(v.accW, t.interval)
			}
		}
		if t.kind&vCheck != 0 {
			v.chkAll = put(v.chkAll, t.interval)
			if t.kind&vWrite != 0 {
				v.chkW = put(v.chkW, t.interval)
			}
		}
	}
	v.raw = v.raw[:0]
	clear(v.seen[:])
}

// sorted returns raw's intervals in ascending order of their start. Most
// spans have fewer than 1<<16 records at addresses below 1<<48: their
// starts and indices are packed into integers and sorted as such, which is
// several times faster than sorting the structs with a comparison
// function (the verifier's main cost on long spans).
func (v *intervalSets) sorted() []taggedInterval {
	const idxBits = 16
	packable := len(v.raw) <= 1<<idxBits
	for _, t := range v.raw {
		packable = packable && t.lo < 1<<(64-idxBits)
	}
	if !packable {
		slices.SortFunc(v.raw, func(a, b taggedInterval) int { return cmp.Compare(a.lo, b.lo) })
		return v.raw
	}
	keys := v.keys[:0]
	for i, t := range v.raw {
		keys = append(keys, uint64(t.lo)<<idxBits|uint64(i))
	}
	slices.Sort(keys)
	out := v.sortBuf[:0]
	for _, k := range keys {
		out = append(out, v.raw[k&(1<<idxBits-1)])
	}
	v.keys, v.sortBuf = keys, v.raw
	v.raw = out
	return out
}

// put adds iv, which starts at or after the start of every interval of the
// union u, to u.
func put(u []interval, iv interval) []interval {
	if n := len(u); n > 0 && iv.lo <= u[n-1].hi {
		u[n-1].hi = max(u[n-1].hi, iv.hi)
		return u
	}
	return append(u, iv)
}

// len returns the number of intervals.
func (v *intervalSets) len() int {
	return len(v.accW) + len(v.accAll) + len(v.chkW) + len(v.chkAll) + len(v.raw)
}

// reset empties the sets, keeping their memory unless it is large.
func (v *intervalSets) reset() {
	if v.len() > 1<<12 || cap(v.keys) > 1<<16 {
		*v = intervalSets{}
		return
	}
	v.accW, v.accAll, v.chkW, v.chkAll = v.accW[:0], v.accAll[:0], v.chkW[:0], v.chkAll[:0]
	v.raw = v.raw[:0]
	clear(v.seen[:])
}

// against returns the set that covers (r an access) or legitimizes (r a
// check) r's bytes, or false if r is both and satisfies itself.
func (v *intervalSets) against(r *verifyRec) ([]interval, bool) {
	switch r.kind &^ vWrite {
	case vAccess: // covered by a write check, or by a read check if a read
		if r.kind&vWrite == 0 {
			return v.chkAll, true
		}
		return v.chkW, true
	case vCheck: // legitimate for a write access, or any if a read check
		if r.kind&vWrite == 0 {
			return v.accAll, true
		}
		return v.accW, true
	}
	return nil, false
}

// A pendingRec is a record some of whose bytes, ivs, are not yet covered
// (an access) or not yet legitimate (a check).
type pendingRec struct {
	rec verifyRec
	ivs []interval
}

// An interval is the bytes [lo, hi).
type interval struct{ lo, hi uintptr }

// verifyStats holds the verifier's counts for the whole run.
var verifyStats struct {
	accesses, checks, spans, uncovered, illegitimate, unverified atomic.Uint64
}

// verifySeen holds the (site, kind) pairs already reported; reportMu
// guards it.
var verifySeen = map[uint64]bool{}

// A announces an access of *p (a write if write is set) at site whose
// check the static pass elided, covered by a check made elsewhere in the
// span, and returns p. It never checks: with the build tag bigfoot_verify
// it records the access for the verifier, with bigfoot_count it counts it
// (as Count(1)), and otherwise it only returns p. The instrumenter emits it
// only in builds with one of those tags.
func A[T any](g *G, p *T, write bool, site uint32) *T {
	g.elided(unsafe.Pointer(p), unsafe.Sizeof(*p), write, site)
	return p
}

// elided is A of size bytes at p, also the standard library's (stdAccess).
func (g *G) elided(p unsafe.Pointer, size uintptr, write bool, site uint32) {
	if countAccesses {
		g.accesses++
	}
	if verifyChecks {
		k := uint8(vAccess)
		if write {
			k |= vWrite
		}
		g.verifyRecord(p, size, 0, 1, k, site)
	}
}

// verifyRecord records n elements of size bytes at p, p+step, ... of kind
// k at site in the goroutine's current span. Only the address is kept, so
// recording does not make p escape.
func (g *G) verifyRecord(p unsafe.Pointer, size, step uintptr, n int, k uint8, site uint32) {
	a := uintptr(p)
	if a < minAddr || size == 0 || n <= 0 || shadow.OnStack(g.t.GP, p) {
		return
	}
	l := g.verify
	if l == nil {
		l = new(verifyLog)
		g.verify = l
	}
	if k&vAccess != 0 {
		l.accesses += uint64(n)
	}
	if k&vCheck != 0 {
		l.checks++
	}
	if l.overflow {
		return
	}
	if k&(vAccess|vCheck) != vAccess|vCheck {
		l.partial = true
	}
	if i := len(l.recs) - 1; i >= 0 && n == 1 {
		// Extend the last record: a loop's accesses (and footprints'
		// elements) are one record.
		r := &l.recs[i]
		if r.kind == k && r.site == site && r.size == size {
			switch {
			case a == r.addr+uintptr(r.n-1)*r.step:
				return // the last element again
			case r.n == 1:
				r.step, r.n = a-r.addr, 2
				l.grow(r.weight() - 1)
				return
			case a == r.addr+uintptr(r.n)*r.step:
				r.n++
				if r.gapped() {
					l.grow(1)
				}
				return
			}
		}
	}
	l.recs = append(l.recs, verifyRec{addr: a, size: size, step: step, n: n, site: site, kind: k})
	l.grow(l.recs[len(l.recs)-1].weight())
}

// grow adds d to the span's weight and drops its records if it exceeds
// verifyCap.
func (l *verifyLog) grow(d int) {
	l.weight += d
	if l.weight > verifyCap {
		l.overflow = true
		l.recs = nil
	}
}

// How a span ends, for reports. Violations are reported only where a span
// ends with an acquire (or at an end), so never at a go statement.
const (
	endSync   = iota // a synchronization operation (the caller's)
	endExit          // the goroutine's end
	endFinish        // the program's end
)

// verifySpan verifies the goroutine's current span, which ends as how
// says with a synchronization operation that does what kind says
// (syncAcquire, syncRelease; syncBoth at the goroutine's and the program's
// end), reports its violations and starts a new span. The pending
// footprints have been committed.
func (g *G) verifySpan(how int, kind uint8) {
	l := g.verify
	if l == nil {
		return
	}
	g.stdOff++ // the verifier's sorting is not the program's
	defer func() { g.stdOff-- }()
	verifyStats.accesses.Add(l.accesses)
	verifyStats.checks.Add(l.checks)
	acquires, releases := kind&syncAcquire != 0, kind&syncRelease != 0
	switch {
	case l.overflow:
		// The span's records were dropped: neither the span nor
		// what it could settle is verified.
		verifyStats.unverified.Add(1)
		l.dropPending()
	case len(l.recs) > 0 || len(l.pending) > 0:
		verifyStats.spans.Add(1)
		if l.partial || len(l.pending) > 0 {
			if vs := l.verify(acquires); len(vs) > 0 {
				g.reportViolations(vs, how)
			}
		}
	}
	switch {
	case releases:
		// Nothing before a release covers, or is legitimized by,
		// what follows it.
		l.prior.reset()
		l.priorSorted, l.priorLost = true, false
	case l.overflow || l.priorLost:
		l.prior.reset()
		l.priorLost = true
	case len(l.recs) > 0:
		for i := range l.recs {
			l.prior.add(&l.recs[i])
		}
		l.priorSorted = false
		if l.prior.len() > verifyCap {
			l.prior.reset()
			l.priorLost = true
		}
	}
	if acquires {
		// verify has reported what was pending.
		l.pending, l.pendingWeight = nil, 0
	}
	if cap(l.recs) > 1<<12 {
		// A long span: do not keep its memory.
		l.recs = nil
	}
	l.cur.reset()
	l.recs = l.recs[:0]
	l.weight, l.overflow, l.partial = 0, false, false
	l.accesses, l.checks = 0, 0
}

// dropPending drops the pending records, which are then not verified.
func (l *verifyLog) dropPending() {
	if len(l.pending) > 0 {
		verifyStats.unverified.Add(1)
	}
	l.pending, l.pendingWeight = nil, 0
}

// A violation is a record some of whose bytes are not covered (an access)
// or not legitimate (a check).
type violation struct {
	rec   verifyRec
	bytes uintptr // bytes in violation
	first uintptr // the first of them
}

// verify checks the records of the current span against the unions of its
// intervals and then, for the bytes left, of prior's, and the pending
// records of earlier spans against the current span's. If final (the span
// ends with an acquire, after which nothing can cover an earlier access or
// legitimize an earlier check), it returns every record left with bytes
// not covered or not legitimate; otherwise those records become pending
// and it returns none. A record that is both an access and a check of the
// same bytes satisfies both by itself.
func (l *verifyLog) verify(final bool) []violation {
	cur := &l.cur
	for i := range l.recs {
		cur.add(&l.recs[i])
	}
	cur.union()
	var vs []violation
	var pending []pendingRec
	settle := func(r verifyRec, ivs []interval) {
		if len(ivs) == 0 {
			return
		}
		if !final {
			pending = append(pending, pendingRec{r, ivs})
			return
		}
		v := violation{rec: r, first: ivs[0].lo}
		for _, iv := range ivs {
			v.bytes += iv.hi - iv.lo
		}
		vs = append(vs, v)
	}
	// When something is pending, the span began with a release and
	// prior is empty: the pending records see the current span's only.
	for _, p := range l.pending {
		u, _ := cur.against(&p.rec)
		settle(p.rec, gapsOf(u, p.ivs))
	}
	for i := range l.recs {
		r := &l.recs[i]
		u, ok := cur.against(r)
		if !ok {
			continue
		}
		var left []interval
		r.each(func(lo, hi uintptr) {
			gaps(u, lo, hi, func(lo, hi uintptr) { left = append(left, interval{lo, hi}) })
		})
		if len(left) > 0 && l.priorLost {
			// prior could have settled them: not verified.
			verifyStats.unverified.Add(1)
			continue
		}
		if len(left) > 0 && l.prior.len() > 0 {
			if !l.priorSorted {
				l.prior.union()
				l.priorSorted = true
			}
			u, _ := l.prior.against(r)
			left = gapsOf(u, left)
		}
		settle(*r, left)
	}
	l.pending, l.pendingWeight = pending, 0
	for _, p := range pending {
		l.pendingWeight += len(p.ivs)
	}
	if l.pendingWeight > verifyCap {
		l.dropPending()
	}
	return vs
}

// gapsOf returns the parts of the intervals ivs that the union u does not
// contain.
func gapsOf(u, ivs []interval) []interval {
	var out []interval
	for _, iv := range ivs {
		gaps(u, iv.lo, iv.hi, func(lo, hi uintptr) { out = append(out, interval{lo, hi}) })
	}
	return out
}

// gaps calls f, in ascending order, with the intervals of [lo, hi) that
// the union u does not contain.
func gaps(u []interval, lo, hi uintptr, f func(lo, hi uintptr)) {
	// u is sorted and its intervals neither overlap nor touch: after the
	// first interval that ends above lo, each starts above the previous
	// one's end.
	i := sort.Search(len(u), func(i int) bool { return u[i].hi > lo })
	for at := lo; at < hi; i++ {
		gap := hi // the end of the gap that starts at at
		if i < len(u) && u[i].lo < hi {
			gap = max(u[i].lo, at)
		}
		if gap > at {
			f(at, gap)
		}
		if gap == hi {
			break
		}
		at = u[i].hi
	}
}

// reportViolations prints the violations of a span of g.
func (g *G) reportViolations(vs []violation, how int) {
	end := spanEndString(how)
	reportMu.Lock()
	defer reportMu.Unlock()
	defer stdQuiet()()
	w := bufio.NewWriter(output())
	for _, v := range vs {
		r := v.rec
		kind, what := 0, "uncovered "
		if r.kind&vCheck != 0 {
			kind, what = 2, "illegitimate "
			verifyStats.illegitimate.Add(1)
		} else {
			verifyStats.uncovered.Add(1)
		}
		if r.kind&vWrite != 0 {
			kind++
			what += "write"
		} else {
			what += "read"
		}
		if r.kind&vCheck != 0 {
			what += " check"
		}
		if opts.dedup {
			key := uint64(r.site)<<2 | uint64(kind)
			if verifySeen[key] {
				continue
			}
			verifySeen[key] = true
		}
		fmt.Fprintf(w, "bigfoot verify: %s of %d bytes at 0x%012x (site %s) in span of goroutine %d ending at %s\n",
			what, v.bytes, v.first, siteString(r.site), g.goid, end)
	}
	w.Flush()
}

// siteString describes a site as file:line:col and function.
func siteString(s uint32) string {
	t, si, ok := site(s)
	if !ok {
		return fmt.Sprintf("%d unknown", s)
	}
	return fmt.Sprintf("%s:%d:%d %s.%s", t.file, si.line, si.col, t.pkg, si.fn)
}

// spanEndString describes where a span ends. For a synchronization
// operation it is the first caller outside the detector.
func spanEndString(how int) string {
	switch how {
	case endExit:
		return "goroutine exit"
	case endFinish:
		return "program exit"
	}
	var pcs [32]uintptr
	n := runtime.Callers(2, pcs[:])
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		if !isDetectorFrame(f) && !strings.HasPrefix(f.Function, "runtime.") {
			return fmt.Sprintf("synchronization in %s at %s:%d", userFuncName(f.Function), f.File, f.Line)
		}
		if !more {
			return "synchronization"
		}
	}
}

// verifyViolations returns the number of violations found so far.
func verifyViolations() uint64 {
	return verifyStats.uncovered.Load() + verifyStats.illegitimate.Load()
}

// verifyLine is the verifier's summary, printed at exit.
func verifyLine() string {
	return fmt.Sprintf("bigfoot verify: accesses=%d checks=%d uncovered=%d illegitimate=%d spans=%d unverified_spans=%d",
		verifyStats.accesses.Load(), verifyStats.checks.Load(), verifyStats.uncovered.Load(),
		verifyStats.illegitimate.Load(), verifyStats.spans.Load(), verifyStats.unverified.Load())
}

// verifyKind returns the kind bit of a read or write record.
func verifyKind(write bool) uint8 {
	if write {
		return vWrite
	}
	return 0
}
