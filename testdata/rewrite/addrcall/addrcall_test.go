// Package addrcall writes through targets whose address contains a call
// while the right-hand side may synchronize: the calls of the target are
// evaluated first, and the write is checked at that address.
package addrcall

import (
	"sync"
	"testing"
	"time"
)

type info struct{ ts time.Time }

var (
	infos = map[string]*info{"a": {}}
	mu    sync.Mutex
)

func key() string { return "a" }

func stamp() time.Time {
	mu.Lock()
	defer mu.Unlock()
	return time.Now()
}

func TestRaceAddressCall(t *testing.T) {
	p := infos["a"]
	done := make(chan bool)
	go func() {
		infos[key()].ts = stamp()
		done <- true
	}()
	_ = p.ts
	<-done
}

func index() int { return 1 }

func TestRaceIndexCall(t *testing.T) {
	s := make([]time.Time, 2)
	done := make(chan bool)
	go func() {
		s[index()] = stamp()
		done <- true
	}()
	_ = s[1]
	<-done
}

func TestNoRaceAddressCall(t *testing.T) {
	p := infos["a"]
	s := make([]time.Time, 2)
	done := make(chan bool)
	go func() {
		_ = p.ts
		_ = s[1]
		done <- true
	}()
	<-done
	infos[key()].ts = stamp()
	s[index()] = stamp()
}
