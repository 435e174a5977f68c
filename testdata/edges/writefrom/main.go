// A write to a file reads the bytes it sends where go -race reads them,
// in syscall.Write: a goroutine's write of a buffer that main then
// writes to a file, with nothing ordering the two (a file's creation and
// stat order nothing: testdata/edges/fileops), races, and the report
// names the call of Write, as go run -race reports. Writes of constant
// strings and of buffers no other goroutine touches race with nothing.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

func main() {
	dir, err := os.MkdirTemp("", "writefrom")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	out, err := os.Create(filepath.Join(dir, "out"))
	if err != nil {
		panic(err)
	}
	defer out.Close()
	out.WriteString("header\n")
	flag := filepath.Join(dir, "flag")
	buf := make([]byte, 16)
	go func() {
		buf[0] = 'x' // WRITE
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
	n, err := out.Write(buf) // READ
	fmt.Println(n, err)
}
