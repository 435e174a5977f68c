// Command iohttp is race-free through I/O only: a file written by one
// goroutine and read by another, and an HTTP handler's accesses ordered with
// its client's by the request and the response (as Go's race suite expects
// in TestNoRaceIOFile and TestNoRaceIOHttp). Package shadow redeclares
// builtins the runtime helpers use.
package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"example.com/iohttp/shadow"
)

var handlerData int

type counter struct{ n int }

func (c *counter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.n++
	fmt.Fprintf(w, "count %d", c.n)
	c.n++
}

func viaFile(dir string) int {
	x := 0
	name := filepath.Join(dir, "data")
	go func() {
		x = 42
		f, err := os.Create(name + ".tmp")
		if err != nil {
			panic(err)
		}
		defer os.Rename(name+".tmp", name)
		defer f.Close()
		w := bufio.NewWriter(f)
		fmt.Fprintln(w, "done")
		w.Flush()
	}()
	for {
		f, err := os.Open(name)
		if err != nil {
			time.Sleep(time.Millisecond)
			continue
		}
		b, _ := io.ReadAll(f)
		f.Close()
		if strings.TrimSpace(string(b)) == "done" {
			break
		}
	}
	return x
}

func viaHTTP() (int, string) {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		handlerData++
		io.WriteString(w, "test")
		handlerData++
	})
	c := &counter{}
	mux.Handle("/count", c)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer ln.Close()
	go http.Serve(ln, mux)
	var body string
	for _, path := range []string{"/", "/", "/count"} {
		handlerData++
		resp, err := http.Get("http://" + ln.Addr().String() + path)
		if err != nil {
			panic(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		body += string(b) + " "
	}
	handlerData++
	return handlerData + c.n, body
}

func main() {
	dir, err := os.MkdirTemp("", "iohttp")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	fmt.Println("file:", viaFile(dir))
	n, body := viaHTTP()
	fmt.Println("http:", n, body)
	fmt.Println("shadow:", shadow.Run())
}
