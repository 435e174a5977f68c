package main

import (
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
)

type guarded struct {
	sync.Mutex
	n int
}

type rwguarded struct {
	*sync.RWMutex
	m map[int]int
}

type stats struct {
	hits atomic.Int64
	ptr  atomic.Pointer[string]
	flag atomic.Bool
	raw  int64
}

// syncs exercises the synchronization hooks.
func syncs() {
	var wg sync.WaitGroup
	g := &guarded{}
	rw := rwguarded{RWMutex: new(sync.RWMutex), m: map[int]int{}}
	var st stats
	var once sync.Once
	inits := 0
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			g.Lock()
			g.n += i
			g.Unlock()
			rw.Lock()
			rw.m[i] = i
			rw.Unlock()
			rw.RLock()
			_ = rw.m[0]
			rw.RUnlock()
			st.hits.Add(1)
			atomic.AddInt64(&st.raw, 2)
			once.Do(func() { inits++ })
		}(i)
	}
	wg.Wait()
	s := "p"
	st.ptr.Store(&s)
	st.flag.Store(true)
	fmt.Println(g.n, len(rw.m), st.hits.Load(), atomic.LoadInt64(&st.raw), *st.ptr.Load(), st.flag.Load(), inits)

	// Method values of synchronization methods, and sync.Locker calls.
	var mu sync.Mutex
	lock, unlock := mu.Lock, mu.Unlock
	lock()
	shared := 1
	unlock()
	var l sync.Locker = &mu
	l.Lock()
	shared++
	l.Unlock()
	cond := sync.NewCond(&mu)
	ready := false
	go func() {
		mu.Lock()
		ready = true
		cond.Broadcast()
		mu.Unlock()
	}()
	mu.Lock()
	for !ready {
		cond.Wait()
	}
	mu.Unlock()

	var sm sync.Map
	sm.Store("a", 1)
	val, _ := sm.Load("a")
	var keys []string
	sm.Range(func(k, v any) bool { keys = append(keys, k.(string)); return true })
	sort.Strings(keys)
	pool := sync.Pool{New: func() any { return new(int) }}
	ip := pool.Get().(*int)
	pool.Put(ip)
	f := sync.OnceValue(func() int { return 42 })
	var wg2 sync.WaitGroup
	total := 0
	var tmu sync.Mutex
	for i := range 3 {
		wg2.Go(func() {
			tmu.Lock()
			defer tmu.Unlock()
			total += i
		})
	}
	wg2.Wait()
	fmt.Println(shared, val, keys, f(), total)
}
