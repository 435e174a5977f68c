// Package stdsync holds programs whose races and synchronization are inside
// the standard library: its goroutines, channels, atomics and locks (net/http,
// context, io.Pipe, runtime/trace), std code on goroutines started by the
// runtime (time.AfterFunc), math/rand's source state, reflection
// (encoding/json) and hash/crc32's atomics. Go's race detector reports every TestRace* test and no
// TestNoRace* test; bigfoot must agree (cmd/bigfoot TestStdSync).
package stdsync

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"flag"
	"hash/crc32"
	"io"
	"math/rand"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime/trace"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestRaceRandInt63(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	done := make(chan bool)
	go func() { r.Int63(); done <- true }()
	r.Int63()
	<-done
}

func TestNoRaceRandInt63(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	done := make(chan bool)
	go func() { r.Int63(); done <- true }()
	<-done
	r.Int63()
}

// TestNoRaceHTTPHandler: the handler's write happens before the client
// reads the response (the socket orders them, as internal/poll's ioSync
// does under go -race), and the server's connection goroutines hand the
// request between them through net/http's own channels and locks.
func TestNoRaceHTTPHandler(t *testing.T) {
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.URL.Path)
		io.WriteString(w, "ok")
	}))
	defer srv.Close()
	for _, p := range []string{"/a", "/b", "/c"} {
		resp, err := http.Get(srv.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		io.ReadAll(resp.Body)
		resp.Body.Close()
		if len(seen) == 0 {
			t.Fatal("no request seen")
		}
	}
}

// TestNoRaceHTTPClients: goroutines share the client's idle connections,
// whose bufio.Reader passes from one to the next through the transport's
// channels and locks (at a302844, with net/http uninstrumented, the
// reader's reuse was reported as a race between the two goroutines).
func TestNoRaceHTTPClients(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		gz := gzip.NewWriter(w)
		io.WriteString(gz, strings.Repeat(r.URL.Path, 1000))
		gz.Close()
	}))
	defer srv.Close()
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 100; j++ {
				resp, err := http.Post(srv.URL+"/x", "text/plain", strings.NewReader("body"))
				if err != nil {
					t.Error(err)
					return
				}
				zr, err := gzip.NewReader(resp.Body)
				if err == nil {
					io.ReadAll(zr)
				}
				resp.Body.Close()
			}
		}()
	}
	wg.Wait()
}

// TestNoRaceHTTPDialFunc is the shape of gorilla/websocket's TestHost: the
// client's dial function, set up by the test, runs on the goroutine
// net/http starts to dial (at a302844, with net/http uninstrumented, its
// accesses were reported as racing with the test's in every run).
func TestNoRaceHTTPDialFunc(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "ok")
	}))
	defer srv.Close()
	for i := 0; i < 3; i++ {
		var gotAddr string
		target := srv.Listener.Addr().String()
		tr := &http.Transport{
			DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				gotAddr = addr
				return net.Dial(network, target)
			},
		}
		resp, err := (&http.Client{Transport: tr}).Get("http://example.com/")
		if err != nil {
			t.Fatal(err)
		}
		io.ReadAll(resp.Body)
		resp.Body.Close()
		tr.CloseIdleConnections()
		if gotAddr != "example.com:80" {
			t.Errorf("dialed %q", gotAddr)
		}
	}
}

// TestNoRaceHTTPUpgrade is a websocket handshake's shape: the handler
// hijacks the connection and talks on it from a goroutine of its own; the
// client dials (net/http's dial goroutine), upgrades and reads what the
// handler's goroutine wrote after it set state the client then reads.
func TestNoRaceHTTPUpgrade(t *testing.T) {
	var state struct{ n int }
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, brw, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		go func() {
			defer conn.Close()
			state.n = 42
			brw.WriteString("HTTP/1.1 101 Switching Protocols\r\nUpgrade: test\r\nConnection: Upgrade\r\n\r\nhello\n")
			brw.Flush()
			brw.ReadString('\n')
		}()
	}))
	defer srv.Close()
	req, _ := http.NewRequest("GET", srv.URL, nil)
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "test")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	rwc := resp.Body.(io.ReadWriteCloser)
	line, _ := bufio.NewReader(rwc).ReadString('\n')
	if line != "hello\n" || state.n != 42 {
		t.Errorf("got %q, %d", line, state.n)
	}
	rwc.Write([]byte("bye\n"))
	rwc.Close()
}

// TestNoRaceDial: net.Dialer's dial goroutines and the accepting side.
func TestNoRaceDial(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var got []byte
	done := make(chan bool)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			got, _ = io.ReadAll(c)
			c.Close()
		}
		done <- true
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := (&net.Dialer{}).DialContext(ctx, "tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c.Write([]byte("payload"))
	c.Close()
	<-done
	if string(got) != "payload" {
		t.Fatal(string(got))
	}
}

// TestNoRaceContextCancel: what the canceller did before cancel happens
// before Done is closed.
func TestNoRaceContextCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	x := 0
	go func() {
		x = 1
		cancel()
	}()
	<-ctx.Done()
	_ = x
}

func TestRaceContextCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	x := 0
	go func() {
		cancel()
		x = 1
	}()
	<-ctx.Done()
	_ = x
	time.Sleep(10 * time.Millisecond)
}

// TestNoRaceContextAfterFunc: cancel happens before the AfterFunc's
// function runs, on a goroutine context starts.
func TestNoRaceContextAfterFunc(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var buf bytes.Buffer
	done := make(chan bool)
	context.AfterFunc(ctx, func() { buf.WriteString("after"); done <- true })
	buf.WriteString("before")
	cancel()
	<-done
	_ = buf.Len()
}

// TestNoRaceIOPipe: a write to a pipe happens before the read that gets it.
func TestNoRaceIOPipe(t *testing.T) {
	pr, pw := io.Pipe()
	x := 0
	go func() {
		x = 1
		pw.Write([]byte("a"))
		pw.Close()
	}()
	io.ReadAll(pr)
	_ = x
}

func TestRaceIOPipe(t *testing.T) {
	pr, pw := io.Pipe()
	x := 0
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		pw.Write([]byte("a"))
		x = 1
	}()
	buf := make([]byte, 1)
	pr.Read(buf)
	_ = x
	wg.Wait()
}

// TestNoRaceTrace: runtime/trace's goroutine writes the trace into the
// user's buffer; Stop waits for it.
func TestNoRaceTrace(t *testing.T) {
	var buf bytes.Buffer
	if err := trace.Start(&buf); err != nil {
		t.Skip(err)
	}
	trace.Log(context.Background(), "cat", "msg")
	trace.Stop()
	if buf.Len() == 0 {
		t.Fatal("empty trace")
	}
	buf.Reset()
}

// TestNoRaceFlightRecorder: the flight recorder's subscriber goroutine
// and WriteTo.
func TestNoRaceFlightRecorder(t *testing.T) {
	fr := trace.NewFlightRecorder(trace.FlightRecorderConfig{})
	if err := fr.Start(); err != nil {
		t.Skip(err)
	}
	trace.Log(context.Background(), "cat", "msg")
	var buf bytes.Buffer
	if _, err := fr.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	fr.Stop()
	buf.Reset()
}

// TestRaceAfterFuncStd: standard-library code run by a time.AfterFunc
// callback is checked like any other goroutine's.
func TestRaceAfterFuncStd(t *testing.T) {
	var buf bytes.Buffer
	done := make(chan bool)
	time.AfterFunc(time.Millisecond, func() { buf.WriteString("timer"); done <- true })
	buf.WriteString("main")
	<-done
}

func TestNoRaceAfterFuncStd(t *testing.T) {
	var buf bytes.Buffer
	done := make(chan bool)
	buf.WriteString("main")
	time.AfterFunc(time.Millisecond, func() { buf.WriteString("timer"); done <- true })
	<-done
	_ = buf.Len()
}

// TestRaceStdGlobal: flag.Usage, a package-level variable of the standard
// library that its initialization writes, is written again by one
// goroutine while flag's commandLineUsage reads it on another.
func TestRaceStdGlobal(t *testing.T) {
	old := flag.Usage
	defer func() { flag.Usage = old }()
	flag.Usage = func() {}
	done := make(chan bool)
	go func() { flag.Usage = func() {}; done <- true }()
	flag.CommandLine.Usage()
	<-done
}

func TestNoRaceStdGlobal(t *testing.T) {
	old := flag.Usage
	defer func() { flag.Usage = old }()
	done := make(chan bool)
	go func() { flag.Usage = func() {}; done <- true }()
	<-done
	flag.CommandLine.Usage()
}

// crcState is written before a call of hash/crc32 and read after it.
type crcState struct{ err error }

var crcSink error

// crcRead writes s.err, calls crc32.Update, which loads an atomic.Bool (an
// acquire and a release under bigfoot, whose atomics totally order each
// variable's operations), and reads s.err again.
func crcRead(s *crcState, err error) {
	s.err = err
	crc32.Update(0, crc32.IEEETable, nil)
	crcSink = s.err
}

// crcWrite writes s.err after a call of crc32.Update of its own.
func crcWrite(s *crcState) {
	crc32.Update(0, crc32.IEEETable, nil)
	s.err = nil
}

// TestRaceCRC32Update: the main goroutine's write races with the other
// goroutine's write and read. Under go -race an atomic load releases
// nothing and the writes race; under bigfoot the main goroutine's load
// acquires what the other's released, which orders the writes, and only
// the read after crc32.Update races. While the static pass counted
// hash/crc32 as sync-free, it elided that read's check for the write's
// check before the call, and the race was missed in every run.
func TestRaceCRC32Update(t *testing.T) {
	s := &crcState{}
	done := make(chan bool)
	go func() { crcRead(s, io.EOF); done <- true }()
	time.Sleep(100 * time.Millisecond)
	crcWrite(s)
	<-done
}

func TestNoRaceCRC32Update(t *testing.T) {
	s := &crcState{}
	done := make(chan bool)
	go func() { crcRead(s, io.EOF); done <- true }()
	<-done
	crcWrite(s)
}

type config struct {
	Name  string
	Count int
	Tags  []string
}

// TestRaceJSONUnmarshal: Unmarshal writes the struct through reflect.
func TestRaceJSONUnmarshal(t *testing.T) {
	var c config
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		json.Unmarshal([]byte(`{"Name":"a","Count":2,"Tags":["x"]}`), &c)
	}()
	_ = c.Count
	wg.Wait()
}

// TestRaceJSONMarshal: Marshal reads the struct through reflect.
func TestRaceJSONMarshal(t *testing.T) {
	c := config{Name: "a"}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		json.Marshal(&c)
	}()
	c.Count = 3
	wg.Wait()
}

// TestRaceJSONUnmarshalMap: Unmarshal assigns the map's entries through
// reflect (SetMapIndex, mapassign under go -race).
func TestRaceJSONUnmarshalMap(t *testing.T) {
	m := map[string]int{}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		json.Unmarshal([]byte(`{"a":1,"b":2}`), &m)
	}()
	_ = m["a"]
	wg.Wait()
}

func TestNoRaceJSON(t *testing.T) {
	var c config
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			defer mu.Unlock()
			json.Unmarshal([]byte(`{"Name":"a","Count":2,"Tags":["x"]}`), &c)
			json.Marshal(&c)
		}()
	}
	wg.Wait()
	_ = c.Count
}
