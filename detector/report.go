// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/bigfoot-go/bigfoot/internal/spin"
	"github.com/bigfoot-go/bigfoot/shadow"
)

// Sites. Each instrumented file registers a table of its sites, one
// "line:col:function" per line; site ids are global. The table is parsed
// only when a report needs it.

type siteTable struct {
	base, n   uint32
	pkg, file string
	table     string
	hook      bool       // the runtime's own sites (hooksites.go)
	parseMu   spin.Mutex // guards parsed and lines
	parsed    bool
	lines     []siteInfo
	// first[k], made on first use, is the index of the first site of
	// the table in the function of site k (funcOfSite).
	first atomic.Pointer[[]uint32]
}

type siteInfo struct {
	line, col int
	fn        string
	cov       *coverage // what a coalesced check covers (exact.go), or nil
	// copy: the site is a call of the copy builtin ("c" in its table
	// entry), whose accesses go -race reports in runtime.slicecopy
	// (copyframe.go).
	copy bool
}

// sites.next is set statically, not by an init function, so that a table
// registered by a package-level variable of this package (in its tests)
// does not get site 0, which is "unknown".
var sites = struct {
	mu     spin.Mutex
	next   uint32
	tables []*siteTable // sorted by base
	// snapshot is tables as of the last registration, for readers that
	// take no lock (funcOfSite).
	snapshot atomic.Pointer[[]*siteTable]
}{next: 1}

// RegisterSites registers the site table of one instrumented file and
// returns the global id of its site 0.
func RegisterSites(pkgPath, file string, table string) uint32 {
	pkgPath = symbolPrefix(pkgPath)
	n := uint32(strings.Count(table, "\n"))
	if table != "" && !strings.HasSuffix(table, "\n") {
		n++
	}
	sites.mu.Lock()
	defer sites.mu.Unlock()
	base := sites.next
	sites.next += n
	sites.tables = append(sites.tables, &siteTable{base: base, n: n, pkg: pkgPath, file: file, table: table})
	ts := sites.tables[:len(sites.tables):len(sites.tables)] // appends copy: a snapshot never changes
	sites.snapshot.Store(&ts)
	return base
}

// symbolPrefix returns the prefix of the symbols of the package at path
// path as the linker writes it, and so runtime.Frame.Function and go
// -race's reports show it: a '.' in the last element, and '%', '"',
// control characters, space and non-ASCII bytes anywhere, become %xx
// ("gopkg.in/yaml%2ev3.Unmarshal"). The frames of a report, from the
// site table and from the stack, then name one function alike.
func symbolPrefix(path string) string {
	last := strings.LastIndexByte(path, '/')
	var b strings.Builder
	for i := 0; i < len(path); i++ {
		c := path[i]
		if c <= ' ' || c == '%' || c == '"' || c >= 0x7f || c == '.' && i > last {
			fmt.Fprintf(&b, "%%%02x", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// site returns the table and parsed entry of site id s.
func site(s uint32) (*siteTable, siteInfo, bool) {
	sites.mu.Lock()
	ts := sites.tables
	sites.mu.Unlock()
	i := sort.Search(len(ts), func(i int) bool { return ts[i].base+ts[i].n > s })
	if s == 0 || i == len(ts) || ts[i].base > s {
		return nil, siteInfo{}, false
	}
	t := ts[i]
	t.parseMu.Lock()
	defer t.parseMu.Unlock()
	if !t.parsed {
		t.parsed = true
		for _, l := range strings.Split(strings.TrimSuffix(t.table, "\n"), "\n") {
			l, cov, _ := strings.Cut(l, "\t")
			f := strings.SplitN(l, ":", 3)
			var si siteInfo
			cov, si.copy = cutCopy(cov)
			if len(f) == 3 {
				si.line, _ = strconv.Atoi(f[0])
				si.col, _ = strconv.Atoi(f[1])
				si.fn = f[2]
			}
			if cov != "" {
				si.cov = parseCoverage(cov)
				if si.cov != nil && si.cov.readBefore != nil {
					si.cov.readBefore.fn = si.fn
				}
			}
			t.lines = append(t.lines, si)
		}
	}
	k := int(s - t.base)
	if k >= len(t.lines) {
		return nil, siteInfo{}, false
	}
	return t, t.lines[k], true
}

// funcOfSite identifies the function of site s: the id of the first site
// of its table in the same function, or 0 if s is unknown. It runs in
// the middle of checks, so it calls no standard-library code (which may
// be instrumented and call back into the runtime).
func funcOfSite(s uint32) uint32 {
	tp := sites.snapshot.Load()
	if tp == nil {
		return 0
	}
	ts := *tp
	lo, hi := 0, len(ts) // the first table ending past s
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if ts[m].base+ts[m].n > s {
			hi = m
		} else {
			lo = m + 1
		}
	}
	if s == 0 || lo == len(ts) || ts[lo].base > s {
		return 0
	}
	t := ts[lo]
	fp := t.first.Load()
	if fp == nil {
		first := firstSites(t.table)
		t.first.CompareAndSwap(nil, &first)
		fp = t.first.Load()
	}
	if k := s - t.base; k < uint32(len(*fp)) {
		return t.base + (*fp)[k]
	}
	return 0
}

// firstSites returns, for each line "line:col:function" of a site table
// (followed by what the check covers, after a tab), the index of the first
// line with the same function.
func firstSites(table string) []uint32 {
	first := []uint32{}
	byFn := map[string]uint32{}
	for len(table) > 0 {
		end, colons, fn, fnEnd := 0, 0, "", -1
		for end < len(table) && table[end] != '\n' {
			if table[end] == ':' {
				if colons++; colons == 2 {
					fn = table[end+1:]
				}
			}
			if table[end] == '\t' && fnEnd < 0 {
				fnEnd = end
			}
			end++
		}
		if fnEnd < 0 {
			fnEnd = end
		}
		if colons >= 2 && len(table)-len(fn) <= fnEnd {
			fn = fn[:len(fn)-(len(table)-fnEnd)]
		}
		k, ok := byFn[fn]
		if !ok {
			k = uint32(len(first))
			byFn[fn] = k
		}
		first = append(first, k)
		if end < len(table) {
			end++
		}
		table = table[end:]
	}
	return first
}

// writeSite writes a site as a one-frame stack.
func writeSite(w io.Writer, s uint32) {
	t, si, ok := site(s)
	if !ok {
		fmt.Fprintf(w, "  ??()\n      ??:0\n")
		return
	}
	if t.hook {
		return // no file's line: the stack is all there is
	}
	fn := si.fn
	if fn == "" {
		fn = "??"
	}
	fmt.Fprintf(w, "  %s.%s()\n      %s:%d\n", t.pkg, fn, t.file, si.line)
}

// writeAccess writes the access a of the check at site s as a one-frame
// stack, or the site itself if a is not known (exact is false).
func writeAccess(w io.Writer, s uint32, a access, exact bool) {
	t, si, ok := site(s)
	if !ok || !exact {
		writeSite(w, s)
		return
	}
	fn, file := si.fn, t.file
	if a.fn != "" {
		fn, file = a.fn, a.file
	}
	if fn == "" {
		fn = "??"
	}
	fmt.Fprintf(w, "  %s.%s()\n      %s:%d\n", t.pkg, fn, file, a.line)
}

// Options (BIGFOOT_OPTIONS, like GORACE).

var opts = struct {
	exitcode    int
	haltOnError bool
	logPath     string
	stats       bool
	dedup       bool
	history     bool
}{exitcode: 66, dedup: true, history: true}

func init() {
	parseOptions(os.Getenv("BIGFOOT_OPTIONS"))
	startSched()
}

func parseOptions(s string) {
	for _, f := range strings.Fields(s) {
		k, v, _ := strings.Cut(f, "=")
		n, err := strconv.Atoi(v)
		switch k {
		case "exitcode":
			if err == nil {
				opts.exitcode = n
			}
		case "halt_on_error":
			opts.haltOnError = err == nil && n != 0
		case "log_path":
			opts.logPath = v
		case "stats":
			opts.stats = err == nil && n != 0
		case "dedup":
			opts.dedup = err != nil || n != 0
		case "history":
			opts.history = err != nil || n != 0
		case "sched":
			if err == nil && n > 0 {
				sched.n = uint64(n)
			}
		case "sched_seed":
			if s, err := strconv.ParseUint(v, 10, 64); err == nil {
				sched.seed = s
			}
		default:
			fmt.Fprintf(stderr, "bigfoot: unknown option %q in BIGFOOT_OPTIONS\n", k)
		}
	}
}

// Reports.

var (
	races    atomic.Int64 // races reported
	reportMu spin.Mutex   // serializes reports; guards the fields below
	seen     = map[raceKey]bool{}
	// racy holds the 8-byte granule of each race found with the epochs
	// of its two accesses (wiped).
	racy = map[racyAccess]bool{}
	// readOnly holds the 8-byte granules where a race was found, with
	// the collector's generation then, or readOnlyGlobal (readSkipped).
	readOnly = map[uintptr]uint64{}
	out      io.Writer // report destination; nil: stderr or log_path
	logFile  *os.File
)

// stderr is the standard error the program started with. Reports go there,
// as go -race's go to file descriptor 2, even if the program assigns
// another file to os.Stderr (pflag's tests assign /dev/null and keep it).
var stderr = os.Stderr

// output returns the report writer; reportMu is held.
func output() io.Writer {
	if out != nil {
		return out
	}
	if opts.logPath != "" {
		if logFile == nil {
			f, err := os.OpenFile(opts.logPath+"."+strconv.Itoa(os.Getpid()), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o666)
			if err != nil {
				fmt.Fprintf(stderr, "bigfoot: %v\n", err)
				return stderr
			}
			logFile = f
		}
		return logFile
	}
	return stderr
}

// detectorDir is the directory of this package's sources, whose frames are
// dropped from report stacks.
var detectorDir = func() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(file)
}()

func isDetectorFrame(f runtime.Frame) bool {
	return filepath.Dir(f.File) == detectorDir && !strings.HasSuffix(f.File, "_test.go") || isStdShimFrame(f)
}

// wiped reports whether race r, found by an access in epoch cur,
// conflicts with an earlier access that Go's race runtime no longer
// knows, and records r's two accesses. ThreadSanitizer, on finding a race,
// empties the shadow of the access's 8-byte granule and does not record
// the access (DoReportRace), whether it then reports the race or
// suppresses it: the accesses made before never conflict again. So `x++`
// in two goroutines gives one report (the first conflict), not a second
// one for the other access, and a test that repeats such a race gets the
// reports it gets under go -race. The detector keeps its state, so the two
// accesses of each race found, by their epochs, stand for the granule's
// history: a race against one of them is wiped, one against an access of
// a later epoch is reported (report ticks the clock of the goroutine that
// found the race, so that its next accesses are of a later epoch). An epoch is one goroutine's for the
// process's life (a recycled thread id continues from its old clock), so
// memory reused for another object is not mistaken for the old one.
// reportMu is held.
func wiped(r shadow.Race, cur shadow.Epoch) bool {
	gran := r.Addr &^ 7
	if racy[racyAccess{gran, r.Prev}] {
		return true
	}
	racy[racyAccess{gran, r.Prev}] = true
	racy[racyAccess{gran, cur}] = true
	return false
}

// readSkipped reports whether race r, found by an access at site, is one
// Go's race runtime never finds because it found an earlier race in the
// same granule, and marks the granule. ThreadSanitizer, on finding a race,
// also stores its read-only marker in the granule's shadow (DoReportRace):
// from then on it neither checks nor records a read of the granule, until
// the memory is allocated again; writes are checked and recorded as
// before. So a read that conflicts with a write made after the race is
// never reported under go -race (sony/gobreaker's TestGeneration reads a
// global that TestCustomCircuitBreaker raced on, while a goroutine writes
// it under the lock); a write that conflicts with a later write is (two
// tests that each race on one global fail both, TestSameRepeatedRaces). A
// write that conflicts with a read made after the race is reported too:
// go -race has not recorded the read, but the write may conflict with a
// write it has, which bigfoot's cell, reporting one conflict, may not
// name. A race skipped so is no race found: its accesses are not wiped. A
// global's mark lasts for the process's life; a heap granule's until a
// collection completes, after which its object may have been freed and
// its memory allocated again, which clears the marker. reportMu is held.
func readSkipped(r shadow.Race, site uint32) bool {
	gran := r.Addr &^ 7
	gen, marked := readOnly[gran]
	if marked && gen != readOnlyGlobal && gen != shadow.Gen() {
		marked = false // a collection completed since: the memory may be another object's
	}
	if !marked {
		gen = readOnlyGlobal
		if shadow.InHeapObject(shadow.PtrOf(gran)) {
			gen = shadow.Gen()
		}
		readOnly[gran] = gen
		return false
	}
	// A lock's own access is checked as a read (lockRead); go -race's is
	// the write of an atomic read-modify-write.
	return !r.Write && site != hookSite(hookLock)
}

// readOnlyGlobal marks a granule of readOnly that is not on the heap.
const readOnlyGlobal = ^uint64(0)

// A racyAccess is an access of a race found: its granule and epoch.
type racyAccess struct {
	gran uintptr
	prev shadow.Epoch
}

// raceKey identifies a race for deduplication (option dedup): the sites
// of its two accesses and the stack of the one that found it, as Go's race
// runtime suppresses a race whose two stacks it reported already
// (suppress_equal_stacks; the key has the earlier access's site, not its
// stack, which the history may no longer hold when the race repeats).
// The same race reached through another caller is reported again, as
// under go -race. A deferred check's stack is where it was committed,
// not the access's: its key is the unordered pair of sites.
type raceKey struct {
	site, prevSite uint32
	// line, prevLine: the lines of the accesses a coalesced check stands
	// for (exact.go); races on two fields of one group check are two
	// races, as under go -race
	line, prevLine int
	stack          uint64 // hash of the stack's PCs; 0 for a deferred check
	addr           uintptr
}

// keyOf returns the key of race r found by g's access at site, whose stack
// is pcs.
func keyOf(g *G, r shadow.Race, site uint32, pcs []uintptr) raceKey {
	k := raceKey{site: site, prevSite: r.PrevSite}
	if site == 0 || r.PrevSite == 0 || isHookSite(site) || isHookSite(r.PrevSite) {
		k.addr = r.Addr // unknown sites and hooks': one report per address
	}
	if g.committing {
		if k.site > k.prevSite {
			k.site, k.prevSite = k.prevSite, k.site
		}
		return k
	}
	// FNV-1a over the PCs, by hand: the standard library's hash
	// packages may be instrumented, and their hooks must not run here.
	k.stack = 14695981039346656037
	for _, pc := range pcs {
		k.stack ^= uint64(pc)
		k.stack *= 1099511628211
	}
	return k
}

// report prints a race found by g's access at site.
func report(g *G, r shadow.Race, site uint32) {
	reportIn(g, r, site, 0)
}

// reportIn prints a race found by g's check at site of a field group of
// the struct at base (0: no group's). A check that covers several
// accesses is reported at the access that raced (exactAccess), as go -race
// reports it: its line in the check's function, its kind.
func reportIn(g *G, r shadow.Race, site uint32, base uintptr) {
	earlier := false
	var earlierPCs []uintptr // the stack of an earlier access in another function
	var pcs [64]uintptr
	n := runtime.Callers(2, pcs[:])
	// An access of the racing bytes the goroutine made earlier and has
	// not checked yet: go -race reports it (earlier.go).
	if a, pcsOf, ok := g.earlierAccess(&r, site, pcs[:n]); ok {
		site, r.Write, g.org, g.orgElem, earlier, earlierPCs = a.site, a.write, a.org, a.elem, true, pcsOf
		base = 0
		defer func() { g.org, g.orgElem = 0, 0 }()
	}
	key := keyOf(g, r, site, pcs[:n])
	clock := g.t.Epoch.Clock() // the access's, before the tick below
	reportMu.Lock()
	defer reportMu.Unlock()
	defer stdQuiet()()
	if readSkipped(r, site) || wiped(r, g.t.Epoch) {
		return
	}
	// The accesses g makes next are not the one that raced, which
	// ThreadSanitizer does not record: they get an epoch of their own.
	g.tick()
	base, group := structOf(site, r.Addr, base)
	if g.committing {
		// A footprint's entry may stand for accesses other than the
		// one its site names: a field's offset there is no guide.
		base, group = 0, ""
	}
	lo, hi, prevLo := racingBytes(r, site)
	cur, curExact := exactAccess(site, r.Write, lo, hi, base, group, r.PrevWrite, true)
	if !curExact {
		cur, curExact = gridAccess(site, r.Write, r.Addr, g.org, g.orgElem, r.PrevWrite, true)
	}
	if !curExact && earlier {
		// The pending access is at its site, not at the check's line.
		cur, curExact = ownAccess(site, r.Write)
	}
	if !curExact && g.committing {
		// A range of several sites' accesses (FM): the site that
		// touched the racing element.
		if s, ok := g.ownChangedSite(site, clock, r.Addr); ok {
			cur, curExact = ownAccess(s, r.Write)
		}
	}
	if b, grp, ok := groupStart(r.PrevSite, prevLo); ok && (base == 0 || grp != group) {
		// The earlier access is a group's check the later one knows
		// no start of: its history entry's first byte tells it.
		base, group = b, grp
	}
	prevAcc, prevExact := exactAccess(r.PrevSite, r.PrevWrite, lo, hi, base, group, r.Write, false)
	var hist restored
	if !prevExact {
		// The grid of the earlier access's range, from its history
		// entry, if its site has one (checkedOrigin).
		hist = restoreOnGrid(r)
		prevAcc, prevExact = gridAccess(r.PrevSite, r.PrevWrite, r.Addr, hist.org, hist.elem, r.Write, false)
	}
	if !prevExact {
		if s, ok := changedSiteOf(r.Prev, r.PrevSite, r.Addr); ok {
			prevAcc, prevExact = ownAccess(s, r.PrevWrite)
		}
	}
	if curExact {
		r.Write = cur.write
	}
	if curExact && !g.committing {
		key.line = cur.line
	}
	if prevExact && !g.committing { // a deferred check's key is an unordered pair
		key.prevLine = prevAcc.line
	}
	if opts.dedup {
		if seen[key] {
			return
		}
		seen[key] = true
	}
	races.Add(1)
	w := bufio.NewWriter(output())
	kind := func(write bool, cap bool) string {
		s := "read"
		if write {
			s = "write"
		}
		if cap {
			s = strings.ToUpper(s[:1]) + s[1:]
		}
		return s
	}
	// A lock's own access is checked as a read, so that Locks do not race
	// one another (lockRead); go -race prints it as the write of the
	// atomic read-modify-write it is.
	if site == hookSite(hookLock) {
		r.Write = true
	}
	if r.PrevSite == hookSite(hookLock) {
		r.PrevWrite = true
	}
	fmt.Fprintf(w, "==================\nWARNING: DATA RACE\n")
	fmt.Fprintf(w, "%s at 0x%012x by %s:\n", kind(r.Write, true), r.Addr, goroutineName(strconv.FormatUint(g.goid, 10)))
	if copyAccess(site, cur, curExact) {
		writeSlicecopy(w)
	}
	switch {
	case earlierPCs != nil && writeAccessStack(w, site, cur, curExact, earlierPCs, false):
		// The earlier access's own stack.
	case g.committing && writeDeferredStack(w, g, site, cur, curExact, pcs[:n]):
	default:
		if g.committing {
			// The access is at its site; the stack is where the
			// check was made.
			writeAccess(w, site, cur, curExact)
			fmt.Fprintf(w, "  (deferred check, made at:)\n")
		}
		for i, f := range shownFrames(pcs[:n]) {
			line := f.Line
			if curExact && !g.committing && i == 0 {
				line = cur.line // the check's frame: the covered access's line
			}
			writeFrame(w, f, line)
		}
	}
	prev, havePrev := ownerOf(r.Prev)
	prevID := "?"
	if havePrev && prev.goid != 0 {
		prevID = strconv.FormatUint(prev.goid, 10)
	}
	fmt.Fprintf(w, "\nPrevious %s at 0x%012x by %s:\n", kind(r.PrevWrite, false), r.Addr, goroutineName(prevID))
	if copyAccess(r.PrevSite, prevAcc, prevExact) {
		writeSlicecopy(w)
	}
	if !hist.done {
		hist.pcs, hist.commit, _, _ = restore(r.Prev, r.PrevSite, r.Addr)
	}
	if hist.pcs == nil || !writeAccessStack(w, r.PrevSite, prevAcc, prevExact, hist.pcs, hist.commit) {
		// What is known: the site. As ThreadSanitizer says when its
		// trace no longer holds the access.
		writeAccess(w, r.PrevSite, prevAcc, prevExact)
		fmt.Fprintf(w, "  [failed to restore the stack]\n")
	}
	if g.forkSite != 0 {
		fmt.Fprintf(w, "\nGoroutine %d (running) created at:\n", g.goid)
		writeCreation(w, g.forkSite, g.forkStack)
	}
	if havePrev && prev.site != 0 && prev.goid != g.goid {
		state := "running"
		if prev.finished {
			state = "finished"
		}
		fmt.Fprintf(w, "\nGoroutine %s (%s) created at:\n", prevID, state)
		writeCreation(w, prev.site, prev.stack)
	}
	fmt.Fprintf(w, "==================\n")
	w.Flush()
	if opts.haltOnError {
		finishLocked(g)
		os.Exit(opts.exitcode)
	}
}

// RaceErrors returns the number of races reported so far.
func RaceErrors() int { return int(races.Load()) }

// goroutineName names goroutine id in a report as Go's race detector
// does: goroutine 1 is "main goroutine".
func goroutineName(id string) string {
	if id == "1" {
		return "main goroutine"
	}
	return "goroutine " + id
}

// showFrame reports whether a report's stack shows frame f, called from a
// function named callee (the nearest frame above it outside the detector,
// "" for the first). It leaves
// out the detector's frames and, as Go's race detector does, the
// runtime's frames that start goroutines (runtime.main, runtime.goexit),
// and the main function bigfoot adds around the user's (renamed
// main.__bfMain, shown as main.main).
func showFrame(f runtime.Frame, callee string) bool {
	switch {
	case isDetectorFrame(f), f.Function == "runtime.goexit", f.Function == "runtime.main":
		return false
	case f.Function == "main.main" && callee == "main.__bfMain":
		return false
	}
	return true
}

// userFuncName undoes the instrumenter's renaming of the function it wraps
// (main.main becomes main.__bfMain), so that stacks name the functions the
// user wrote.
func userFuncName(name string) string {
	return copySuffix.ReplaceAllString(strings.Replace(name, ".__bfMain", ".main", 1), "")
}

// copySuffix matches the suffixes of the specialized copies of a function
// the instrumenter emits: F__bfnc, whose checks the caller's loop covers
// (instrument/cover.go), and F__bfup<i>, for an unpublished argument i
// (instrument/unpublished.go). A report names the function the user
// wrote.
var copySuffix = regexp.MustCompile(`__bf(nc|up[0-9]+)`)
