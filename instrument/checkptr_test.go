package instrument

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/packages"
)

// TestPointerChecksPass runs the proof over one package per rule: the
// forms whose compiler checks provably pass, and one of each check it
// must not claim to prove.
func TestPointerChecksPass(t *testing.T) {
	cases := []struct {
		name string
		src  string
		want bool
	}{
		{"nounsafe", `func F(x []int) int { return x[0] }`, true},
		{"bits", `func F(f float64) uint64 { return *(*uint64)(unsafe.Pointer(&f)) }`, true},
		{"bitsback", `func F(b uint64) float64 { return *(*float64)(unsafe.Pointer(&b)) }`, true},
		{"smaller", `func F(f float64) uint32 { return *(*uint32)(unsafe.Pointer(&f)) }`, true},
		{"field", `type S struct{ a, b uint64 }
func F(s S) uint32 { return *(*uint32)(unsafe.Pointer(&s.b)) }`, true},
		{"element", `func F(a [4]uint64) uint32 { return *(*uint32)(unsafe.Pointer(&a[1])) }`, true},
		{"bytes", `func F(p unsafe.Pointer) byte { return *(*byte)(p) }`, true},
		{"tostring", `func F(p *int) uintptr { return uintptr(unsafe.Pointer(p)) }`, true},
		{"callresult", `func g() uintptr { return 0 }
func F() unsafe.Pointer { return unsafe.Pointer(g()) }`, true},
		{"larger", `func F(f uint32) uint64 { return *(*uint64)(unsafe.Pointer(&f)) }`, false},
		{"pointerful", `func F(x [2]uint32) *int { return *(**int)(unsafe.Pointer(&x)) }`, false},
		{"throughpointer", `func F(p *uint64) float64 { return *(*float64)(unsafe.Pointer(p)) }`, false},
		{"fieldthroughpointer", `type S struct{ a, b uint64 }
func F(s *S) float64 { return *(*float64)(unsafe.Pointer(&s.b)) }`, false},
		{"sliceelement", `func F(s []uint64) float64 { return *(*float64)(unsafe.Pointer(&s[0])) }`, false},
		{"arithmetic", `func F(p unsafe.Pointer) unsafe.Pointer { return unsafe.Pointer(uintptr(p) + 8) }`, false},
		{"constant", `func F() unsafe.Pointer { return unsafe.Pointer(uintptr(4096)) }`, false},
		{"add", `func F(p unsafe.Pointer) unsafe.Pointer { return unsafe.Add(p, 8) }`, false},
		{"slice", `func F(p *int) []int { return unsafe.Slice(p, 4) }`, false},
		{"string", `func F(p *byte) string { return unsafe.String(p, 4) }`, false},
		{"slice3", `func F(x [4]uint32) []uint32 { return (*[4]uint32)(unsafe.Pointer(&x))[:2:2] }`, false},
		{"generic", `func F[T any](f T) uint64 { return *(*uint64)(unsafe.Pointer(&f)) }`, false},
		{"typeparam", `func F[P ~*uint64](p unsafe.Pointer) P { return P(p) }`, false},
		{"named", `type Ptr unsafe.Pointer
func F(p Ptr) *uint64 { return (*uint64)(p) }`, false},
		{"global", `var x = *(*uint64)(unsafe.Pointer(uintptr(8)))`, false},
	}
	dir := t.TempDir()
	write := func(name, data string) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/cp\n\ngo 1.24\n")
	for _, c := range cases {
		write(c.name+"/p.go", "package p\n\nimport \"unsafe\"\n\nvar _ unsafe.Pointer\n\n"+c.src+"\n")
	}
	pkgs, err := packages.Load(&packages.Config{Mode: loadMode, Dir: dir}, "./...")
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*packages.Package{}
	for _, p := range pkgs {
		for _, e := range p.Errors {
			t.Errorf("%s: %v", p.PkgPath, e)
		}
		byName[filepath.Base(p.PkgPath)] = p
	}
	for _, c := range cases {
		p := byName[c.name]
		if p == nil {
			t.Errorf("%s: not loaded", c.name)
			continue
		}
		if got := pointerChecksPass(p); got != c.want {
			t.Errorf("%s: pointerChecksPass = %v, want %v\n%s", c.name, got, c.want, c.src)
		}
	}
}

// TestPointerChecksPassStd pins the proof on the standard library: math's
// bit conversions pass, as does internal/poll, which converts pointers
// to uintptr only; packages whose pointer checks can fail do not.
func TestPointerChecksPassStd(t *testing.T) {
	pkgs, err := packages.Load(&packages.Config{Mode: loadMode}, "math", "math/bits", "unicode/utf8", "reflect", "sync", "strings", "internal/poll", "os")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"math": true, "math/bits": true, "unicode/utf8": true, "reflect": false, "sync": false, "strings": false, "internal/poll": true, "os": false}
	for _, p := range pkgs {
		if got := pointerChecksPass(p); got != want[p.PkgPath] {
			t.Errorf("%s: pointerChecksPass = %v, want %v", p.PkgPath, got, want[p.PkgPath])
		}
	}
}
