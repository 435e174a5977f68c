package instrument

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// escapeShapes are the shapes of "What emitted code may do to escape
// analysis" (docs/instrument.md). A function whose declaration line says
// `// inlined` must be inlined at every call site where the plain build
// inlines it; every variable the instrumented build moves to the heap the
// plain build moves there too.
const escapeShapes = `package shapes

import "iter"

// Digest: github.com/cespare/xxhash/v2's constructor of a zero-valued
// local, inlined into New and New into UseDigest (d stays on its stack).
type Digest struct {
	v1, v2 uint64
	mem    [32]byte
	n      int
}

func New() *Digest { return NewWithSeed(0) } // inlined

func NewWithSeed(seed uint64) *Digest { // inlined
	var d Digest
	d.Reset(seed)
	return &d
}

func (d *Digest) Reset(seed uint64) {
	d.v1 = seed + 1
	d.v2 = seed
	d.n = 0
}

func UseDigest(b []byte) uint64 {
	d := New()
	d.mem[0] = b[0]
	return d.v1 ^ uint64(d.mem[0])
}

// Hash: hash/fnv's initialized local returned as an interface, whose
// method call the caller devirtualizes once the constructor is inlined.
type Hash interface{ Sum32() uint32 }

type sum32 uint32

func (s *sum32) Sum32() uint32 { return uint32(*s) }

func NewHash() Hash { // inlined
	var s sum32 = 2166136261
	return &s
}

func NewHash2() Hash { // inlined
	s := sum32(2166136261)
	return &s
}

func HashOf() uint32 { return NewHash().Sum32() + NewHash2().Sum32() }

// Point: a struct built by value in an inlined constructor.
type Point struct{ X, Y int }

func MakePoint(x, y int) Point { // inlined
	var p Point
	p.X = x
	p.Y = y
	return p
}

func UsePoint() int {
	p := MakePoint(1, 2)
	return p.X + p.Y
}

// RangeFunc: a range-over-func body that only reads p and one, which the
// compiler captures by value; the iterator is a func value, so the body
// escapes.
var Iterate func(int) iter.Seq[int]

func RangeFunc(p *Point, n int) int {
	s := 0
	one := func(i int) int { return i * p.X }
	for v := range Iterate(n) {
		s += one(v)
	}
	return s
}

// Closure: a captured variable written in place by a closure that does
// not escape.
func Closure(n int) int {
	c := 0
	inc := func() { c++ }
	for i := 0; i < n; i++ {
		inc()
	}
	return c
}
`

// mLine matches the lines of go build -gcflags=-m this test compares:
// file, line and message (columns differ, the instrumented line being
// longer).
var mLine = regexp.MustCompile(`^(?:\./)?([^:\s]+\.go):(\d+):\d+: (moved to heap: \S+|inlining call to \S+)$`)

// TestNoNewEscape builds escapeShapes plain and instrumented in bigfoot
// mode with -gcflags=-m. At a302844 NewWithSeed, NewHash and NewHash2 were
// no longer inlined (the checks of the declarations' writes went over the
// inlining budget) and RangeFunc moved one to the heap (its checks took
// its address, so the loop body captured it by reference).
func TestNoNewEscape(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module twice")
	}
	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "go.mod"), []byte("module example.com/shapes\n\ngo 1.23\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "shapes.go"), []byte(escapeShapes), 0o644); err != nil {
		t.Fatal(err)
	}
	w := newWorkspace(t, src)
	w.mode = "bigfoot"
	w.instrument(t, false)
	plain := escapeFacts(t, w, false)
	inst := escapeFacts(t, w, true)
	for fact, n := range inst {
		if strings.Contains(fact, ": moved to heap: ") && n > plain[fact] {
			t.Errorf("instrumented: %s (%d times, plain %d)", fact, n, plain[fact])
		}
	}
	var inlined []string
	for _, line := range strings.Split(escapeShapes, "\n") {
		if strings.HasSuffix(line, "// inlined") {
			name, _, _ := strings.Cut(strings.TrimPrefix(line, "func "), "(")
			inlined = append(inlined, name)
		}
	}
	if len(inlined) != 5 {
		t.Fatalf("%d functions annotated inlined, want 5", len(inlined))
	}
	for _, name := range inlined {
		fact := "inlining call to " + name
		var p, q int
		for f, n := range plain {
			if strings.HasSuffix(f, fact) {
				p += n
			}
		}
		for f, n := range inst {
			if strings.HasSuffix(f, fact) {
				q += n
			}
		}
		if p == 0 {
			t.Errorf("plain build: no %s (the shape does not test it)", fact)
		}
		if q < p {
			t.Errorf("instrumented: %s at %d call sites, plain at %d", fact, q, p)
		}
	}
}

// escapeFacts returns the -m lines of mLine of the module's build, plain
// or with the overlay, keyed "file:line: message", with their counts.
func escapeFacts(t *testing.T, w *workspace, overlay bool) map[string]int {
	t.Helper()
	out, err := w.goCmd(t, overlay, "build", "-gcflags=-m", "./...")
	if err != nil {
		t.Fatalf("go build -gcflags=-m (overlay %v): %v\n%s", overlay, err, out)
	}
	facts := map[string]int{}
	for _, line := range strings.Split(out, "\n") {
		if m := mLine.FindStringSubmatch(line); m != nil && filepath.Base(m[1]) == "shapes.go" {
			facts[filepath.Base(m[1])+":"+m[2]+": "+m[3]]++
		}
	}
	if len(facts) == 0 {
		t.Fatalf("go build -gcflags=-m (overlay %v) printed nothing about shapes.go:\n%s", overlay, out)
	}
	return facts
}
