package main

import "testing"

// TestSameHookFrames: a function run by sync.Once.Do, sync.OnceFunc,
// sync.OnceValue or sync.OnceValues sees the frames it sees under go
// test -race, in runtime.Callers and in runtime.Stack: no wrapper of
// bigfoot's between it and package sync's frames, whose closures are
// named as go -race's build names them.
func TestSameHookFrames(t *testing.T) {
	if bigfootBin == "" {
		t.Skip("end-to-end test; skipped with -short")
	}
	dir := writeModule(t, map[string]string{
		"go.mod": "module example.com/hookframes\n\ngo 1.22\n",
		"hook_test.go": `package hook

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
)
` + framesFunc + `
func TestFrames(t *testing.T) {
	var once sync.Once
	once.Do(func() { frames("once") })
	sync.OnceFunc(func() { frames("oncefunc") })()
	_ = sync.OnceValue(func() int { frames("oncevalue"); return 1 })()
	_, _ = sync.OnceValues(func() (int, error) { frames("oncevalues"); return 1, nil })()
}
`,
	})
	want, got := testBoth(t, dir, "-count=1", "-v", "-run", "TestFrames", ".")
	if got.code != want.code || framesLines(got.stdout) != framesLines(want.stdout) {
		t.Errorf("bigfoot test differs from go test -race\nbigfoot:\n%v\ngo test -race:\n%v", got, want)
	}
}
