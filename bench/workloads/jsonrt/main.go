// Jsonrt is an API gateway's serialization path: goroutines encode orders
// (nested structs with strings, slices, maps, pointers and times) to JSON
// with encoding/json, decode them back into fresh values, check that the
// round trip kept every field, and fold the encoded bytes into a hash.
// Each worker serves its own share of the orders; the shared state is a
// catalogue of products, read-only after start-up.
//
// It prints one line, "checksum: <hex>", the sum of the FNV-1a hashes of
// every encoded order and the total of the decoded order amounts.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"strconv"
	"sync"
	"time"

	"github.com/bigfoot-go/bigfoot/bench/internal/peak"
)

// Product is a catalogue entry.
type Product struct {
	SKU   string   `json:"sku"`
	Name  string   `json:"name"`
	Price int64    `json:"price_cents"`
	Tags  []string `json:"tags,omitempty"`
}

// Line is one line of an order.
type Line struct {
	Product  *Product `json:"product"`
	Quantity int      `json:"qty"`
	Discount float64  `json:"discount,omitempty"`
}

// Address is a postal address.
type Address struct {
	Street string `json:"street"`
	City   string `json:"city"`
	Zip    string `json:"zip"`
}

// Order is the document that goes over the wire.
type Order struct {
	ID       int64             `json:"id"`
	Customer string            `json:"customer"`
	Placed   time.Time         `json:"placed"`
	Ship     Address           `json:"ship_to"`
	Lines    []Line            `json:"lines"`
	Meta     map[string]string `json:"meta,omitempty"`
	Paid     bool              `json:"paid"`
	Note     *string           `json:"note,omitempty"`
}

// Total returns the order's amount in cents.
func (o *Order) Total() int64 {
	var t int64
	for _, l := range o.Lines {
		t += int64(float64(l.Product.Price*int64(l.Quantity)) * (1 - l.Discount))
	}
	return t
}

var cities = []string{"Lisbon", "Oslo", "Kraków", "Nairobi", "Osaka", "Lima", "Québec", "Perth"}

func catalogue(n int) []*Product {
	ps := make([]*Product, n)
	for i := range ps {
		p := &Product{
			SKU:   fmt.Sprintf("SKU-%05d", i),
			Name:  fmt.Sprintf("Product %d \"deluxe\" <%s>", i, cities[i%len(cities)]),
			Price: int64(199 + i*37%10000),
		}
		for t := 0; t < i%4; t++ {
			p.Tags = append(p.Tags, "tag"+strconv.Itoa((i+t)%17))
		}
		ps[i] = p
	}
	return ps
}

// makeOrder builds order id deterministically from the catalogue.
func makeOrder(id int64, cat []*Product) *Order {
	s := uint64(id)*0x9e3779b97f4a7c15 + 1
	next := func() uint64 {
		s ^= s << 13
		s ^= s >> 7
		s ^= s << 17
		return s
	}
	o := &Order{
		ID:       id,
		Customer: "customer-" + strconv.FormatUint(next()%5000, 10),
		Placed:   time.Unix(1_700_000_000+int64(next()%10_000_000), 0).UTC(),
		Ship: Address{
			Street: strconv.FormatUint(next()%999+1, 10) + " Main Street",
			City:   cities[next()%uint64(len(cities))],
			Zip:    fmt.Sprintf("%05d", next()%100000),
		},
		Paid: next()%3 != 0,
	}
	nl := int(next()%6) + 1
	for i := 0; i < nl; i++ {
		l := Line{Product: cat[next()%uint64(len(cat))], Quantity: int(next()%9) + 1}
		if next()%4 == 0 {
			l.Discount = 0.125
		}
		o.Lines = append(o.Lines, l)
	}
	if next()%2 == 0 {
		o.Meta = map[string]string{"channel": "web", "campaign": "c" + strconv.FormatUint(next()%40, 10)}
	}
	if next()%5 == 0 {
		note := "leave at the door, ring twice"
		o.Note = &note
	}
	return o
}

func main() {
	size := flag.Int("size", 0, "orders (0: default)")
	short := flag.Bool("short", false, "tiny size, for tests")
	workers := flag.Int("workers", 4, "goroutines")
	flag.Parse()
	n := 60_000
	if *short {
		n = 2_000
	}
	if *size > 0 {
		n = *size
	}
	w := max(*workers, 1)
	cat := catalogue(2000)

	hashes := make([]uint64, w)
	totals := make([]int64, w)
	var wg sync.WaitGroup
	for k := 0; k < w; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := fnv.New64a()
			for id := k; id < n; id += w {
				in := makeOrder(int64(id), cat)
				data, err := json.Marshal(in)
				if err != nil {
					panic(err)
				}
				var out Order
				if err := json.Unmarshal(data, &out); err != nil {
					panic(err)
				}
				if out.ID != in.ID || !out.Placed.Equal(in.Placed) || len(out.Lines) != len(in.Lines) || out.Total() != in.Total() {
					panic(fmt.Sprintf("order %d changed in the round trip", id))
				}
				h.Reset()
				h.Write(data)
				hashes[k] += h.Sum64()
				totals[k] += out.Total()
			}
		}()
	}
	wg.Wait()

	var sum uint64
	var total int64
	for k := range hashes {
		sum += hashes[k]
		total += totals[k]
	}
	fmt.Printf("checksum: %016x%x\n", sum, total)
	peak.Report()
}
