package bench

import "fmt"

// A Workload is one benchmark program, a main package under bench/workloads.
type Workload struct {
	Name    string // directory name under bench/workloads
	Pattern string // the access pattern it stands for
	// Quick is the workload's -size for about an eighth of its default
	// work (bigfoot bench -quick): a full comparison then fits in well
	// under an hour on 2 cores even where fasttrack costs 50-100x.
	Quick int
}

// Workloads lists the benchmark programs in the order of the tables: first
// the analogues of the JavaGrande kernels the paper measures, then
// Go-native patterns.
var Workloads = []Workload{
	{"crypt", "block-partitioned byte array, Feistel cipher (IDEA-like rounds)", 3},
	{"series", "compute-bound Fourier series, few shared accesses", 1250},
	{"lufact", "LU factorization: triangular loops, rows partitioned, barrier per pivot", 800},
	{"moldyn", "molecular dynamics over 9-field structs, per-goroutine force arrays", 4},
	{"montecarlo", "Monte Carlo paths: many small objects per path", 5000},
	{"sparse", "sparse matrix-vector product (CSR): indirect indexing", 12500},
	{"sor", "red-black SOR: strided stencil, barrier per colour", 354},
	{"raytracer", "ray tracer: small vector structs, field groups", 530},
	{"cache", "sync.Mutex-guarded map cache", 75000},
	{"pipeline", "three-stage channel pipeline", 375000},
	{"workerpool", "worker pool: jobs over a channel, results by index", 31250},
	{"mergesort", "parallel merge sort: goroutines on halves", 1000000},
	{"blocks", "block-partitioned closures over 4 arrays of 4M elements (uint32, byte), histogram, compaction, 2-D row bands; barrier per pass", 512 << 10},
	{"shardmap", "read-mostly map cache sharded under sync.RWMutex", 250000},
	{"atomics", "a million counters accessed with atomic operations only: a sync object per word", 1 << 17},

	// Service-shaped programs, heavy on the standard library, written as a
	// Go service would be and frozen before any optimization aimed at
	// them (issue 30).
	{"jsonrt", "encoding/json round trips of nested order structs", 7500},
	{"logparse", "regexp access-log parsing, per-route stats in a sync.Map", 37500},
	{"gzipsha", "compress/gzip and crypto/sha256 of 64 KiB blocks, verified round trip", 20},
	{"tmplpage", "html/template pages rendered into per-goroutine buffers", 625},
	{"httpapi", "net/http ServeMux handlers through httptest, JSON bodies, RWMutex store", 3750},
	{"invindex", "bufio.Scanner tokenizing into a sharded inverted index, then queries", 500},
	{"sortrec", "slices.SortFunc, sort.Slice and sort.Stable views of 50k records", 5},
	{"metricsfmt", "fmt and strconv formatting into sync.Pool buffers, parsed back", 125000},
	{"inventory", "maps of struct values under region mutexes, per-goroutine maps", 50000},
	{"bintrees", "short-lived pointer trees: BST insert/delete/walk, complete trees", 1500},
	{"dijkstra", "container/heap Dijkstra on a shared graph, fresh maps per query", 60},
	{"fanout", "fan-out/fan-in per request under context.WithTimeout, semaphore", 2500},
}

// PackagePath returns the package pattern of the named workload, relative
// to the module root: ./bench/workloads/<name>.
func PackagePath(name string) string { return "./bench/workloads/" + name }

// lookup returns the workloads with the given names, in the order given, or
// all of them if names is empty.
func lookup(names []string) ([]Workload, error) {
	if len(names) == 0 {
		return append([]Workload(nil), Workloads...), nil
	}
	var ws []Workload
	seen := make(map[string]bool)
	for _, n := range names {
		if seen[n] {
			continue
		}
		seen[n] = true
		found := false
		for _, w := range Workloads {
			if w.Name == n {
				ws = append(ws, w)
				found = true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("unknown workload %q", n)
		}
	}
	return ws, nil
}
