// Tmplpage is a web front end's rendering path: goroutines render product
// listing pages with one shared html/template (a layout, a nested
// template per product, range, if, printf, a custom function and
// contextual escaping of text, attributes and URLs) into a bytes.Buffer
// each, and hash the output.
//
// It prints one line, "checksum: <hex>", the sum of the FNV-1a hashes of
// every rendered page and their total length.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"hash/fnv"
	"html/template"
	"strings"
	"sync"

	"github.com/bigfoot-go/bigfoot/bench/internal/peak"
)

const page = `{{define "item"}}<li class="item{{if .Sale}} sale{{end}}" data-id="{{.ID}}">
  <a href="/p/{{.Slug}}?ref={{$.Ref}}">{{.Name}}</a>
  <span class="price">{{money .Cents}}</span>{{if .Sale}} <em>-{{.Off}}%</em>{{end}}
  {{range .Tags}}<span class="tag">{{.}}</span>{{end}}
</li>{{end}}<!DOCTYPE html>
<html><head><title>{{.Title}} - page {{.Page}}</title></head>
<body>
<h1>{{.Title}}</h1>
<p>Hello, {{.User}}! You have {{len .Cart}} items in your cart.</p>
<ul>{{range .Items}}{{template "item" .}}{{end}}</ul>
{{with .Notice}}<div class="notice">{{.}}</div>{{end}}
<footer>{{printf "%d of %d" .Page .Pages}}</footer>
</body></html>`

// Item is a product on a page.
type Item struct {
	ID    int
	Slug  string
	Name  string
	Cents int
	Sale  bool
	Off   int
	Tags  []string
	Ref   string
}

// Page is the data of one rendered page.
type Page struct {
	Title  string
	User   string
	Ref    string
	Page   int
	Pages  int
	Items  []Item
	Cart   []int
	Notice string
}

var tmpl = template.Must(template.New("page").Funcs(template.FuncMap{
	"money": func(cents int) string { return fmt.Sprintf("$%d.%02d", cents/100, cents%100) },
}).Parse(page))

var adjectives = []string{"Red", "Small", "Vintage", "Smart", "Organic", "<Bold>", "O'Brien's", "Fast & Light"}
var nouns = []string{"Lamp", "Chair", "Kettle", "Backpack", "Notebook", "Speaker", "Sneaker", "Mug"}

// makePage builds the data of page i.
func makePage(i int) *Page {
	s := uint64(i)*0x9e3779b97f4a7c15 + 5
	next := func() uint64 {
		s ^= s << 13
		s ^= s >> 7
		s ^= s << 17
		return s
	}
	p := &Page{
		Title: "Catalogue",
		User:  fmt.Sprintf("user<%d>", next()%1000),
		Ref:   "q=" + adjectives[next()%8] + "&x=1",
		Page:  i%40 + 1,
		Pages: 40,
		Cart:  make([]int, next()%7),
	}
	if next()%4 == 0 {
		p.Notice = "Free shipping on orders over $50 \u2014 \"today\" only!"
	}
	for j := 0; j < 24; j++ {
		name := adjectives[next()%8] + " " + nouns[next()%8]
		it := Item{
			ID:    int(next() % 1_000_000),
			Slug:  strings.ToLower(strings.ReplaceAll(name, " ", "-")),
			Name:  name,
			Cents: int(next() % 100_000),
			Sale:  next()%3 == 0,
			Off:   int(next()%50) + 5,
			Ref:   p.Ref,
		}
		for t := uint64(0); t < next()%3; t++ {
			it.Tags = append(it.Tags, nouns[next()%8])
		}
		p.Items = append(p.Items, it)
	}
	return p
}

func main() {
	size := flag.Int("size", 0, "pages (0: default)")
	short := flag.Bool("short", false, "tiny size, for tests")
	workers := flag.Int("workers", 4, "goroutines")
	flag.Parse()
	n := 5_000
	if *short {
		n = 400
	}
	if *size > 0 {
		n = *size
	}
	w := max(*workers, 1)

	sums := make([]uint64, w)
	lens := make([]int, w)
	var wg sync.WaitGroup
	for k := 0; k < w; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf bytes.Buffer
			h := fnv.New64a()
			for i := k; i < n; i += w {
				buf.Reset()
				if err := tmpl.Execute(&buf, makePage(i)); err != nil {
					panic(err)
				}
				h.Reset()
				h.Write(buf.Bytes())
				sums[k] += h.Sum64()
				lens[k] += buf.Len()
			}
		}()
	}
	wg.Wait()

	var sum uint64
	var total int
	for k := range sums {
		sum += sums[k]
		total += lens[k]
	}
	fmt.Printf("checksum: %016x%x\n", sum, total)
	peak.Report()
}
