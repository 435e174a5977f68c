package main

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// namedResultsSrc returns through named results that a goroutine the
// function starts reads (the write of the return statement races with
// it), that its result expression orders after that goroutine's write
// (no race: the check must follow the results' evaluation), that a
// deferred call changes after the return stored them, that a return
// swaps, that a declaration hides at the return, and a return of a
// result itself, which stores nothing (no race with a goroutine reading
// it: Go's TestNoRaceReturn).
const namedResultsSrc = `package main

import (
	"fmt"
	"os"
	"sync"
	"time"
)

var wg sync.WaitGroup

func racy() (x int) {
	wg.Add(1)
	go func() {
		defer wg.Done()
		fmt.Println("read", x)
	}()
	time.Sleep(20 * time.Millisecond)
	return 1 // racy write
}

func recv(c chan int) int { return <-c }

func ordered() (x int) {
	done := make(chan int)
	go func() {
		x = 5
		done <- 1
	}()
	return recv(done) + 1
}

func self(c chan int) (x, y int) {
	x = 42
	go func() {
		_ = x
		c <- 1
	}()
	return x, 10 // stores y alone
}

func deferred() (x, y int) {
	defer func() { x, y = x*10, y*10 }()
	return 1, 2
}

func swapped() (x, y int) {
	x, y = 1, 2
	go func() { _ = 0 }()
	f := func() { x++ }
	f()
	return y, x
}

func hidden() (x int) {
	f := func() { x++ }
	f()
	{
		x := 40
		return x
	}
}

func main() {
	switch os.Args[1] {
	case "racy":
		fmt.Println(racy())
		wg.Wait()
	case "ordered":
		fmt.Println(ordered())
	case "self":
		c := make(chan int)
		fmt.Println(self(c))
		<-c
	default:
		fmt.Println(deferred())
		fmt.Println(swapped())
		fmt.Println(hidden())
	}
}
`

// TestNamedResultWrites checks that the writes a return statement makes
// to shared named results are checked, after its results are evaluated
// and before the deferred calls run, as go -race checks them: the same
// race, at the same lines, in each mode of modes, and the same output.
func TestNamedResultWrites(t *testing.T) {
	dir := userModule(t, namedResultsSrc)
	goBin := t.TempDir() + "/gorace"
	if r := run(t, dir, nil, "go", "build", "-race", "-o", goBin, "."); r.code != 0 {
		t.Fatalf("go build -race: %v", r)
	}
	for _, m := range modes {
		bin := t.TempDir() + "/bf"
		if r := run(t, dir, nil, bigfootBin, "build", "-mode="+m, "-o", bin, "."); r.code != 0 {
			t.Fatalf("bigfoot build -mode=%s: %v", m, r)
		}
		for _, arg := range []string{"racy", "ordered", "self", "values"} {
			want, got := run(t, dir, nil, goBin, arg), run(t, dir, nil, bin, arg)
			if got.stdout != want.stdout || got.code != want.code {
				t.Errorf("-mode=%s %s: got\n%v\nwant (go -race)\n%v", m, arg, got, want)
			}
			if g, w := racingLines(got.stderr), racingLines(want.stderr); !slices.Equal(g, w) {
				t.Errorf("-mode=%s %s: races at %q, go -race at %q\n%s", m, arg, g, w, got.stderr)
			}
		}
	}
}

var mainLine = regexp.MustCompile(`main\.go:\d+`)

// racingLines returns, for each race report in stderr, the line of the
// current access and of the previous one.
func racingLines(stderr string) []string {
	var out []string
	for _, rep := range strings.Split(stderr, raceReport)[1:] {
		cur, prev, _ := strings.Cut(rep, "Previous ")
		out = append(out, mainLine.FindString(cur)+" "+mainLine.FindString(prev))
	}
	return out
}
