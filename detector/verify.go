// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"bufio"
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
//   - R, W, Read, Write, ReadRange, WriteRange, ReadFields, WriteFields,
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
// requires, byte by byte, that every accessed byte be checked in the span by
// a check of a covering kind, and every checked byte be accessed in the
// span by an access for which the check is legitimate. A synchronization
// operation is treated as both an acquire and a release, so a span is
// exactly the range in which a check both covers and is legitimate for an
// access: the verifier demands a sufficient condition for precise checks.
// A placement that moved a check across an acquire (legitimately, before
// an access that follows it) or across a release (covering, after an
// access that precedes it) would be reported, and is not what our static
// pass does: it commits every deferred check before each synchronization.
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
// the span cannot be cut short soundly) and it is counted as unverified.

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

// A verifyLog is a goroutine's records of its current span.
type verifyLog struct {
	recs     []verifyRec
	weight   int  // intervals the records expand to
	overflow bool // the span exceeded verifyCap: its records were dropped
	partial  bool // some record is an access only or a check only
	accesses uint64
	checks   uint64
	// Buffers of verify, kept from span to span.
	accW, accAll, chkW, chkAll []interval
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
	if countAccesses {
		g.accesses++
	}
	if verifyChecks {
		k := uint8(vAccess)
		if write {
			k |= vWrite
		}
		g.verifyRecord(unsafe.Pointer(p), unsafe.Sizeof(*p), 0, 1, k, site)
	}
	return p
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

// How a span ends, for reports.
const (
	endSync   = iota // a synchronization operation (the caller's)
	endFork          // a go statement (at site)
	endExit          // the goroutine's end
	endFinish        // the program's end
)

// verifySpan verifies the goroutine's current span, which ends as how
// says, reports its violations and starts a new span. The pending
// footprints have been committed.
func (g *G) verifySpan(how int, site uint32) {
	l := g.verify
	if l == nil {
		return
	}
	g.stdOff++ // the verifier's sorting is not the program's
	defer func() { g.stdOff-- }()
	verifyStats.accesses.Add(l.accesses)
	verifyStats.checks.Add(l.checks)
	switch {
	case l.overflow:
		verifyStats.unverified.Add(1)
	case len(l.recs) > 0:
		verifyStats.spans.Add(1)
		if l.partial {
			if vs := l.verify(); len(vs) > 0 {
				g.reportViolations(vs, how, site)
			}
		}
	}
	if cap(l.recs) > 1<<12 || cap(l.accAll) > 1<<12 {
		// A long span: do not keep its memory.
		l.recs, l.accW, l.accAll, l.chkW, l.chkAll = nil, nil, nil, nil, nil
	}
	l.recs = l.recs[:0]
	l.weight, l.overflow, l.partial = 0, false, false
	l.accesses, l.checks = 0, 0
}

// A violation is a record some of whose bytes are not covered (an access)
// or not legitimate (a check).
type violation struct {
	rec   verifyRec
	bytes uintptr // bytes in violation
	first uintptr // the first of them
}

// verify returns the records of the span that violate coverage or
// legitimacy. A record that is both an access and a check of the same
// bytes satisfies both by itself; the others are looked up in the unions of
// the intervals that can cover or legitimize them.
func (l *verifyLog) verify() []violation {
	accW, accAll, chkW, chkAll := l.accW[:0], l.accAll[:0], l.chkW[:0], l.chkAll[:0]
	for i := range l.recs {
		r := &l.recs[i]
		r.each(func(lo, hi uintptr) {
			v := interval{lo, hi}
			if r.kind&vAccess != 0 {
				accAll = append(accAll, v)
				if r.kind&vWrite != 0 {
					accW = append(accW, v)
				}
			}
			if r.kind&vCheck != 0 {
				chkAll = append(chkAll, v)
				if r.kind&vWrite != 0 {
					chkW = append(chkW, v)
				}
			}
		})
	}
	accW, accAll, chkW, chkAll = union(accW), union(accAll), union(chkW), union(chkAll)
	l.accW, l.accAll, l.chkW, l.chkAll = accW, accAll, chkW, chkAll
	var vs []violation
	for _, r := range l.recs {
		var u []interval
		switch r.kind &^ vWrite {
		case vAccess: // covered by a write check, or by a read check if a read
			u = chkW
			if r.kind&vWrite == 0 {
				u = chkAll
			}
		case vCheck: // legitimate for a write access, or any if a read check
			u = accW
			if r.kind&vWrite == 0 {
				u = accAll
			}
		default:
			continue
		}
		v := violation{rec: r}
		r.each(func(lo, hi uintptr) {
			if n, first := missing(u, lo, hi); n > 0 {
				if v.bytes == 0 {
					v.first = first
				}
				v.bytes += n
			}
		})
		if v.bytes > 0 {
			vs = append(vs, v)
		}
	}
	return vs
}

// union sorts the intervals and merges those that overlap or touch.
func union(s []interval) []interval {
	slices.SortFunc(s, func(a, b interval) int {
		switch {
		case a.lo < b.lo:
			return -1
		case a.lo > b.lo:
			return 1
		}
		return 0
	})
	out := s[:0]
	for _, v := range s {
		if n := len(out); n > 0 && v.lo <= out[n-1].hi {
			out[n-1].hi = max(out[n-1].hi, v.hi)
			continue
		}
		out = append(out, v)
	}
	return out
}

// missing returns how many bytes of [lo, hi) the union u does not contain,
// and the first of them.
func missing(u []interval, lo, hi uintptr) (n, first uintptr) {
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
			if n == 0 {
				first = at
			}
			n += gap - at
		}
		if gap == hi {
			break
		}
		at = u[i].hi
	}
	return n, first
}

// reportViolations prints the violations of a span of g.
func (g *G) reportViolations(vs []violation, how int, site uint32) {
	end := spanEndString(how, site)
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
func spanEndString(how int, site uint32) string {
	switch how {
	case endFork:
		return "go statement (site " + siteString(site) + ")"
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
