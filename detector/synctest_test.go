// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"testing"
	"testing/synctest"
	"time"
)

// synctest.Wait orders what the bubble's other goroutines did before they
// exited or blocked durably (Go's TestNoRaceSynctestGoroutinesExit); a
// goroutine of the bubble not waited for stays unordered.
func TestSynctestWait(t *testing.T) {
	for _, block := range []string{"exit", "recv", "sleep"} {
		t.Run(block, func(t *testing.T) {
			both(t, func(g *G, synced bool) {
				x := new(int)
				SynctestTest(g, synctest.Test, t, func(t *testing.T) {
					g := Cur()
					ch, wrote := make(chan int), make(chan struct{})
					spawn(g, func(g *G) {
						*W(g, x, 0) = 1
						close(wrote) // an edge the detector does not see
						switch block {
						case "recv":
							<-RecvPre(g, ch, 0)
							RecvPostOK(g, ch, 0)
						case "sleep":
							time.Sleep(SleepPre(g, time.Second))
						}
					})
					if synced {
						SynctestWait(g, synctest.Wait)
					} else {
						<-wrote
					}
					_ = *R(g, x, 0)
					close(Close(g, ch))
					time.Sleep(2 * time.Second) // let a sleeper exit

				})
			})
		})
	}
}

// The end of synctest.Test is ordered after the bubble's goroutines.
func TestSynctestTestEnd(t *testing.T) {
	expect(t, false, func(g *G) {
		x := new(int)
		SynctestTest(g, synctest.Test, t, func(t *testing.T) {
			spawn(Cur(), func(g *G) { *W(g, x, 0) = 1 })
		})
		*W(g, x, 0) = 2
	})
}
