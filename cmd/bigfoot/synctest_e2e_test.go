// Copyright 2026 The bigfoot Authors. All rights reserved.

package main

import "testing"

// TestSameSynctestBubbles: goroutines of synctest bubbles and goroutines
// outside them (the shadow's sweep after each collection, other tests)
// share the race detector's locks. A lock first contended in a bubble made
// its wake channel there, so the channel belonged to the bubble: the
// sweep's receive from it was a fatal error ("receive on synctest channel
// from outside bubble"), and a goroutine of the bubble waiting for the
// sweep's unlock counted as durably blocked, a false "deadlock: all
// goroutines in bubble are blocked". Two hundred bubbles that move data
// through net.Pipe, allocating as they go, made both happen within a few
// bubbles; go test -race passes them.
func TestSameSynctestBubbles(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"go.mod": "module example.com/st\n\ngo 1.25\n",
		"st_test.go": `package st

import (
	"bufio"
	"io"
	"net"
	"testing"
	"testing/synctest"
)

func TestPipeInBubble(t *testing.T) {
	for i := 0; i < 200; i++ {
		synctest.Test(t, func(t *testing.T) {
			server, client := net.Pipe()
			done := make(chan error, 1)
			go func() {
				w := bufio.NewWriterSize(server, 4096)
				for j := 0; j < 64; j++ {
					if _, err := w.Write(make([]byte, 1000)); err != nil {
						done <- err
						return
					}
				}
				done <- w.Flush()
				server.Close()
			}()
			n, err := io.Copy(io.Discard, client)
			if err != nil || n != 64000 {
				t.Fatal(n, err)
			}
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		})
	}
}
`,
	})
	sameAsGoRace(t, dir, nil, "-count=1", ".")
}
