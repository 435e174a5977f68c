// Reads into buffers are checked where go -race checks them, and not
// where the reader orders them. Two goroutines reading into one buffer
// through math/rand.Read, one io.Pipe, one *os.File (internal/poll's
// fdMutex takes turns) or one reader whose Read locks (an instrumented
// one, called through an interface) do not race: with the standard
// library instrumented, the writes are checked inside, under the
// reader's lock; without it (-deps=main, -deps=modules), the check after
// the call is ordered by the reader's sync object (docs/runtime.md, "I/O"),
// and an instrumented Read is not checked twice. A file's read into a
// buffer another goroutine read, with nothing ordering the two, races,
// and the report names the call of Read, as go run -race reports. Here
// the flag that main waits for is made and seen by package syscall's
// Mkdir and Stat, which order nothing under go -race, nor in any scope of
// bigfoot (-deps=main orders os.Create and os.Stat at their call sites:
// docs/instrument.md, "I/O").
package main

import (
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
)

// locked is a reader whose Read writes p under its lock.
type locked struct {
	mu sync.Mutex
	n  byte
}

func (l *locked) Read(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.n++
	for i := range p {
		p[i] = l.n
	}
	return len(p), nil
}

// inTurn runs read in two goroutines, n times each, and waits for them.
func inTurn(n int, read func()) {
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range n {
				read()
			}
		}()
	}
	wg.Wait()
}

func main() {
	b := make([]byte, 8)
	inTurn(1, func() { rand.Read(b[:4]) })

	pr, pw := io.Pipe()
	go func() {
		for i := range 2 {
			pw.Write([]byte{byte(i)})
		}
	}()
	one := make([]byte, 1)
	inTurn(1, func() { pr.Read(one) })

	var l io.Reader = &locked{}
	inTurn(50, func() { l.Read(b) })

	// A value whose Read and ReadAt take a pointer: read by its address.
	sr := *strings.NewReader("hello")
	sr.Read(b[:2])
	sr.ReadAt(b[2:4], 1)

	dir, err := os.MkdirTemp("", "readinto")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	name, flag := filepath.Join(dir, "data"), filepath.Join(dir, "flag")
	if err := os.WriteFile(name, make([]byte, 4096), 0o644); err != nil {
		panic(err)
	}
	f, err := os.Open(name)
	if err != nil {
		panic(err)
	}
	inTurn(50, func() { f.Read(b) })
	f.Close()

	if err := os.WriteFile(name, []byte("hello"), 0o644); err != nil {
		panic(err)
	}
	buf := make([]byte, 16)
	go func() {
		_ = buf[0] // READ
		if err := syscall.Mkdir(flag, 0o755); err != nil {
			panic(err)
		}
	}()
	for {
		var st syscall.Stat_t
		if syscall.Stat(flag, &st) == nil {
			break
		}
		runtime.Gosched()
	}
	f, err = os.Open(name)
	if err != nil {
		panic(err)
	}
	n, _ := f.Read(buf) // WRITE
	f.Close()
	fmt.Println(n, one[0] < 2)
}
