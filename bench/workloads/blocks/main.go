// Blocks runs several passes of data-parallel kernels over four large
// arrays, each goroutine owning one contiguous block of every array, with a
// sync.WaitGroup barrier between passes: the shape of most data-parallel Go
// code (a closure per block started by go, captured slices, a barrier).
// The passes mix the patterns a race detector's array shadow must keep
// cheap:
//
//   - keys []uint32 and vals []uint32: element-wise affine loops, stride 1;
//   - tags []byte: a byte array, read and written per element;
//   - a per-block histogram h[tags[i]]++ (a non-affine index into a small
//     array the goroutine owns) beside affine accesses in the same loop;
//   - a conditional compaction out[pos] = keys[i] with pos advancing only
//     on some iterations;
//   - a 2-D pass over rows of a grid [][]uint32 split into bands of rows.
//
// It prints one line, "checksum: <hex>", that is the same for any
// GOMAXPROCS and schedule.
package main

import (
	"flag"
	"fmt"
	"sync"

	"github.com/bigfoot-go/bigfoot/bench/internal/peak"
)

func main() {
	size := flag.Int("size", 0, "elements per array (0: default)")
	short := flag.Bool("short", false, "tiny size, for tests")
	workers := flag.Int("workers", 4, "goroutines")
	passes := flag.Int("passes", 16, "passes over the arrays")
	flag.Parse()
	n := 4 << 20
	if *short {
		n = 64 << 10
	}
	if *size > 0 {
		n = *size
	}
	w := max(*workers, 1)
	n = n / w * w

	keys := make([]uint32, n)
	vals := make([]uint32, n)
	tags := make([]byte, n)
	out := make([]uint32, n)
	const cols = 1024
	grid := make([][]uint32, max(n/cols, w))
	for r := range grid {
		grid[r] = make([]uint32, cols)
	}
	hists := make([][256]uint64, w)
	kept := make([]uint64, w) // per block: the sum of the values compacted

	// Initialise: every goroutine fills its own block.
	parallel(w, n, func(k, lo, hi int) {
		for i := lo; i < hi; i++ {
			s := uint32(i)*2654435761 + 2463534242
			s ^= s << 13
			s ^= s >> 17
			s ^= s << 5
			keys[i] = s
			vals[i] = s >> 7
			tags[i] = byte(s >> 24)
		}
	})

	for p := 0; p < *passes; p++ {
		// Mix keys into vals, element-wise.
		parallel(w, n, func(k, lo, hi int) {
			for i := lo; i < hi; i++ {
				vals[i] = vals[i]*2654435761 + keys[i] ^ uint32(p)
			}
		})
		// Byte array and histogram in one loop.
		parallel(w, n, func(k, lo, hi int) {
			h := &hists[k]
			for i := lo; i < hi; i++ {
				t := tags[i] ^ byte(vals[i])
				tags[i] = t
				h[t]++
			}
		})
		// Conditional compaction into the block's own part of out.
		parallel(w, n, func(k, lo, hi int) {
			pos, sum := lo, uint64(0)
			for i := lo; i < hi; i++ {
				if vals[i]&3 == 0 {
					out[pos] = keys[i] + vals[i]
					sum += uint64(out[pos])
					pos++
				}
			}
			kept[k] += sum
		})
		// Rows of the grid in bands: a three-point stencil within each row.
		parallel(w, len(grid), func(k, lo, hi int) {
			for r := lo; r < hi; r++ {
				row := grid[r]
				seed := keys[(r*cols)%n]
				for j := 1; j < len(row)-1; j++ {
					row[j] = row[j-1] ^ row[j+1] + seed + uint32(j)
				}
			}
		})
	}

	h := uint64(14695981039346656037)
	mix := func(x uint64) { h = (h ^ x) * 1099511628211 }
	for i := 0; i < n; i += 61 {
		mix(uint64(vals[i]))
		mix(uint64(tags[i]))
	}
	for r := 0; r < len(grid); r += 7 {
		mix(uint64(grid[r][r%cols]))
	}
	// Per-block results summed: the same for any number of workers.
	var hist [256]uint64
	total := uint64(0)
	for k := range hists {
		for b, c := range hists[k] {
			hist[b] += c
		}
		total += kept[k]
	}
	for b, c := range hist {
		mix(uint64(b) * c)
	}
	mix(total)
	fmt.Printf("checksum: %016x\n", h)
	peak.Report()
}

// parallel splits [0, n) into w contiguous blocks, runs f on each in its
// own goroutine and waits for all of them: a barrier.
func parallel(w, n int, f func(k, lo, hi int)) {
	var wg sync.WaitGroup
	for k := 0; k < w; k++ {
		lo, hi := k*n/w, (k+1)*n/w
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(k, lo, hi)
		}()
	}
	wg.Wait()
}
