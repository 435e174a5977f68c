package main

import (
	"fmt"
	"strings"
	"testing"
)

// allocsModule has the shapes whose heap allocations an inserted check
// could change, each measured with testing.AllocsPerRun and printed, so
// that go test -race and bigfoot test must print the same counts
// (docs/instrument.md, "What emitted code may do to escape analysis").
var allocsModule = map[string]string{
	"go.mod": "module example.com/allocs\n\ngo 1.23\n",
	"allocs.go": `package allocs

// Digest is github.com/cespare/xxhash/v2's: a constructor returning a
// pointer to a zero-valued local, inlined into New and New into its
// caller, so that the Digest of d := New() stays on the caller's stack.
type Digest struct {
	v1, v2 uint64
	mem    [32]byte
	n      int
}

func New() *Digest { return NewWithSeed(0) }

func NewWithSeed(seed uint64) *Digest {
	var d Digest
	d.Reset(seed)
	return &d
}

func (d *Digest) Reset(seed uint64) {
	d.v1 = seed + 1
	d.v2 = seed
	d.n = 0
}

func (d *Digest) Write(b []byte) int {
	n := copy(d.mem[d.n:], b)
	d.n += n
	return n
}

func (d *Digest) Sum() uint64 { return d.v1 ^ d.v2 ^ uint64(d.n) ^ uint64(d.mem[0]) }

// Hash is hash/fnv's: an initialized local returned as an interface,
// whose method call the caller devirtualizes once the constructor is
// inlined.
type Hash interface{ Sum32() uint32 }

type sum32 uint32

func (s *sum32) Sum32() uint32 { return uint32(*s) }

func NewHash() Hash {
	var s sum32 = 2166136261
	return &s
}

func NewHash2() Hash {
	s := sum32(2166136261)
	return &s
}

// Point is returned by value and used through a pointer that does not
// escape.
type Point struct{ X, Y int }

func MakePoint(x, y int) Point {
	var p Point
	p.X = x
	p.Y = y
	return p
}

func (p *Point) Scale(k int) { p.X *= k; p.Y *= k }

// seq's loop body is a func value for the range-over-func loops below:
// called through a variable, it escapes.
func seq(n int) func(func(int) bool) {
	return func(yield func(int) bool) {
		for i := 0; i < n; i++ {
			if !yield(i) {
				return
			}
		}
	}
}

var iterate = seq

// RangeFunc's loop body only reads p and one, which the compiler captures
// by value (text/template's walkRange): a check taking their address
// would capture them by reference and move them to the heap.
func RangeFunc(p *Point, n int) int {
	s := 0
	one := func(i int) int { return i * p.X }
	for v := range iterate(n) {
		s += one(v)
	}
	return s
}

// Counter's closure is called in place.
func Counter(n int) int {
	c := 0
	inc := func() { c++ }
	for i := 0; i < n; i++ {
		inc()
	}
	return c
}

// Appended appends into a buffer on the stack.
func Appended(x byte) int {
	var buf [16]byte
	b := append(buf[:0], x, x+1)
	return len(b) + int(b[1])
}
`,
	"allocs_test.go": `package allocs

import (
	"fmt"
	"testing"
)

var sink uint64

func TestAllocs(t *testing.T) {
	b := []byte("asdf")
	p := &Point{1, 2}
	for _, c := range []struct {
		name string
		f    func()
	}{
		{"Digest", func() { d := New(); d.Write(b); sink = d.Sum() }},
		{"NewHash", func() { sink = uint64(NewHash().Sum32()) }},
		{"NewHash2", func() { sink = uint64(NewHash2().Sum32()) }},
		{"Point", func() { q := MakePoint(1, 2); q.Scale(3); sink = uint64(q.X + q.Y) }},
		{"RangeFunc", func() { sink = uint64(RangeFunc(p, 3)) }},
		{"Counter", func() { sink = uint64(Counter(3)) }},
		{"Appended", func() { sink = uint64(Appended(7)) }},
	} {
		fmt.Printf("%s: %v allocations\n", c.name, testing.AllocsPerRun(100, c.f))
	}
}
`,
}

// TestAllocsSameAsGoRace: an inserted check moves no variable to the
// heap. Each shape's allocations per run under bigfoot test are those
// under go test -race (and the plain build's: go -race changes no
// escape). At a302844 bigfoot test printed 5 for Digest (xxhash's
// TestAllocs), 2 for NewHash and NewHash2, and 6 for RangeFunc, where go
// test -race prints 0, 0, 0 and 4. The default mode is the one measured,
// as go test -race's counterpart.
func TestAllocsSameAsGoRace(t *testing.T) {
	dir := writeModule(t, allocsModule)
	out := sameAsGoRace(t, dir, nil, "-count=1", "-v", ".")
	if n := strings.Count(out, " allocations\n"); n != 7 {
		t.Errorf("go test -race printed %d allocation counts, want 7\n%s", n, out)
	}
}

// growModule appends to a local slice one element at a time. The compiler
// keeps the first, small backing arrays of an append on the stack, even
// for a slice that escapes later, where the append is made in the
// function itself: a race build does not (go test -race allocates 7
// objects per run, the plain build 4), so bigfoot test is compared with
// the plain build here.
var growModule = map[string]string{
	"go.mod": "module example.com/grow\n\ngo 1.23\n",
	"grow_test.go": `package grow

import (
	"fmt"
	"testing"
)

var sink int

func grow(n int) []int32 {
	var out []int32
	for i := 0; i < n; i++ {
		v := int32(i)
		out = append(out, v)
	}
	return out
}

func TestGrow(t *testing.T) {
	fmt.Printf("grow: %v allocations\n", testing.AllocsPerRun(100, func() { sink = len(grow(100)) }))
}
`,
}

// TestAllocsSameAsPlain: the append of growModule, checked, is still made
// in the function (instrument/appendstmt.go), so that bigfoot test
// allocates what the plain build does. Before, the append was made in
// Appender.Add: 7 allocations, against the plain build's 4.
func TestAllocsSameAsPlain(t *testing.T) {
	if bigfootBin == "" {
		t.Skip("end-to-end test; skipped with -short")
	}
	dir := writeModule(t, growModule)
	want := run(t, dir, nil, "go", "test", "-count=1", "-v", ".")
	got := run(t, dir, nil, bigfootBin, "test", "-count=1", "-v", ".")
	want.stdout, want.stderr = normalize(want.stdout), normalize(want.stderr)
	got.stdout, got.stderr = normalize(got.stdout), normalize(got.stderr)
	if got != want {
		t.Errorf("bigfoot test differs from go test\nbigfoot:\n%v\ngo test:\n%v", got, want)
	}
	if !strings.Contains(want.stdout, "grow: ") {
		t.Errorf("go test printed no allocation count:\n%s", want.stdout)
	}
}

// marshalModule appends records to byte buffers a few bytes at a time, as
// protobuf's Marshal does (varints, fixed-width fields, strings), and reads
// them back, counting each shape's allocations with testing.AllocsPerRun.
// The bytes of a buffer are written by different, overlapping accesses,
// so their shadow splits into parts per byte.
var marshalModule = map[string]string{
	"go.mod": "module example.com/marshal\n\ngo 1.23\n",
	"marshal_test.go": `package marshal

import (
	"encoding/binary"
	"fmt"
	"testing"
)

var (
	sink []byte
	sum  uint64
)

func appendRecord(b []byte, id uint64, v uint32, s string) []byte {
	b = binary.AppendUvarint(b, id)
	b = binary.LittleEndian.AppendUint32(b, v)
	b = binary.LittleEndian.AppendUint16(b, uint16(v))
	b = append(b, byte(len(s)))
	return append(b, s...)
}

func readRecords(b []byte) (s uint64) {
	for len(b) > 0 {
		id, n := binary.Uvarint(b)
		s += id + uint64(binary.LittleEndian.Uint32(b[n:])) + uint64(binary.LittleEndian.Uint16(b[n+4:]))
		b = b[n+7+int(b[n+6]):]
	}
	return s
}

func TestAllocs(t *testing.T) {
	reused := make([]byte, 0, 256)
	for _, c := range []struct {
		name string
		f    func()
	}{
		{"fresh", func() {
			b := make([]byte, 0, 96)
			for i := range 4 {
				b = appendRecord(b, uint64(i)<<20, uint32(i), "name")
			}
			sum += readRecords(b)
			sink = b
		}},
		{"reused", func() {
			b := reused[:0]
			for i := range 8 {
				b = appendRecord(b, uint64(i)<<20, uint32(i), "name")
			}
			sink = b
		}},
		{"grown", func() {
			var b []byte
			for i := range 16 {
				b = appendRecord(b, uint64(i)<<20, uint32(i), "name")
			}
			sum += readRecords(b)
			sink = b
		}},
	} {
		fmt.Printf("%s: %v allocations\n", c.name, testing.AllocsPerRun(200, c.f))
	}
}
`,
}

// TestShadowAllocsSameAsGoRace: the shadow of a buffer written a few bytes
// at a time allocates nothing on the Go heap, which testing.AllocsPerRun
// would count (issue 29: protobuf's TestMarshalAppendAllocations failed
// under bigfoot only), so bigfoot test prints go test -race's counts, and
// the plain build's. At 8c96edd bigfoot test printed 23 allocations for
// "fresh" and over 100 for "grown", where go test -race prints 1 and 6: a heap
// granule, its parts and a cell per split granule.
func TestShadowAllocsSameAsGoRace(t *testing.T) {
	dir := writeModule(t, marshalModule)
	out := sameAsGoRace(t, dir, nil, "-count=1", "-v", ".")
	if n := strings.Count(out, " allocations\n"); n != 3 {
		t.Errorf("go test -race printed %d allocation counts, want 3\n%s", n, out)
	}
	plain := run(t, dir, nil, "go", "test", "-count=1", "-v", ".")
	for _, line := range strings.Split(plain.stdout, "\n") {
		if strings.HasSuffix(line, " allocations") && !strings.Contains(out, line+"\n") {
			t.Errorf("the plain build printed %q, go test -race and bigfoot test did not:\n%s", line, out)
		}
	}
}

// detectorAllocsModule counts, as ttlcache's Test_Cache_Get does, the
// allocations of one call with runtime.ReadMemStats around it, after a
// set-up that touched the memory: the first Unlock and RUnlock of a fresh
// RWMutex (two sync objects, a frozen clock for the detector) and, in
// goroutines with new thread ids, 120 writes at as many sites (the
// history ring grows from 32 entries twice). The shadow's first page of
// memory (a page and its slot array's cleanup) is still made on the Go
// heap: a call that is the first to touch a page allocates (docs/runtime.md,
// "Objects made ahead").
func detectorAllocsModule() map[string]string {
	var fields, calls, setters strings.Builder
	for i := range 120 {
		fmt.Fprintf(&fields, "\tf%d int\n", i)
		fmt.Fprintf(&calls, "\ts.set%d(v)\n", i)
		fmt.Fprintf(&setters, "//go:noinline\nfunc (s *Wide) set%d(v int) { s.f%d = v }\n\n", i, i)
	}
	return map[string]string{
		"go.mod": "module example.com/detallocs\n\ngo 1.23\n",
		"wide.go": "package detallocs\n\ntype Wide struct {\n" + fields.String() + "}\n\n" +
			"// Set writes each field in a function of its own: 120 checks.\n" +
			"func (s *Wide) Set(v int) {\n" + calls.String() + "}\n\n" + setters.String(),
		"allocs_test.go": `package detallocs

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
)

// allocs counts the allocations of the call mk makes ready, with
// GOMAXPROCS 1 as ttlcache's allocsPerSingleRun, again with a new one
// if a collection completed meanwhile (whose finalizers allocate, under
// either tool).
func allocs(mk func() func()) uint64 {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	for {
		f := mk()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		before, gc := m.Mallocs, m.NumGC
		f()
		runtime.ReadMemStats(&m)
		if m.NumGC == gc {
			return m.Mallocs - before
		}
	}
}

// prepare makes f's accesses in two epochs, as a test's set-up does
// before the call it counts, which then finds the shadow's pages made and
// runs in a third epoch.
func prepare(f func()) {
	f()
	tick.Lock()
	tick.Unlock()
	f()
	tick.Lock()
	tick.Unlock()
}

var tick sync.Mutex

type cache struct {
	mu sync.RWMutex
	n  int
}

func TestFirstUnlock(t *testing.T) {
	for i := range 40 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			get := func() func() {
				c := new(cache)
				prepare(func() { c.n++ })
				return func() { c.mu.Lock(); c.n++; c.mu.Unlock(); c.mu.RLock(); _ = c.n; c.mu.RUnlock() }
			}
			fmt.Printf("unlock %d: %d allocations\n", i, allocs(get))
		})
	}
}

func TestManySites(t *testing.T) {
	// Goroutines alive together have thread ids of their own, whose
	// rings grow; they count one at a time, once all are started (the
	// go statements allocate).
	var measured, exited sync.WaitGroup
	turn, start, done := make(chan struct{}, 1), make(chan struct{}), make(chan struct{})
	for i := range 40 {
		measured.Add(1)
		exited.Add(1)
		go func() {
			defer exited.Done()
			set := func() func() {
				w := new(Wide)
				prepare(func() { w.Set(-1) })
				return func() { w.Set(i) }
			}
			<-start
			turn <- struct{}{}
			if n := allocs(set); n != 0 {
				t.Errorf("sites %d: %d allocations", i, n)
			}
			<-turn
			measured.Done()
			<-done
		}()
	}
	close(start)
	measured.Wait()
	close(done)
	exited.Wait()
}
`,
	}
}

// TestDetectorAllocsSameAsGoRace: the detector's objects a call needs (a
// mutex's sync objects, a longer history ring) are made ahead, outside the
// call (detector/reserve.go), so a test that counts one call's
// allocations counts the program's, as under go test -race (issue 29:
// ttlcache's Test_Cache_Get counted 2 to 3 more under bigfoot).
// A loaded machine can stretch a counted call over the end of a
// collection, whose finalizers and hooks allocate under either tool: a
// second run of bigfoot test decides.
func TestDetectorAllocsSameAsGoRace(t *testing.T) {
	if bigfootBin == "" {
		t.Skip("end-to-end test; skipped with -short")
	}
	dir := writeModule(t, detectorAllocsModule())
	want := run(t, dir, nil, "go", "test", "-race", "-count=1", "-v", ".")
	want.stdout, want.stderr = normalize(want.stdout), normalize(want.stderr)
	var got result
	for range 2 {
		got = run(t, dir, nil, bigfootBin, "test", "-count=1", "-v", ".")
		got.stdout, got.stderr = normalize(got.stdout), normalize(got.stderr)
		if got == want {
			break
		}
	}
	if got != want {
		t.Errorf("bigfoot test differs from go test -race\nbigfoot:\n%v\ngo test -race:\n%v", got, want)
	}
	if n := strings.Count(want.stdout, ": 0 allocations\n"); n != 40 {
		t.Errorf("go test -race printed %d counts of 0 allocations, want 40\n%s", n, want.stdout)
	}
}
