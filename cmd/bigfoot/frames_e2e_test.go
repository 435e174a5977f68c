package main

import (
	"regexp"
	"testing"
)

// traceNoise matches what a trace prints that depends on the code rather
// than on its frames: addresses, offsets, goroutine numbers and whether a
// call was inlined ("(...)").
var traceNoise = regexp.MustCompile(`( ?\+0x[0-9a-f]+|0x[0-9a-f]+\??|goroutine \d+|\(\.\.\.\)|\(\))`)

// TestSameGoroutineFrames: a goroutine an instrumented go statement starts
// has the user's function as its entry, as under go -race: no frame of
// bigfoot's in what runtime.Callers, runtime.Stack and pprof's goroutine
// profile show, whatever the go statement calls (a function with
// arguments, a function literal, a method value, an interface method, a
// variadic or generic function, a function value; the profile's goroutine
// is blocked in a select, whose hooks are made in the user's function,
// unlike a receive's), and a panic's trace
// names the goroutine's function and "created by" its go statement. The
// program is built with go build -race and bigfoot build and their runs
// compared.
func TestSameGoroutineFrames(t *testing.T) {
	if bigfootBin == "" {
		t.Skip("end-to-end test; skipped with -short")
	}
	dir := writeModule(t, map[string]string{
		"go.mod": "module example.com/frames\n\ngo 1.22\n",
		"main.go": `package main

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"time"
)

` + framesFunc + `
type T struct{}

func (T) M(done chan bool) { frames("method"); done <- true }

func plain(done chan bool, tag string)              { frames(tag); done <- true }
func variadic(done chan bool, xs ...int)            { frames("variadic"); done <- true }
func generic[E any](done chan bool, e E)            { frames("generic"); done <- true }
func nested(done chan bool)                         { go plain(done, "nested") }
func parked(ready, release chan bool) {
	ready <- true
	select {
	case <-release:
	case <-ready:
	}
}
func boom(n int)                                    { panic(fmt.Sprint("boom ", n)) }

func main() {
	if len(os.Args) > 1 {
		done := make(chan bool)
		go boom(1)
		<-done
	}
	done := make(chan bool)
	go plain(done, "plain")
	<-done
	go func() { frames("literal"); done <- true }()
	<-done
	var t T
	go t.M(done)
	<-done
	var i interface{ M(chan bool) } = t
	go i.M(done)
	<-done
	go variadic(done, 1, 2)
	<-done
	go generic(done, "x")
	<-done
	f := plain
	go f(done, "value")
	<-done
	go nested(done)
	<-done
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		frames("waitgroup")
	}()
	wg.Wait()

	// The goroutine profile's stack of a goroutine blocked in a select
	// (the profile hides the runtime's frames): taken again until the
	// goroutine is in the select.
	ready, release := make(chan bool), make(chan bool)
	go parked(ready, release)
	<-ready
	var stack string
	for try := 0; try < 1000 && !strings.HasPrefix(stack, "main.parked"); try++ {
		time.Sleep(time.Millisecond)
		var prof bytes.Buffer
		pprof.Lookup("goroutine").WriteTo(&prof, 1)
		for _, block := range strings.Split(prof.String(), "\n\n") {
			if !strings.Contains(block, "main.parked") {
				continue
			}
			var names []string
			for _, l := range strings.Split(block, "\n") {
				if f := strings.Fields(l); len(f) >= 3 && f[0] == "#" {
					names = append(names, f[2][:strings.LastIndex(f[2], "+")])
				}
			}
			stack = strings.Join(names, " ")
		}
	}
	fmt.Println("profile:", stack)
	close(release)
}
`,
	})
	goBin, bfBin := buildBoth(t, dir, ".")
	want, got := run(t, dir, nil, goBin), run(t, dir, nil, bfBin)
	if got != want {
		t.Errorf("the bigfoot build's frames differ from the go -race build's\nbigfoot:\n%v\ngo -race:\n%v", got, want)
	}
	want, got = run(t, dir, nil, goBin, "panic"), run(t, dir, nil, bfBin, "panic")
	want.stderr, got.stderr = traceNoise.ReplaceAllString(want.stderr, ""), traceNoise.ReplaceAllString(got.stderr, "")
	if got != want {
		t.Errorf("the bigfoot build's panic differs from the go -race build's\nbigfoot:\n%v\ngo -race:\n%v", got, want)
	}
}

// TestSameSubtestFrames: a test, a subtest, a subtest's goroutine and a
// sub-benchmark see the frames they see under go test -race: the subtest's
// function is its goroutine's entry, under testing.tRunner, with no
// wrapper of bigfoot's between them.
func TestSameSubtestFrames(t *testing.T) {
	if bigfootBin == "" {
		t.Skip("end-to-end test; skipped with -short")
	}
	dir := writeModule(t, map[string]string{
		"go.mod": "module example.com/subframes\n\ngo 1.22\n",
		"sub_test.go": `package sub

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

` + framesFunc + `
func TestFrames(t *testing.T) {
	frames("test")
	t.Run("sub", func(t *testing.T) {
		frames("subtest")
		done := make(chan bool)
		go func() {
			frames("goroutine")
			done <- true
		}()
		<-done
	})
	t.Run("parallel", func(t *testing.T) {
		t.Parallel()
		frames("parallel")
	})
}

func BenchmarkFrames(b *testing.B) {
	b.Run("sub", func(b *testing.B) {
		if b.N == 1 {
			frames("sub-benchmark")
		}
	})
}
`,
	})
	args := []string{"-count=1", "-run", "TestFrames", "-bench", "Frames", "-benchtime", "1x", "."}
	want, got := testBoth(t, dir, args...)
	if got.code != want.code || framesLines(got.stdout) != framesLines(want.stdout) {
		t.Errorf("bigfoot test differs from go test -race\nbigfoot:\n%v\ngo test -race:\n%v", got, want)
	}
}
