package instrument

import (
	"fmt"
	"go/types"
	"strings"
)

// A helper is a group of declarations of the file added to each
// instrumented package: small generic functions the emitted code calls
// where an in-place expression needs more than one runtime call (channel
// operations), must keep Go's assignment rules (append, send), or needs a
// closure (method values of synchronization methods). They live in the
// user's package, so that the runtime's API stays the flat contract of
// docs/api.md; a helper that would use a predeclared identifier the
// package redeclares is left out, and the operations it serves are not
// instrumented.
type helper struct {
	name string   // what emitted code asks for (fileRewriter.helper)
	uses []string // predeclared identifiers the source relies on
	src  string
}

var helpers = []helper{
	{
		name: "recv",
		uses: []string{"any", "uint32", "cap"},
		src: `func __bfRecv[T any](g *__bf.G, c <-chan T) T {
	v := <-__bf.RecvPre(g, c, cap(c))
	return __bf.RecvPost(g, c, cap(c), v)
}

func __bfRecv2[T any](g *__bf.G, c <-chan T) (T, bool) {
	v, ok := <-__bf.RecvPre(g, c, cap(c))
	__bf.RecvPostOK(g, c, cap(c))
	return v, ok
}
`,
	},
	{
		name: "send",
		uses: []string{"any", "uint32", "cap"},
		src: `// __bfSender wraps a channel so that the sent value is assigned to the
// channel"s element type, as in a send statement (inferring the type from
// the channel and the value together could fail).
type __bfSender[T any] struct{ c chan<- T }

func __bfChan[T any](c chan<- T) __bfSender[T] { return __bfSender[T]{c} }

func (s __bfSender[T]) send(g *__bf.G, v T) {
	c := s.c
	c <- __bf.Send(g, c, cap(c), v)
	__bf.SendPost(g, c, cap(c))
}
`,
	},
	{
		name: "copy",
		uses: []string{"any", "uint32", "copy", "len", "int"},
		src: `func __bfCopy[E any](g *__bf.G, site uint32, dst, src []E) int {
	if n := __bfMin(len(dst), len(src)); n > 0 {
		size := __bfunsafe.Sizeof(dst[0])
		g.WriteRange(__bfunsafe.Pointer(&dst[0]), size, 0, n, 1, site)
		g.ReadRange(__bfunsafe.Pointer(&src[0]), size, 0, n, 1, site)
	}
	return copy(dst, src)
}
`,
	},
	{
		name: "copystr",
		uses: []string{"any", "uint32", "copy", "len", "int"},
		src: `func __bfCopyString[B ~[]byte, T ~string](g *__bf.G, site uint32, dst B, src T) int {
	if n := __bfMin(len(dst), len(src)); n > 0 {
		g.WriteRange(__bfunsafe.Pointer(&dst[0]), 1, 0, n, 1, site)
	}
	return copy(dst, src)
}
`,
	},
	{
		name: "append",
		uses: []string{"any", "uint32", "append", "len", "cap"},
		src: `// __bfAppender holds the slice of an append(s, xs...) so that the elements
// are assigned to the slice"s element type, as append does.
type __bfAppender[S ~[]E, E any] struct {
	g    *__bf.G
	site uint32
	s    S
}

func __bfAppend[S ~[]E, E any](g *__bf.G, site uint32, s S) __bfAppender[S, E] {
	return __bfAppender[S, E]{g, site, s}
}

func (a __bfAppender[S, E]) add(xs ...E) S {
	g, site, s := a.g, a.site, a.s
	if len(s)+len(xs) > cap(s) && len(s) > 0 {
		g.ReadRange(__bfunsafe.Pointer(&s[0]), __bfunsafe.Sizeof(s[0]), 0, len(s), 1, site)
	}
	r := append(s, xs...)
	if len(xs) > 0 {
		g.WriteRange(__bfunsafe.Pointer(&r[0]), __bfunsafe.Sizeof(r[0]), len(s), len(r), 1, site)
	}
	return r
}

func (a __bfAppender[S, E]) addSlice(xs ...E) S {
	if len(xs) > 0 {
		a.g.ReadRange(__bfunsafe.Pointer(&xs[0]), __bfunsafe.Sizeof(xs[0]), 0, len(xs), 1, a.site)
	}
	return a.add(xs...)
}
`,
	},
	{
		name: "appendstr",
		uses: []string{"any", "uint32", "append", "len", "cap", "byte", "string"},
		src: `func __bfAppendString[S ~[]byte, T ~string](g *__bf.G, site uint32, s S, str T) S {
	if len(s)+len(str) > cap(s) && len(s) > 0 {
		g.ReadRange(__bfunsafe.Pointer(&s[0]), 1, 0, len(s), 1, site)
	}
	r := append(s, str...)
	if len(str) > 0 {
		g.WriteRange(__bfunsafe.Pointer(&r[0]), 1, len(s), len(r), 1, site)
	}
	return r
}
`,
	},
	{
		name: "readall",
		uses: []string{"any", "uint32", "len"},
		src: `func __bfReadAll[S ~[]E, E any](g *__bf.G, site uint32, s S) S {
	if len(s) > 0 {
		g.ReadRange(__bfunsafe.Pointer(&s[0]), __bfunsafe.Sizeof(s[0]), 0, len(s), 1, site)
	}
	return s
}
`,
	},
	{
		name: "writeall",
		uses: []string{"any", "uint32", "len"},
		src: `func __bfWriteAll[S ~[]E, E any](g *__bf.G, site uint32, s S) S {
	if len(s) > 0 {
		g.WriteRange(__bfunsafe.Pointer(&s[0]), __bfunsafe.Sizeof(s[0]), 0, len(s), 1, site)
	}
	return s
}
`,
	},
	{
		name: "async",
		uses: []string{"any", "uint32"},
		src: `// __bfAsync wraps a callback that the standard library runs on a goroutine
// of its own (time.AfterFunc): what happened before the registration
// happens before the callback.
func __bfAsync(g *__bf.G, f func()) func() {
	mu := new(__bfsync.Mutex)
	__bf.Lock(g, mu)
	__bf.Unlock(g, mu)
	return func() {
		g := __bf.Cur()
		__bf.Lock(g, mu)
		__bf.Unlock(g, mu)
		f()
	}
}
`,
	},
	{
		name: "mv",
		uses: []string{"any", "uint32"},
		src: `// Method values of synchronization methods: __bfMV(hook).bind(recv) is a
// func that runs the hook on the goroutine that calls it. The hook fixes
// the receiver type; the receiver is assigned to it.
type __bfMVf[P any] struct{ f func(*__bf.G, P) }

func __bfMV[P any](f func(*__bf.G, P)) __bfMVf[P] { return __bfMVf[P]{f} }

func (m __bfMVf[P]) bind(p P) func() {
	f := m.f
	return func() { f(__bf.Cur(), p) }
}

type __bfMV1f[P, A any] struct{ f func(*__bf.G, P, A) }

func __bfMV1[P, A any](f func(*__bf.G, P, A)) __bfMV1f[P, A] { return __bfMV1f[P, A]{f} }

func (m __bfMV1f[P, A]) bind(p P) func(A) {
	f := m.f
	return func(a A) { f(__bf.Cur(), p, a) }
}

type __bfMVRf[P, R any] struct{ f func(*__bf.G, P) R }

func __bfMVR[P, R any](f func(*__bf.G, P) R) __bfMVRf[P, R] { return __bfMVRf[P, R]{f} }

func (m __bfMVRf[P, R]) bind(p P) func() R {
	f := m.f
	return func() R { return f(__bf.Cur(), p) }
}

type __bfMV1Rf[P, A, R any] struct{ f func(*__bf.G, P, A) R }

func __bfMV1R[P, A, R any](f func(*__bf.G, P, A) R) __bfMV1Rf[P, A, R] {
	return __bfMV1Rf[P, A, R]{f}
}

func (m __bfMV1Rf[P, A, R]) bind(p P) func(A) R {
	f := m.f
	return func(a A) R { return f(__bf.Cur(), p, a) }
}
`,
	},
	{
		name: "mrun",
		uses: []string{"any", "int", "bool", "string", "true"},
		src: `// __bfMRun is m.Run() in a TestMain: the tests run on goroutines the
// testing package starts, which the runtime orders after what happened
// before through its handoff clock, as for t.Run.
func __bfMRun(g *__bf.G, m interface{ Run() int }) (code int) {
	run := func(_ string, f func(struct{})) bool { f(struct{}{}); return true }
	__bf.Run(g, run, "", func(struct{}) { code = m.Run() })
	return code
}
`,
	},
	{
		name: "group",
		uses: []string{"any", "error"},
		src: `// __bfGroupFn wraps a function given to errgroup.Group.Go, whose
// goroutine is started by uninstrumented code: the call of Go happens
// before the function, and the function before Wait returns
// (__bfGroupWait).
func __bfGroupFn[T any](key *T, f func() error) func() error {
	start := new(byte)
	__bf.RaceRelease(__bfunsafe.Pointer(start))
	return func() error {
		__bf.RaceAcquire(__bfunsafe.Pointer(start))
		defer __bf.RaceReleaseMerge(__bfunsafe.Pointer(key))
		return f()
	}
}

func __bfGroupWait[T any](key *T, err error) error {
	__bf.RaceAcquire(__bfunsafe.Pointer(key))
	return err
}
`,
	},
	{
		name: "timer",
		uses: []string{"any"},
		src: `// Timers and tickers send on their channel from the runtime: creating or
// resetting one happens before the receives it causes.
func __bfTimerRelease[T any](t *T) *T {
	__bf.RaceReleaseMerge(__bfunsafe.Pointer(t))
	return t
}

func __bfTimerAcquire[T, V any](t *T, v V) V {
	__bf.RaceAcquire(__bfunsafe.Pointer(t))
	return v
}
`,
	},
	{
		name: "min",
		uses: []string{"int"},
		src: `func __bfMin(a, b int) int {
	if a < b {
		return a
	}
	return b
}
`,
	},
}

// availableHelpers returns the names of the helpers pkg can declare: those
// whose predeclared identifiers the package does not redeclare.
func availableHelpers(pkg *types.Package) map[string]bool {
	ok := map[string]bool{}
	for _, h := range helpers {
		ok[h.name] = true
		for _, u := range h.uses {
			if pkg.Scope().Lookup(u) != nil {
				ok[h.name] = false
			}
		}
	}
	return ok
}

// helperFile is the file added to an instrumented package.
func helperFile(pkgName string, avail map[string]bool) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "// Code generated by bigfoot. DO NOT EDIT.\n\n//go:build go1.21\n\npackage %s\n\nimport (\n", pkgName)
	if pkgName == "main" {
		b.WriteString("\t__bftesting \"testing\"\n")
	}
	fmt.Fprintf(&b, "\t__bfsync \"sync\"\n\t__bfunsafe \"unsafe\"\n\n\t__bf %q\n)\n\n", RuntimePath)
	b.WriteString("var _ __bfsync.Mutex\nvar _ __bfunsafe.Pointer\n")
	for _, h := range helpers {
		if avail[h.name] {
			b.WriteString("\n" + h.src)
		}
	}
	if pkgName == "main" {
		// main.main is renamed and wrapped: a test that calls main()
		// must not exit the test binary.
		b.WriteString("\nfunc __bfTesting() bool { return __bftesting.Testing() }\n")
	}
	return []byte(b.String())
}
