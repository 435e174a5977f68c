// Inventory is a warehouse service's state: stock levels kept as struct
// values in maps keyed by a struct (warehouse, SKU), one map per region
// under a sync.Mutex, and per-customer carts as maps of string to struct
// owned by one goroutine each. Goroutines apply a stream of orders:
// reserve stock (read a struct out of the map, change it, store it back),
// release some reservations, restock, and keep per-SKU counters in their
// own maps that are merged at the end.
//
// It prints one line, "checksum: <hex>", folded from every stock entry in
// key order and the merged counters.
package main

import (
	"cmp"
	"flag"
	"fmt"
	"maps"
	"math"
	"slices"
	"sync"

	"github.com/bigfoot-go/bigfoot/bench/internal/peak"
)

// key identifies a stock entry.
type key struct {
	warehouse uint16
	sku       uint32
}

// stock is the state of one entry.
type stock struct {
	onHand   int32
	reserved int32
	restocks int32
	price    float32
	name     string
}

// region is one lock's worth of stock.
type region struct {
	mu    sync.Mutex
	stock map[key]stock
}

// cartLine is a line of a customer's cart.
type cartLine struct {
	key key
	qty int32
}

const (
	regions    = 8
	warehouses = 64
	skus       = 4096
)

func main() {
	size := flag.Int("size", 0, "orders per goroutine (0: default)")
	short := flag.Bool("short", false, "tiny size, for tests")
	workers := flag.Int("workers", 4, "goroutines")
	flag.Parse()
	n := 400_000
	if *short {
		n = 10_000
	}
	if *size > 0 {
		n = *size
	}
	w := max(*workers, 1)

	var rs [regions]region
	for r := range rs {
		rs[r].stock = make(map[key]stock)
	}
	for wh := uint16(0); wh < warehouses; wh++ {
		for sku := uint32(0); sku < skus; sku += 3 {
			k := key{wh, sku}
			rs[int(wh)%regions].stock[k] = stock{onHand: 50, price: float32(sku%500) + 0.99, name: fmt.Sprintf("sku-%d", sku)}
		}
	}

	counters := make([]map[uint32]int64, w)
	var wg sync.WaitGroup
	for g := 0; g < w; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sold := make(map[uint32]int64)
			carts := make(map[string][]cartLine)
			s := uint64(g)*0x9e3779b97f4a7c15 + 17
			for i := 0; i < n; i++ {
				s ^= s << 13
				s ^= s >> 7
				s ^= s << 17
				k := key{uint16(s % warehouses), uint32(s>>8%skus) / 3 * 3}
				customer := fmt.Sprint("c", g, "-", s>>40%64)
				reg := &rs[int(k.warehouse)%regions]
				switch op := s >> 20 % 8; {
				case op < 5: // reserve
					q := int32(s>>24%4) + 1
					reg.mu.Lock()
					st, ok := reg.stock[k]
					if ok && st.onHand-st.reserved >= q {
						st.reserved += q
						reg.stock[k] = st
					} else {
						ok = false
					}
					reg.mu.Unlock()
					if ok {
						carts[customer] = append(carts[customer], cartLine{k, q})
					}
				case op < 7: // check out or abandon a cart
					cart := carts[customer]
					delete(carts, customer)
					buy := op == 5
					for _, l := range cart {
						r := &rs[int(l.key.warehouse)%regions]
						r.mu.Lock()
						st := r.stock[l.key]
						st.reserved -= l.qty
						if buy {
							st.onHand -= l.qty
						}
						r.stock[l.key] = st
						r.mu.Unlock()
						if buy {
							sold[l.key.sku] += int64(l.qty)
						}
					}
				default: // restock
					reg.mu.Lock()
					if st, ok := reg.stock[k]; ok && st.onHand < 20 {
						st.onHand += 40
						st.restocks++
						reg.stock[k] = st
					}
					reg.mu.Unlock()
				}
			}
			// Release what is still reserved.
			for _, cart := range carts {
				for _, l := range cart {
					r := &rs[int(l.key.warehouse)%regions]
					r.mu.Lock()
					st := r.stock[l.key]
					st.reserved -= l.qty
					r.stock[l.key] = st
					r.mu.Unlock()
				}
			}
			counters[g] = sold
		}()
	}
	wg.Wait()

	// Stock levels depend on the order in which goroutines reserved, so
	// the checksum folds only what is the same under any schedule: every
	// reservation was released, and the units sold per SKU plus those on
	// hand are the initial stock plus the restocks.
	total := make(map[uint32]int64)
	for _, c := range counters {
		for sku, q := range c {
			total[sku] += q
		}
	}
	var sum uint64
	var keys []key
	for r := range rs {
		keys = slices.AppendSeq(keys, maps.Keys(rs[r].stock))
	}
	slices.SortFunc(keys, func(a, b key) int {
		return cmp.Or(cmp.Compare(a.sku, b.sku), cmp.Compare(a.warehouse, b.warehouse))
	})
	perSKU := make(map[uint32]int64)
	for _, k := range keys {
		st := rs[int(k.warehouse)%regions].stock[k]
		if st.reserved != 0 {
			panic(fmt.Sprintf("inventory: %v still has %d reserved", k, st.reserved))
		}
		perSKU[k.sku] += int64(st.onHand) - 40*int64(st.restocks)
		sum += uint64(math.Float32bits(st.price)) + uint64(len(st.name))
	}
	for _, sku := range slices.Sorted(maps.Keys(perSKU)) {
		sum = sum*1_000_003 + uint64(perSKU[sku]+total[sku])
	}
	fmt.Printf("checksum: %016x%x\n", sum, len(keys))
	peak.Report()
}
