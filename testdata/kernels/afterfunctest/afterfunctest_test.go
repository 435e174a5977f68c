// Package afterfunctest is modelled on etcd-io/etcd#3644 (etcdserver, test: don't access
// testing.T in time.AfterFunc()'s own goroutine): a callback given to
// time.AfterFunc runs on a goroutine of its own and recorded a result
// that the test read after sleeping, with nothing ordering the two. The
// fixed twin hands the result over a channel.
package afterfunctest

import (
	"testing"
	"time"
)

type recorder struct {
	failed bool
}

func TestRaceAfterFuncField(t *testing.T) {
	r := &recorder{}
	time.AfterFunc(time.Millisecond, func() { r.failed = true })
	time.Sleep(5 * time.Millisecond)
	_ = r.failed
}

func TestNoRaceAfterFuncField(t *testing.T) {
	r := &recorder{}
	done := make(chan struct{})
	time.AfterFunc(time.Millisecond, func() { r.failed = true; close(done) })
	<-done
	if !r.failed {
		t.Fatal("callback did not run")
	}
}
