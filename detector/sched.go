package detector

import (
	"fmt"
	"os"
	"runtime"
	"sync/atomic"
	"time"
)

// Schedule perturbation (BIGFOOT_OPTIONS=sched=N), beyond go -race: at
// each synchronization operation a goroutine yields its processor with
// probability 1/N, so that runs explore interleavings the scheduler
// would rarely produce (a goroutine descheduled just before it publishes,
// or just after it acquires). A race needs its two accesses unordered in
// the run that is observed; yielding at synchronization points changes
// which operations happen first. The decisions come from a generator
// seeded by sched_seed (printed at start, random if not given), one
// stream per goroutine derived from its goid, so that a run's decisions
// can be repeated; the interleaving itself still depends on the Go
// scheduler.
var sched struct {
	n    uint64 // yield with probability 1/n; 0: off
	seed uint64
}

// startSched prints the settings once options are parsed.
func startSched() {
	if sched.n == 0 {
		return
	}
	if sched.seed == 0 {
		sched.seed = uint64(time.Now().UnixNano()) | 1
	}
	fmt.Fprintf(os.Stderr, "bigfoot: sched=%d sched_seed=%d (BIGFOOT_OPTIONS='sched=%d sched_seed=%d' repeats the decisions)\n",
		sched.n, sched.seed, sched.n, sched.seed)
}

// schedState is a goroutine's decision stream (xorshift64*), started
// lazily from the seed and the goid.
type schedState struct{ x uint64 }

// perturb yields with probability 1/sched.n.
func (g *G) perturb() {
	s := &g.sched
	if s.x == 0 {
		s.x = splitmix(sched.seed ^ splitmix(g.goid+1))
		if s.x == 0 {
			s.x = 1
		}
	}
	s.x ^= s.x >> 12
	s.x ^= s.x << 25
	s.x ^= s.x >> 27
	if (s.x*0x2545F4914F6CDD1D)%sched.n == 0 {
		schedYields.Add(1)
		runtime.Gosched()
	}
}

// schedYields counts the yields, for the stats line.
var schedYields atomic.Int64

// splitmix is SplitMix64's finalizer: a well-mixed function of x.
func splitmix(x uint64) uint64 {
	x += 0x9E3779B97F4A7C15
	x = (x ^ x>>30) * 0xBF58476D1CE4E5B9
	x = (x ^ x>>27) * 0x94D049BB133111EB
	return x ^ x>>31
}
