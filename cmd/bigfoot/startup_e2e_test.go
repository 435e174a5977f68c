package main

import "testing"

// TestSameStartupGoroutines: a TestMain that counts goroutines, as
// klauspost/compress's zstd does before and after m.Run, sees the same
// goroutines under both tools: only its own at the start, before any
// test ran (the detector finds its offsets in runtime.g without starting
// goroutines where the runtime takes its hooks), and again once the
// tests' goroutines ended.
func TestSameStartupGoroutines(t *testing.T) {
	if bigfootBin == "" {
		t.Skip("end-to-end test; skipped with -short")
	}
	dir := writeModule(t, map[string]string{
		"go.mod": "module example.com/startup\n\ngo 1.22\n",
		"startup_test.go": `package startup

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// goroutines prints the number of goroutines and the function each one
// runs, as runtime.Stack lists them.
func goroutines(when string) {
	buf := make([]byte, 1<<16)
	var fs []string
	for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
		lines := strings.Split(g, "\n")
		if len(lines) > 1 {
			fs = append(fs, lines[1][:strings.LastIndex(lines[1], "(")])
		}
	}
	fmt.Printf("%s: %d goroutines: %s\n", when, runtime.NumGoroutine(), strings.Join(fs, " "))
}

func TestMain(m *testing.M) {
	goroutines("start")
	ec := m.Run()
	for i := 0; i < 1000 && runtime.NumGoroutine() > 1; i++ {
		time.Sleep(time.Millisecond)
	}
	goroutines("end")
	os.Exit(ec)
}

func TestWorkers(t *testing.T) {
	done := make(chan bool)
	for i := 0; i < 4; i++ {
		go func() { done <- true }()
	}
	for i := 0; i < 4; i++ {
		<-done
	}
}
`,
	})
	want, got := testBoth(t, dir, "-count=1", "-v", ".")
	if got.code != want.code || framesLines(got.stdout) != framesLines(want.stdout) {
		t.Errorf("bigfoot test differs from go test -race\nbigfoot:\n%v\ngo test -race:\n%v", got, want)
	}
}
