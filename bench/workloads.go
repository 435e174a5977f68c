package bench

import "fmt"

// A Workload is one benchmark program, a main package under bench/workloads.
type Workload struct {
	Name    string // directory name under bench/workloads
	Pattern string // the access pattern it stands for
}

// Workloads lists the benchmark programs in the order of the tables: first
// the analogues of the JavaGrande kernels the paper measures, then
// Go-native patterns.
var Workloads = []Workload{
	{"crypt", "block-partitioned byte array, Feistel cipher (IDEA-like rounds)"},
	{"series", "compute-bound Fourier series, few shared accesses"},
	{"lufact", "LU factorization: triangular loops, rows partitioned, barrier per pivot"},
	{"moldyn", "molecular dynamics over 9-field structs, per-goroutine force arrays"},
	{"montecarlo", "Monte Carlo paths: many small objects per path"},
	{"sparse", "sparse matrix-vector product (CSR): indirect indexing"},
	{"sor", "red-black SOR: strided stencil, barrier per colour"},
	{"raytracer", "ray tracer: small vector structs, field groups"},
	{"cache", "sync.Mutex-guarded map cache"},
	{"pipeline", "three-stage channel pipeline"},
	{"workerpool", "worker pool: jobs over a channel, results by index"},
	{"mergesort", "parallel merge sort: goroutines on halves"},
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
