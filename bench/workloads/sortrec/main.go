// Sortrec is a reporting job: it loads records (structs with strings,
// numbers and a time), and goroutines produce reports from them, each a
// differently ordered view: slices.SortFunc with a multi-key comparison
// (cmp.Compare, strings.Compare), sort.Slice, sort.Stable on a
// sort.Interface, slices.SortStableFunc on pointers, and a binary search
// per report. Every report sorts its own copy of the shared, read-only
// records.
//
// It prints one line, "checksum: <hex>", folded from the first records of
// each report in order.
package main

import (
	"cmp"
	"flag"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/bigfoot-go/bigfoot/bench/internal/peak"
)

// Record is one row of the data set.
type Record struct {
	ID      int64
	Name    string
	Country string
	Age     int
	Score   float64
	Joined  time.Time
}

// byCountryAge sorts by country, then by age descending, then by id.
type byCountryAge []Record

func (r byCountryAge) Len() int      { return len(r) }
func (r byCountryAge) Swap(i, j int) { r[i], r[j] = r[j], r[i] }
func (r byCountryAge) Less(i, j int) bool {
	if r[i].Country != r[j].Country {
		return r[i].Country < r[j].Country
	}
	if r[i].Age != r[j].Age {
		return r[i].Age > r[j].Age
	}
	return r[i].ID < r[j].ID
}

var (
	countries = []string{"PT", "NO", "PL", "KE", "JP", "PE", "CA", "AU", "DE", "BR", "IN", "NG"}
	syllables = []string{"an", "bel", "cor", "da", "el", "fi", "gus", "ha", "io", "ju", "ka", "lo", "mi", "no"}
)

func records(n int) []Record {
	rs := make([]Record, n)
	s := uint64(0x2545f4914f6cdd1d)
	next := func() uint64 {
		s ^= s << 13
		s ^= s >> 7
		s ^= s << 17
		return s
	}
	for i := range rs {
		var b strings.Builder
		for j := uint64(0); j < 2+next()%3; j++ {
			b.WriteString(syllables[next()%uint64(len(syllables))])
		}
		rs[i] = Record{
			ID:      int64(i),
			Name:    b.String(),
			Country: countries[next()%uint64(len(countries))],
			Age:     18 + int(next()%70),
			Score:   float64(next()%1_000_000) / 1000,
			Joined:  time.Unix(1_500_000_000+int64(next()%300_000_000), 0),
		}
	}
	return rs
}

// report sorts a copy of rs in the order kind selects and returns a hash
// of the first 100 records' ids.
func report(rs []Record, kind int) uint64 {
	view := slices.Clone(rs)
	switch kind % 5 {
	case 0:
		slices.SortFunc(view, func(a, b Record) int {
			return cmp.Or(strings.Compare(a.Name, b.Name), cmp.Compare(b.Score, a.Score), cmp.Compare(a.ID, b.ID))
		})
	case 1:
		sort.Slice(view, func(i, j int) bool {
			if !view[i].Joined.Equal(view[j].Joined) {
				return view[i].Joined.Before(view[j].Joined)
			}
			return view[i].ID < view[j].ID
		})
	case 2:
		sort.Stable(byCountryAge(view))
	case 3:
		ptrs := make([]*Record, len(view))
		for i := range view {
			ptrs[i] = &view[i]
		}
		slices.SortStableFunc(ptrs, func(a, b *Record) int { return cmp.Compare(a.Score, b.Score) })
		var h uint64
		for _, p := range ptrs[:100] {
			h = h*1_000_003 + uint64(p.ID)
		}
		return h
	case 4:
		slices.SortFunc(view, func(a, b Record) int {
			return cmp.Or(cmp.Compare(a.Age, b.Age), cmp.Compare(a.ID, b.ID))
		})
		i, _ := slices.BinarySearchFunc(view, 40, func(r Record, age int) int { return cmp.Compare(r.Age, age) })
		view = view[i:]
	}
	var h uint64
	for _, r := range view[:100] {
		h = h*1_000_003 + uint64(r.ID)
	}
	return h
}

func main() {
	size := flag.Int("size", 0, "reports (0: default)")
	short := flag.Bool("short", false, "tiny size, for tests")
	workers := flag.Int("workers", 4, "goroutines")
	nrec := flag.Int("records", 50_000, "records")
	flag.Parse()
	n := 40
	if *short {
		n = 10
	}
	if *size > 0 {
		n = *size
	}
	w := max(*workers, 1)
	rs := records(max(*nrec, 100))
	if *short {
		rs = rs[:2000]
	}

	sums := make([]uint64, w)
	var wg sync.WaitGroup
	for k := 0; k < w; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := k; i < n; i += w {
				sums[k] += report(rs, i) * uint64(i+1)
			}
		}()
	}
	wg.Wait()

	var sum uint64
	for _, s := range sums {
		sum += s
	}
	fmt.Printf("checksum: %016x\n", sum)
	peak.Report()
}
