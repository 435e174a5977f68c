// Logparse is a log-analytics worker: goroutines parse access-log lines
// with one shared compiled regexp, and accumulate per-route statistics in
// a sync.Map of route to stats, each stats value guarded by its own mutex.
// Routes are normalized (numeric path segments replaced by ":id") with the
// strings package, and the status and latency fields parsed with strconv.
//
// It prints one line, "checksum: <hex>", folded from every route's request
// count, error count, byte total and latency total, in route order.
package main

import (
	"flag"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/bigfoot-go/bigfoot/bench/internal/peak"
)

// lineRE matches one line of the access log, e.g.
//
//	10.0.3.7 - alice [12/Mar/2026:10:04:59 +0000] "GET /api/v1/users/1234 HTTP/1.1" 200 5120 "-" "curl/8.1" 1532us
var lineRE = regexp.MustCompile(`^(\d+\.\d+\.\d+\.\d+) - (\S+) \[([^\]]+)\] "([A-Z]+) (\S+) HTTP/1\.[01]" (\d{3}) (\d+) "([^"]*)" "([^"]*)" (\d+)us$`)

// stats accumulates the requests of one route.
type stats struct {
	mu       sync.Mutex
	requests int64
	errors   int64
	bytes    int64
	micros   int64
}

var (
	methods = []string{"GET", "GET", "GET", "POST", "PUT", "DELETE"}
	paths   = []string{"/api/v1/users/%d", "/api/v1/users/%d/orders", "/api/v1/orders/%d/items/%d", "/static/app.js", "/healthz", "/api/v1/search", "/api/v2/carts/%d"}
	agents  = []string{"curl/8.1", "Mozilla/5.0 (X11; Linux x86_64)", "Go-http-client/1.1", "python-requests/2.31"}
	users   = []string{"-", "alice", "bob", "carol", "dave"}
	codes   = []int{200, 200, 200, 200, 201, 204, 301, 304, 400, 404, 500, 503}
)

// makeLine returns log line i.
func makeLine(i int) string {
	s := uint64(i)*0x9e3779b97f4a7c15 + 7
	next := func() uint64 {
		s ^= s << 13
		s ^= s >> 7
		s ^= s << 17
		return s
	}
	p := paths[next()%uint64(len(paths))]
	switch strings.Count(p, "%d") {
	case 1:
		p = fmt.Sprintf(p, next()%100000)
	case 2:
		p = fmt.Sprintf(p, next()%100000, next()%50)
	}
	return fmt.Sprintf(`10.0.%d.%d - %s [12/Mar/2026:10:%02d:%02d +0000] "%s %s HTTP/1.1" %d %d "-" "%s" %dus`,
		next()%256, next()%256, users[next()%uint64(len(users))], next()%60, next()%60,
		methods[next()%uint64(len(methods))], p, codes[next()%uint64(len(codes))], next()%65536,
		agents[next()%uint64(len(agents))], next()%20000)
}

// route normalizes a path: numeric segments become ":id".
func route(method, path string) string {
	segs := strings.Split(path, "/")
	for i, s := range segs {
		if _, err := strconv.Atoi(s); err == nil {
			segs[i] = ":id"
		}
	}
	return method + " " + strings.Join(segs, "/")
}

func main() {
	size := flag.Int("size", 0, "log lines (0: default)")
	short := flag.Bool("short", false, "tiny size, for tests")
	workers := flag.Int("workers", 4, "goroutines")
	flag.Parse()
	n := 300_000
	if *short {
		n = 3_000
	}
	if *size > 0 {
		n = *size
	}
	w := max(*workers, 1)

	lines := make(chan string, 256)
	go func() {
		for i := 0; i < n; i++ {
			lines <- makeLine(i)
		}
		close(lines)
	}()

	var routes sync.Map // string -> *stats
	var wg sync.WaitGroup
	for k := 0; k < w; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for line := range lines {
				m := lineRE.FindStringSubmatch(line)
				if m == nil {
					panic("logparse: no match: " + line)
				}
				status, _ := strconv.Atoi(m[6])
				size, _ := strconv.ParseInt(m[7], 10, 64)
				micros, _ := strconv.ParseInt(m[10], 10, 64)
				v, ok := routes.Load(route(m[4], m[5]))
				if !ok {
					v, _ = routes.LoadOrStore(route(m[4], m[5]), new(stats))
				}
				st := v.(*stats)
				st.mu.Lock()
				st.requests++
				if status >= 500 {
					st.errors++
				}
				st.bytes += size
				st.micros += micros
				st.mu.Unlock()
			}
		}()
	}
	wg.Wait()

	var keys []string
	routes.Range(func(k, _ any) bool {
		keys = append(keys, k.(string))
		return true
	})
	slices.Sort(keys)
	var sum uint64
	for _, k := range keys {
		v, _ := routes.Load(k)
		st := v.(*stats)
		for _, c := range k {
			sum = sum*31 + uint64(c)
		}
		sum = sum*1_000_003 + uint64(st.requests)
		sum = sum*1_000_003 + uint64(st.errors)
		sum = sum*1_000_003 + uint64(st.bytes)
		sum = sum*1_000_003 + uint64(st.micros)
	}
	fmt.Printf("checksum: %016x%x\n", sum, len(keys))
	peak.Report()
}
