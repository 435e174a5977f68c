// Fanout is an aggregating front end: each incoming request fans out to
// several backends in goroutines under a context.WithTimeout, gathers
// their replies over a channel, and cancels the rest when one fails, as
// errgroup-style code does by hand. Backends do some work, checking
// ctx.Done() between steps, and return records that the request merges.
// Requests run concurrently from a fixed number of callers; a semaphore
// channel bounds the backend calls in flight.
//
// It prints one line, "checksum: <hex>", folded from the merged results
// of the requests that succeed and the count of those that fail (which
// fail is fixed; which siblings a failure cancels is not, so their
// partial results are not part of it).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/bigfoot-go/bigfoot/bench/internal/peak"
)

// reply is a backend's answer.
type reply struct {
	backend int
	items   []uint64
	err     error
}

var errBackend = errors.New("backend unavailable")

// backend computes shard b's part of request req.
func backend(ctx context.Context, sem chan struct{}, req, b int) ([]uint64, error) {
	select {
	case sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-sem }()
	if (req*7+b)%97 == 0 {
		return nil, fmt.Errorf("request %d, backend %d: %w", req, b, errBackend)
	}
	s := uint64(req)*0x9e3779b97f4a7c15 + uint64(b)*0xbf58476d1ce4e5b9 + 29
	items := make([]uint64, 0, 16)
	for step := 0; step < 16; step++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for i := 0; i < 100; i++ {
			s ^= s << 13
			s ^= s >> 7
			s ^= s << 17
		}
		items = append(items, s)
	}
	return items, nil
}

// handle serves one request: fan out to every backend, fan in, merge.
func handle(parent context.Context, sem chan struct{}, req, backends int) ([]uint64, error) {
	ctx, cancel := context.WithTimeout(parent, time.Minute)
	defer cancel()
	replies := make(chan reply)
	var wg sync.WaitGroup
	for b := 0; b < backends; b++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			items, err := backend(ctx, sem, req, b)
			select {
			case replies <- reply{b, items, err}:
			case <-ctx.Done():
			}
		}()
	}
	go func() {
		wg.Wait()
		close(replies)
	}()
	var merged []uint64
	var firstErr error
	for r := range replies {
		if r.err != nil {
			if firstErr == nil {
				firstErr = r.err
				cancel()
			}
			continue
		}
		merged = append(merged, r.items...)
	}
	if firstErr != nil {
		return nil, firstErr
	}
	sort.Slice(merged, func(i, j int) bool { return merged[i] < merged[j] })
	return merged, nil
}

func main() {
	size := flag.Int("size", 0, "requests (0: default)")
	short := flag.Bool("short", false, "tiny size, for tests")
	workers := flag.Int("workers", 4, "concurrent callers")
	backends := flag.Int("backends", 8, "backends per request")
	flag.Parse()
	n := 20_000
	if *short {
		n = 500
	}
	if *size > 0 {
		n = *size
	}
	w := max(*workers, 1)
	nb := max(*backends, 1)

	ctx := context.Background()
	sem := make(chan struct{}, 16)
	sums := make([]uint64, w)
	failed := make([]int, w)
	var wg sync.WaitGroup
	for k := 0; k < w; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for req := k; req < n; req += w {
				merged, err := handle(ctx, sem, req, nb)
				if err != nil {
					if !errors.Is(err, errBackend) {
						panic(err)
					}
					failed[k]++
					continue
				}
				var h uint64
				for _, v := range merged {
					h = h*31 + v
				}
				sums[k] += h
			}
		}()
	}
	wg.Wait()

	var sum uint64
	var nfailed int
	for k := range sums {
		sum += sums[k]
		nfailed += failed[k]
	}
	fmt.Printf("checksum: %016x%x\n", sum, nfailed)
	peak.Report()
}
