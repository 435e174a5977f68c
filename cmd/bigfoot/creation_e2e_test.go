package main

import (
	"regexp"
	"strings"
	"testing"
)

// createdAt matches a report's "created at" block: its header and frames.
var createdAt = regexp.MustCompile(`(?m)^Goroutine \d+ \((running|finished)\) created at:\n(  .*\n      .*\n)+`)

// goroutineNumber matches a goroutine's number in a report's header.
var goroutineNumber = regexp.MustCompile(`Goroutine \d+`)

// TestSameCreationStacks: a race report's "created at" shows the
// creating goroutine's stack at the go statement, as go -race's does,
// not the go statement alone: a goroutine created through two helpers,
// from main and from a function literal, races with one that has ended
// (early, as in TestSameStacks: no synchronization either detector
// sees), so the report is the same in every run.
func TestSameCreationStacks(t *testing.T) {
	if bigfootBin == "" {
		t.Skip("end-to-end test; skipped with -short")
	}
	dir := writeModule(t, map[string]string{
		"go.mod": "module example.com/creation\n\ngo 1.22\n",
		"main.go": `package main

import "runtime"

var x int

func spawn(f func()) { go f() }

func helper(f func()) { spawn(f) }

// early runs f in a goroutine and returns once it has ended.
func early(f func()) {
	helper(f)
	for runtime.NumGoroutine() > 1 {
		runtime.Gosched()
	}
}

func main() {
	early(func() { x = 1 })
	done := make(chan bool)
	func() {
		helper(func() {
			x = 2
			done <- true
		})
	}()
	<-done
}
`,
	})
	goBin, bfBin := buildBoth(t, dir, ".")
	blocks := func(out string) string {
		s := strings.Join(createdAt.FindAllString(out, -1), "\n")
		return traceNoise.ReplaceAllString(goroutineNumber.ReplaceAllString(s, "Goroutine"), "")
	}
	want, got := run(t, dir, nil, goBin), run(t, dir, nil, bfBin)
	if blocks(want.stderr) == "" {
		t.Fatalf("go -race reported no goroutine's creation:\n%v", want)
	}
	if blocks(got.stderr) != blocks(want.stderr) {
		t.Errorf("the bigfoot build's creation stacks differ from the go -race build's\nbigfoot:\n%s\ngo -race:\n%s", blocks(got.stderr), blocks(want.stderr))
	}
}
