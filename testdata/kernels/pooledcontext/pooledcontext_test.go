// Package pooledcontext is modelled on go-kratos/kratos#3072 (remove context sync.Pool
// to avoid data races, issue go-kratos/kratos#3070): the HTTP transport
// took its request context wrapper from a sync.Pool and put it back when
// the handler returned, while a goroutine the handler started still read
// it; the next request reset the reused wrapper. The fixed twin allocates
// a wrapper per request, as the pull request did.
package pooledcontext

import (
	"sync"
	"testing"
	"time"
)

type wrapper struct {
	path string
	code int
}

var ctxPool = sync.Pool{New: func() any { return new(wrapper) }}

func serve(paths []string, pooled bool) {
	var wg sync.WaitGroup
	for _, p := range paths {
		var w *wrapper
		if pooled {
			w = ctxPool.Get().(*wrapper)
		} else {
			w = new(wrapper)
		}
		w.path, w.code = p, 200
		wg.Add(1)
		go func() { // a handler's background work
			defer wg.Done()
			time.Sleep(100 * time.Microsecond)
			_ = len(w.path) + w.code
		}()
		if pooled {
			ctxPool.Put(w)
		}
	}
	wg.Wait()
}

func TestRacePooledContext(t *testing.T) {
	serve([]string{"/a", "/b", "/c", "/d", "/e", "/f", "/g", "/h"}, true)
}

func TestNoRacePooledContext(t *testing.T) {
	serve([]string{"/a", "/b", "/c", "/d", "/e", "/f", "/g", "/h"}, false)
}
