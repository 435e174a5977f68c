// Metricsfmt is a metrics exporter: goroutines render samples in the
// Prometheus text format, each line built in a *bytes.Buffer taken from a
// sync.Pool, with fmt.Fprintf for the name and labels, strconv.Quote for
// label values and strconv.AppendFloat and AppendInt for the value and
// timestamp; then they parse the lines back with strings.Cut,
// strconv.Unquote and strconv.ParseFloat as a scraper would.
//
// It prints one line, "checksum: <hex>", folded from the rendered bytes'
// lengths and the parsed values.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/bigfoot-go/bigfoot/bench/internal/peak"
)

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

var (
	names    = []string{"http_requests_total", "http_request_duration_seconds", "go_goroutines", "process_cpu_seconds_total", "cache_hits", "queue_depth"}
	handlers = []string{"/", "/api/v1/users", "/api/v1/orders", "/healthz", `/search?q="go"`}
	methods  = []string{"GET", "POST", "PUT", "DELETE"}
)

// sample is one metric value.
type sample struct {
	name    string
	handler string
	method  string
	code    int
	value   float64
	ts      int64
}

func makeSample(i int) sample {
	s := uint64(i)*0x9e3779b97f4a7c15 + 13
	next := func() uint64 {
		s ^= s << 13
		s ^= s >> 7
		s ^= s << 17
		return s
	}
	v := float64(next()%1_000_000) / 997
	if next()%50 == 0 {
		v = math.Inf(1)
	}
	return sample{
		name:    names[next()%uint64(len(names))],
		handler: handlers[next()%uint64(len(handlers))],
		method:  methods[next()%uint64(len(methods))],
		code:    []int{200, 201, 404, 500}[next()%4],
		value:   v,
		ts:      1_700_000_000_000 + int64(i),
	}
}

// render writes s as one exposition line into a pooled buffer and returns
// the line as a string.
func render(s sample) string {
	b := bufPool.Get().(*bytes.Buffer)
	b.Reset()
	fmt.Fprintf(b, "%s{handler=%s,method=%q,code=\"%d\"} ", s.name, strconv.Quote(s.handler), s.method, s.code)
	var num [64]byte
	b.Write(strconv.AppendFloat(num[:0], s.value, 'g', -1, 64))
	b.WriteByte(' ')
	b.Write(strconv.AppendInt(num[:0], s.ts, 10))
	line := b.String()
	bufPool.Put(b)
	return line
}

// parse reads a line back: the value, the timestamp and the code label.
func parse(line string) (float64, int64, int) {
	head, rest, _ := strings.Cut(line, "} ")
	_, labels, _ := strings.Cut(head, "{")
	code := 0
	for labels != "" {
		var kv string
		// Label values are quoted and may contain commas; find the end of
		// the quoted value.
		eq := strings.IndexByte(labels, '=')
		end := eq + 1
		for end++; labels[end] != '"'; end++ {
			if labels[end] == '\\' {
				end++
			}
		}
		kv, labels = labels[:end+1], strings.TrimPrefix(labels[end+1:], ",")
		v, err := strconv.Unquote(kv[eq+1:])
		if err != nil {
			panic(err)
		}
		if kv[:eq] == "code" {
			code, _ = strconv.Atoi(v)
		}
	}
	val, ts, _ := strings.Cut(rest, " ")
	f, err := strconv.ParseFloat(val, 64)
	if err != nil {
		panic(err)
	}
	t, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		panic(err)
	}
	return f, t, code
}

func main() {
	size := flag.Int("size", 0, "samples (0: default)")
	short := flag.Bool("short", false, "tiny size, for tests")
	workers := flag.Int("workers", 4, "goroutines")
	flag.Parse()
	n := 1_000_000
	if *short {
		n = 10_000
	}
	if *size > 0 {
		n = *size
	}
	w := max(*workers, 1)

	sums := make([]uint64, w)
	var wg sync.WaitGroup
	for k := 0; k < w; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var sum uint64
			for i := k; i < n; i += w {
				s := makeSample(i)
				line := render(s)
				v, ts, code := parse(line)
				if ts != s.ts || code != s.code || v != s.value {
					panic("metricsfmt: " + line)
				}
				sum += uint64(len(line))*1_000_003 + math.Float64bits(v) + uint64(code)
			}
			sums[k] = sum
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
