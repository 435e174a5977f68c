package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// elemHalvesSrc writes and reads the two halves of one 8-byte slice from
// two goroutines, with no synchronization between them: goroutine 0
// b[0..3], goroutine 1 b[4..7], each through element groups (one check
// of four elements, which share one 8-byte granule with the other
// goroutine's four), directly on b and through a subslice. It is
// race-free.
const elemHalvesSrc = `package main

import (
	"fmt"
	"sync"
)

func putLE32(b []byte, v uint32) {
	_ = b[3]
	b[0] = byte(v)
	b[1] = byte(v >> 8)
	b[2] = byte(v >> 16)
	b[3] = byte(v >> 24)
}

func le32(b []byte) uint32 {
	_ = b[3]
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

func putHi(b []byte, v uint32) {
	_ = b[7]
	b[4] = byte(v)
	b[5] = byte(v >> 8)
	b[6] = byte(v >> 16)
	b[7] = byte(v >> 24)
}

func hi(b []byte) uint32 {
	_ = b[7]
	return uint32(b[4]) | uint32(b[5])<<8 | uint32(b[6])<<16 | uint32(b[7])<<24
}

func main() {
	b := make([]byte, 8)
	var sums [2]uint32
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := range 2000 {
			putLE32(b, uint32(i))
			sums[0] += le32(b)
		}
	}()
	go func() {
		defer wg.Done()
		for i := range 2000 {
			if i%2 == 0 {
				putHi(b, uint32(3*i))
				sums[1] += hi(b)
			} else {
				putLE32(b[4:], uint32(3*i))
				sums[1] += le32(b[4:])
			}
		}
	}()
	wg.Wait()
	fmt.Println(sums, b)
}
`

// TestElemGroupNoFalseRace: two goroutines that write and read
// neighbouring elements of one slice through element groups (one check
// of b[0..3], one of b[4..7], in one granule) race with neither go -race
// nor bigfoot in any mode, and print what the plain program prints.
func TestElemGroupNoFalseRace(t *testing.T) {
	if bigfootBin == "" {
		t.Skip("end-to-end test; skipped with -short")
	}
	dir := writeModule(t, map[string]string{
		"go.mod":  "module example.com/halves\n\ngo 1.22\n",
		"main.go": elemHalvesSrc,
	})
	plain := run(t, dir, nil, "go", "run", ".")
	if plain.code != 0 {
		t.Fatalf("go run: %v", plain)
	}
	for _, tool := range append([]string{"race"}, modes...) {
		exe := filepath.Join(dir, tool)
		buildBinary(t, dir, tool, exe)
		for i := range 5 {
			r := run(t, dir, []string{"GORACE=atexit_sleep_ms=0"}, exe)
			if r.code != 0 || strings.Contains(r.stderr, raceReport) || r.stdout != plain.stdout {
				t.Fatalf("%s, run %d: want exit status 0, no race and %q; got %v", tool, i+1, plain.stdout, r)
			}
		}
	}
}
