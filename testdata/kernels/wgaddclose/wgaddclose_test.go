// Package wgaddclose is modelled on etcd-io/etcd#19193 (server/embed: data race
// about errHandler): a serving goroutine called wg.Add(1) itself, so
// (*Etcd).Close's wg.Wait could return before it and read the state the
// goroutine then wrote. The fixed twin calls wg.Add before the go
// statement, as the issue asked.
package wgaddclose

import (
	"sync"
	"testing"
	"time"
)

type etcd struct {
	wg  sync.WaitGroup
	err error
}

type errStop struct{}

func (errStop) Error() string { return "stopped" }

func (e *etcd) serveLate() {
	time.Sleep(time.Millisecond)
	e.wg.Add(1)
	defer e.wg.Done()
	e.err = errStop{}
}

func (e *etcd) serve() {
	defer e.wg.Done()
	time.Sleep(time.Millisecond)
	e.err = errStop{}
}

func TestRaceWaitGroupAddInside(t *testing.T) {
	e := &etcd{}
	exited := make(chan struct{})
	go func() { e.serveLate(); close(exited) }()
	e.wg.Wait()
	_ = e.err
	<-exited
}

func TestNoRaceWaitGroupAddInside(t *testing.T) {
	e := &etcd{}
	e.wg.Add(1)
	go e.serve()
	e.wg.Wait()
	if e.err == nil {
		t.Fatal("no error recorded")
	}
}
