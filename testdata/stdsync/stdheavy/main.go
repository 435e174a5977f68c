// Command stdheavy is a standard-library-heavy program for measuring the
// cost of instrumenting the standard library (docs/results.md): four
// client goroutines post JSON to an httptest server, whose handler
// answers gzip-compressed JSON; then an io.Pipe, a runtime/trace session.
package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime/trace"
	"strings"
	"sync"
	"time"
)

type rec struct {
	Name string
	N    int
	Tags []string
}

var n = flag.Int("n", 200, "requests per client goroutine")

func main() {
	flag.Parse()
	var hits int
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var v rec
		json.NewDecoder(r.Body).Decode(&v)
		mu.Lock()
		hits++
		mu.Unlock()
		gz := gzip.NewWriter(w)
		json.NewEncoder(gz).Encode(v)
		gz.Close()
	}))
	defer srv.Close()
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for j := 0; j < *n; j++ {
				b, _ := json.Marshal(rec{Name: fmt.Sprint("n", i), N: j, Tags: []string{"a", "b"}})
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				req, _ := http.NewRequestWithContext(ctx, "POST", srv.URL, bytes.NewReader(b))
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					panic(err)
				}
				zr, _ := gzip.NewReader(resp.Body)
				out, _ := io.ReadAll(zr)
				resp.Body.Close()
				cancel()
				h := sha256.Sum256(out)
				_ = h
			}
		}(i)
	}
	wg.Wait()
	pr, pw := io.Pipe()
	go func() { fmt.Fprint(pw, strings.Repeat("x", 1000)); pw.Close() }()
	n, _ := io.Copy(io.Discard, pr)
	trace.Start(io.Discard)
	trace.Stop()
	fmt.Fprintln(os.Stdout, "hits", hits, n)
}
