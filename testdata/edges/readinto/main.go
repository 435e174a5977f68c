// Reads into buffers are checked where go -race checks them: a Read
// method written in Go checks its own writes, and syscall.Read checks
// what the kernel wrote. So two goroutines reading into one buffer
// through math/rand.Read, or through one io.Pipe, do not race: the
// writes are made under the source's or the pipe's lock, which orders
// them (a check of the buffer after Read returned, after the unlock,
// raced with the next reader). A file's read into a buffer another
// goroutine read, with nothing ordering the two (a file's creation and
// stat order nothing: testdata/edges/fileops), races, and the report
// names the call of Read, as go run -race reports.
package main

import (
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"sync"
)

func main() {
	b := make([]byte, 8)
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rand.Read(b[:4])
		}()
	}
	wg.Wait()

	pr, pw := io.Pipe()
	go func() {
		for i := range 2 {
			pw.Write([]byte{byte(i)})
		}
	}()
	one := make([]byte, 1)
	wg.Add(2)
	for range 2 {
		go func() {
			defer wg.Done()
			pr.Read(one)
		}()
	}
	wg.Wait()

	dir, err := os.MkdirTemp("", "readinto")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	name, flag := filepath.Join(dir, "data"), filepath.Join(dir, "flag")
	if err := os.WriteFile(name, []byte("hello"), 0o644); err != nil {
		panic(err)
	}
	buf := make([]byte, 16)
	go func() {
		_ = buf[0] // READ
		f, err := os.Create(flag)
		if err != nil {
			panic(err)
		}
		f.Close()
	}()
	for {
		if _, err := os.Stat(flag); err == nil {
			break
		}
		runtime.Gosched()
	}
	f, err := os.Open(name)
	if err != nil {
		panic(err)
	}
	n, _ := f.Read(buf) // WRITE
	f.Close()
	fmt.Println(n, one[0] < 2)
}
