// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"math/rand"
	"testing"
)

// TestJoinWords compares the join of clock entries (the AVX2 loop where
// the machine has it, its Go tail, the Go loop) with the entrywise
// maximum, on clocks of every length up to 70 and random entries below
// 2^62, many of them equal, and a destination longer than the source.
func TestJoinWords(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	entry := func() uint64 {
		switch r.Intn(4) {
		case 0:
			return 0
		case 1:
			return uint64(r.Intn(4))
		default:
			return r.Uint64() >> 2
		}
	}
	for n := 0; n <= 70; n++ {
		for round := 0; round < 20; round++ {
			s := make([]uint64, n)
			d := make([]uint64, n+r.Intn(3))
			for i := range s {
				s[i] = entry()
			}
			for i := range d {
				d[i] = entry()
				if i < n && r.Intn(3) == 0 {
					d[i] = s[i]
				}
			}
			want := append([]uint64(nil), d...)
			for i, c := range s {
				want[i] = max(want[i], c)
			}
			got := append([]uint64(nil), d...)
			joinWords(got, s)
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("n=%d: entry %d = %d, want %d (dst %d, src %d)", n, i, got[i], want[i], d[i], s[min(i, n-1)])
				}
			}
			got = append([]uint64(nil), d...)
			joinGo(got, s)
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("joinGo, n=%d: entry %d = %d, want %d", n, i, got[i], want[i])
				}
			}
		}
	}
}

// BenchmarkJoin1000 joins clocks of 1,000 entries, a suite's
// thousand goroutines (docs/runtime.md, "Synchronization model").
func BenchmarkJoin1000(b *testing.B) {
	d, s := make([]uint64, 1000), make([]uint64, 1000)
	for i := range s {
		d[i], s[i] = uint64(i*7%13), uint64(i*5%11)
	}
	b.Run("words", func(b *testing.B) {
		for range b.N {
			joinWords(d, s)
		}
	})
	b.Run("go", func(b *testing.B) {
		for range b.N {
			joinGo(d, s)
		}
	})
}
