// Copyright 2026 The bigfoot Authors. All rights reserved.

package shadow

import "testing"

// TestLookahead checks the sweep's lookahead on pages of granules laid
// out as the sweep meets them: after each slot the sweep is at, the
// granules prefetched and not yet reached are sweepAhead of them, or all
// those left on the page, whatever the stretches of empty slots before
// them, the start of the page included.
func TestLookahead(t *testing.T) {
	layouts := map[string]func(gi int) bool{
		"dense":     func(int) bool { return true },
		"sparse":    func(gi int) bool { return gi%37 == 5 },
		"clusters":  func(gi int) bool { return gi%100 >= 90 },
		"late":      func(gi int) bool { return gi >= 300 },
		"alternate": func(gi int) bool { return gi%2 == 1 },
	}
	for name, full := range layouts {
		t.Run(name, func(t *testing.T) {
			arr := new(slotArray)
			for gi := range arr {
				if full(gi) {
					arr[gi].Store(&granule{lo: 0, hi: 8})
				}
			}
			var l lookahead
			for gi := range arr {
				if arr[gi].Load() == nil {
					continue // the sweep skips empty slots
				}
				l.reach(arr, gi)
				l.reach(arr, gi) // the stripe group's loop, at the same slot
				if l.at != gi+1 {
					t.Fatalf("slot %d: passed %d slots", gi, l.at)
				}
				n := 0
				for k := l.at; k < l.next; k++ {
					if arr[k].Load() != nil {
						n++
					}
				}
				if n != l.ahead {
					t.Fatalf("slot %d: %d granules counted ahead, %d in [%d, %d)", gi, l.ahead, n, l.at, l.next)
				}
				if l.ahead < sweepAhead && l.next != granulesPerPage || l.ahead > sweepAhead {
					t.Fatalf("slot %d: %d granules ahead up to slot %d, want %d or the page's end",
						gi, l.ahead, l.next, sweepAhead)
				}
			}
		})
	}
}

// TestLookaheadRun checks the lookahead across a run the sweep skips
// whole, and without a slot array.
func TestLookaheadRun(t *testing.T) {
	arr := new(slotArray)
	run := &granule{} // hi 0: a run (isRun)
	for gi := 10; gi < 200; gi++ {
		arr[gi].Store(run)
	}
	for gi := 200; gi < granulesPerPage; gi += 3 {
		arr[gi].Store(&granule{lo: 0, hi: 8})
	}
	var l lookahead
	l.reach(arr, 10)
	l.reach(arr, 200) // the sweep went on after the run's last slot
	if l.at != 201 || l.next < l.at {
		t.Fatalf("after the run: at %d, next %d", l.at, l.next)
	}
	n := 0
	for k := l.at; k < l.next; k++ {
		if arr[k].Load() != nil {
			n++
		}
	}
	if n != l.ahead || l.ahead != sweepAhead {
		t.Errorf("after the run: %d granules ahead counted, %d in [%d, %d), want %d", l.ahead, n, l.at, l.next, sweepAhead)
	}
	var none lookahead
	none.reach(nil, 5)
	if none != (lookahead{}) {
		t.Errorf("without a slot array: %+v", none)
	}
}
