package main

import (
	"regexp"
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
