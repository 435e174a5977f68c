// Package runerr is modelled on etcd-io/etcd#725 (fix(server): avoid race
// conditions in Run/Stop): Run started the peer server and the client
// server on two goroutines that both assigned one err variable of Run.
// The fixed twin gives each goroutine its own error and sends it back.
package runerr

import (
	"sync"
	"testing"
)

type listenErr string

func (e listenErr) Error() string { return string(e) }

func runShared() {
	var err error
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); err = listenErr("peer") }()
	go func() { defer wg.Done(); err = listenErr("client") }()
	wg.Wait()
	_ = err
}

func run() []error {
	errc := make(chan error, 2)
	go func() { errc <- listenErr("peer") }()
	go func() { errc <- listenErr("client") }()
	return []error{<-errc, <-errc}
}

func TestRaceRunSharedErr(t *testing.T) { runShared() }

func TestNoRaceRunSharedErr(t *testing.T) {
	if errs := run(); len(errs) != 2 || errs[0] == nil || errs[1] == nil {
		t.Fatalf("errors %v", errs)
	}
}
