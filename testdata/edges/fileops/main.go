// File operations order what go -race's package syscall orders and no
// more: a read of a pipe or file that succeeded is ordered after every
// earlier write of one, so y, written before the goroutine writes the
// pipe and read after main reads it, does not race. Creating, closing
// and statting a file order nothing, so x, written before the goroutine
// creates the file that main waits to see, races with main's read, as
// go run -race reports.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

var x, y int

func main() {
	dir, err := os.MkdirTemp("", "fileops")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	name := filepath.Join(dir, "ready")
	r, w, err := os.Pipe()
	if err != nil {
		panic(err)
	}
	go func() {
		y = 1
		w.Write([]byte{1})
		x = 1 // WRITE
		f, err := os.Create(name)
		if err != nil {
			panic(err)
		}
		f.Close()
	}()
	buf := make([]byte, 1)
	if _, err := r.Read(buf); err != nil {
		panic(err)
	}
	sum := y
	for {
		if _, err := os.Stat(name); err == nil {
			break
		}
		runtime.Gosched()
	}
	sum += x // READ
	fmt.Println(sum)
}
