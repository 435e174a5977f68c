package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestAtomicSyncObjectsVersioned: the sync objects of atomically accessed
// heap words are proven to be their objects' by the runtime's allocation
// versions, with no weak pointer each. A weak pointer is a special record
// in its span's sorted list, so making one per word of a large slice cost
// the square of the words (issue 29: 524,288 atomic loads of one slice
// took minutes). The program accesses 4,096 words of one slice and a
// mutex in the heap.
func TestAtomicSyncObjectsVersioned(t *testing.T) {
	dir, bin := buildUserMain(t, `package main

import (
	"fmt"
	"sync"
	"sync/atomic"
)

func main() {
	s := make([]int64, 4096)
	for i := range s {
		atomic.AddInt64(&s[i], int64(i))
	}
	mu := new(sync.Mutex)
	mu.Lock()
	var sum int64
	for i := range s {
		sum += atomic.LoadInt64(&s[i])
	}
	mu.Unlock()
	fmt.Println(sum)
}
`)
	r := run(t, dir, []string{"BIGFOOT_OPTIONS=stats=1"}, bin)
	m := regexp.MustCompile(` ident_proof=(\w+) sync_weak=(\d+)`).FindStringSubmatch(r.stderr)
	if r.code != 0 || r.stdout != "8386560\n" || m == nil {
		t.Fatalf("want 8386560 and statistics with sync_weak, got %v", r)
	}
	if m[1] != "version" || m[2] != "0" {
		t.Errorf("ident_proof=%s sync_weak=%s, want version and no weak pointer", m[1], m[2])
	}
}

// TestAtomicPublishAcrossReuse runs testdata/reuse/atomicpub, records
// published through atomic flags round after round, each round's records
// in the memory of the last's after a collection, in each mode of modes: no run
// may report a race. A clock of an atomically accessed word that the
// detector dropped or reset while its object lived (its proof, the
// allocation version, misread) would lose the flag's edge.
func TestAtomicPublishAcrossReuse(t *testing.T) {
	runs := 5
	if testing.Short() {
		runs = 2
	}
	wantOutputEveryRun(t, "atomicpub", runs, "sum 302030848")
}

// TestAtomicOrdersAsGoRace runs testdata/racy/atomicorder built by go
// build -race and by bigfoot in each mode of modes: both report the same
// three races, each between the lines marked WRITE and READ of one
// variable (a load releases nothing, a store acquires nothing, a failed
// CompareAndSwap releases nothing), and none on the atomic variable that
// goroutines nothing orders load, store and swap (atomics never race
// with each other). Before, every atomic operation acquired and released,
// and bigfoot reported one of the three.
func TestAtomicOrdersAsGoRace(t *testing.T) {
	if bigfootBin == "" {
		t.Skip("end-to-end test; skipped with -short")
	}
	root, _ := filepath.Abs("../../testdata/racy")
	src, err := os.ReadFile(filepath.Join(root, "atomicorder", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	lines := map[string]int{}
	for i, l := range strings.Split(string(src), "\n") {
		if _, mark, ok := strings.Cut(l, "// "); ok && (strings.HasPrefix(mark, "WRITE ") || strings.HasPrefix(mark, "READ ")) {
			lines[mark] = i + 1
		}
	}
	if len(lines) != 6 {
		t.Fatalf("marked lines: %v, want WRITE and READ of x1, x2, x3", lines)
	}
	builds := [][]string{{"go", "build", "-race"}}
	for _, mode := range modes {
		builds = append(builds, []string{bigfootBin, "build", "-mode=" + mode})
	}
	for _, build := range builds {
		bin := filepath.Join(t.TempDir(), "atomicorder")
		if r := run(t, root, nil, build[0], append(build[1:], "-o", bin, "./atomicorder")...); r.code != 0 {
			t.Fatalf("%s: %v", strings.Join(build, " "), r)
		}
		r := run(t, root, nil, bin)
		if r.code != 66 || !strings.Contains(r.stderr, "Found 3 data race(s)") {
			t.Errorf("%s: want three races and exit status 66; got %v", strings.Join(build, " "), r)
			continue
		}
		for mark, line := range lines {
			if at := fmt.Sprintf("atomicorder/main.go:%d", line); !strings.Contains(r.stderr, at) {
				t.Errorf("%s: no report names %s (%s):\n%s", strings.Join(build, " "), at, mark, r.stderr)
			}
		}
	}
}
