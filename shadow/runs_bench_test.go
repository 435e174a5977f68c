// Copyright 2026 The bigfoot Authors. All rights reserved.

package shadow

import (
	"runtime/debug"
	"testing"
	"unsafe"
)

// shapes are the representations benchmarks compare: the adaptive array
// shadow, and per-granule state only (the shadow before runs).
var shapes = []struct {
	name   string
	noRuns bool
}{{"runs", false}, {"per-element", true}}

// BenchmarkRange1M measures a write range check over a 1M-element
// []int64 that one goroutine wrote whole before: in the epoch of that
// write (same), and in a new epoch every iteration (new-epoch: every state
// changes).
func BenchmarkRange1M(b *testing.B) {
	const n = 1 << 20
	v := escape(make([]int64, n))
	p := unsafe.Pointer(&v[0])
	for _, sh := range shapes {
		for _, newEpoch := range []bool{false, true} {
			name := sh.name + "/same"
			if newEpoch {
				name = sh.name + "/new-epoch"
			}
			b.Run(name, func(b *testing.B) {
				quietB(b)
				s := NewSpace()
				s.noRuns = sh.noRuns
				t := thread(1, 1, nil)
				s.AccessRange(t, p, 8, 0, n, 1, true, 1)
				b.ResetTimer()
				for range b.N {
					if newEpoch {
						release(t)
					}
					if _, race := s.AccessRange(t, p, 8, 0, n, 1, true, 1); race {
						b.Fatal("race")
					}
				}
				b.StopTimer()
				b.ReportMetric(float64(s.ShapeStats().Bytes)/n, "shadowB/elem")
			})
		}
	}
}

// BenchmarkBlocks64K measures a block-partitioned workload: P goroutines
// each read and write their quarter of a 64K-element []float64 between
// barriers. It reports the shadow bytes per element.
func BenchmarkBlocks64K(b *testing.B) {
	const n, P = 1 << 16, 4
	v := escape(make([]float64, n))
	p := unsafe.Pointer(&v[0])
	for _, sh := range shapes {
		b.Run(sh.name, func(b *testing.B) {
			quietB(b)
			s := NewSpace()
			s.noRuns = sh.noRuns
			ts := threads(P)
			s.AccessRange(ts[0], p, 8, 0, n, 1, true, 1)
			barrier(ts...)
			b.ResetTimer()
			for range b.N {
				for i, t := range ts {
					s.AccessRange(t, p, 8, i*n/P, (i+1)*n/P, 1, false, 2)
					s.AccessRange(t, p, 8, i*n/P, (i+1)*n/P, 1, true, 3)
				}
				barrier(ts...)
			}
			b.StopTimer()
			st := s.ShapeStats()
			b.ReportMetric(float64(st.Bytes)/n, "shadowB/elem")
			b.ReportMetric(float64(st.Coarse+st.Block+st.Stride), "runs")
		})
	}
}

// quietB is quiet for benchmarks: state that straddles a GC cycle is
// dropped by design, which would change what is measured.
func quietB(b *testing.B) {
	old := debug.SetGCPercent(-1)
	b.Cleanup(func() { debug.SetGCPercent(old) })
	Quiesce()
}
