package instrument

import (
	"os"
	"path/filepath"
	"testing"
)

// buildCases are small modules, each a rewrite that once broke the
// user's build (issue 28): the instrumented module must pass go vet
// (which type-checks it and checks its build constraints) and go build
// in every mode.
var buildCases = map[string]map[string]string{
	// Appends of values assignable to, not identical to, the element
	// type, to slices the function has not published (bigfoot mode's
	// counting helper).
	"appendassign": {
		"go.mod": "module example.com/m\n\ngo 1.22\n",
		"main.go": `package main

import "fmt"

type I interface{ M() }
type T struct{ n int }

func (t *T) M() { t.n++ }

type F struct{ ps []I }

func main() {
	f := &F{}
	f.ps = append(f.ps, &T{})
	var xs []any
	xs = append(xs, 1, "a")
	type E error
	var es []E
	es = append(es, nil, fmt.Errorf("x"))
	fmt.Println(len(f.ps), xs, len(es))
}
`},
	// A package that declares a function any (Masterminds/sprig v3),
	// with appends to unpublished slices, generic code and loops over
	// arrays: no helper the instrumenter declares at package scope may
	// name the predeclared any.
	// A file of the module's root whose name is a subpackage's path
	// joined with "_" (go-json's v2_options.go beside v2/options.go):
	// the tests' overlay directory named files by their path so joined.
	"pathnames": {
		"go.mod": "module example.com/m\n\ngo 1.22\n",
		"v2_options.go": `package m

import "example.com/m/v2"

var Opts = v2.JoinOptions(1, 2)

var calls int

func Join(xs ...int) int {
	calls++
	return v2.JoinOptions(xs...) + calls
}
`,
		"v2/options.go": `package v2

var last []int

func JoinOptions(xs ...int) int {
	last = append(last, xs...)
	return len(last)
}
`,
	},
	"anyfunc": {
		"go.mod": "module example.com/m\n\ngo 1.22\n",
		"main.go": `package main

import (
	"fmt"
	"reflect"
)

func any(xs ...interface{}) bool { return len(xs) > 0 }

type grid struct{ cells [8]int }

func fill[S ~[]E, E interface{ ~int }](s S, v E) {
	for i := range s {
		s[i] = v
	}
}

func push(list interface{}, v interface{}) ([]interface{}, error) {
	l2 := reflect.ValueOf(list)
	l := l2.Len()
	nl := make([]interface{}, l)
	for i := 0; i < l; i++ {
		nl[i] = l2.Index(i).Interface()
	}
	return append(nl, v), nil
}

func main() {
	var xs []int
	xs = append(xs, 1, 2)
	fmt.Println(push(xs, 3))
	g := &grid{}
	for i := 0; i < len(g.cells); i++ {
		g.cells[i] = i * 2
	}
	fill(xs, 7)
	fmt.Println(any(xs), xs, g.cells)
}
`},
	// A package that declares functions named after builtins the
	// instrumented code calls: len, cap, copy, min and max.
	"builtinsdeclared": {
		"go.mod": "module example.com/m\n\ngo 1.20\n",
		"main.go": `package main

import "fmt"

func len(s []int) int     { n := 0; for range s { n++ }; return n }
func cap(s []int) int     { return 0 }
func copy(a, b []int) int { return 0 }
func min(a, b int) int    { if a < b { return a }; return b }
func max(a, b int) int    { if a > b { return a }; return b }

type pt struct{ x, y int }

func push(n, v int) []int {
	nl := make([]int, n)
	for i := 0; i < n; i++ {
		nl[i] = i
	}
	return append(nl, v)
}

func main() {
	s := make([]int, 8)
	for i := range s {
		s[i] = min(i, 5) + max(i, 2)
	}
	var ps []pt
	ps = make([]pt, 3)
	for i := 0; i < 3; i++ {
		ps[i].x, ps[i].y = i, i*i
	}
	ch := make(chan int, 1)
	select {
	case ch <- 1:
	default:
	}
	fmt.Println(len(s), cap(s), push(3, 9), copy(s, s), ps, <-ch)
}
`},
	// Old-style build constraints in a module older than go1.21, in
	// every form go/build accepts.
	"plusbuild": {
		"go.mod":       "module example.com/m\n\ngo 1.20\n",
		"main.go":      "//+build !foo\n\npackage main\n\nimport \"fmt\"\n\nvar x int\n\nfunc main() { x++; fmt.Println(x, y, z) }\n",
		"y.go":         "// Copyright.\n\n//+build !foo\n// +build linux darwin windows freebsd\n\npackage main\n\nvar y = 1\n",
		"z.go":         "//go:build !foo\n//+build !foo\n\npackage main\n\nvar z = 2\n",
		"main_test.go": "// +build !foo\n\npackage main\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) { x++ }\n",
	},
	// A method promoted through another package's unexported embedded
	// field.
	"promoted": {
		"go.mod":  "module example.com/m\n\ngo 1.22\n",
		"main.go": "package main\n\nimport \"strings\"\n\ntype b struct{ *strings.Builder }\n\nfunc (x *b) w() { x.WriteString(\"x\") }\n\nfunc main() { x := &b{new(strings.Builder)}; x.w() }\n",
		"main_test.go": `package main

import "testing"

type tt struct{ *testing.T }

func (t *tt) f() { t.Log("x") }

type vt struct{ testing.T }

func (t *vt) f() { t.Log("x") }

func TestX(t *testing.T) { (&tt{t}).f() }
`},
	// A directory whose only files are tests of package main
	// (google.golang.org/protobuf's root): go build ./... skips it, and
	// must still skip it instrumented.
	"testonlymain": {
		"go.mod": "module example.com/m\n\ngo 1.22\n",
		"lib.go": "package m\n\nvar N int\n",
		"cmd/x/main_test.go": `package main

import (
	"testing"

	"example.com/m"
)

var hits []int

func TestX(t *testing.T) {
	done := make(chan bool)
	go func() { hits = append(hits, m.N); done <- true }()
	<-done
	hits[0]++
}
`},
}

func TestRewriteBuilds(t *testing.T) {
	for name, files := range buildCases {
		src := t.TempDir()
		for rel, text := range files {
			if err := os.MkdirAll(filepath.Dir(filepath.Join(src, rel)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(src, rel), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for _, m := range []string{"fasttrack", "redcard", "slimstate", "bigfoot"} {
			t.Run(name+"."+m, func(t *testing.T) {
				t.Parallel()
				w := newWorkspace(t, src)
				w.mode = m
				w.instrument(t, true)
				if out, err := w.goCmd(t, true, "vet", "./..."); err != nil {
					t.Fatalf("go vet of the instrumented module: %v\n%s", err, out)
				}
				if out, err := w.goCmd(t, true, "build", "./..."); err != nil {
					t.Fatalf("go build of the instrumented module: %v\n%s", err, out)
				}
			})
		}
	}
}
