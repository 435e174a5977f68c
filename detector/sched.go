package detector

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"time"
)

// Schedule perturbation (BIGFOOT_OPTIONS=sched=N), beyond go -race:
// before each synchronization operation and when a goroutine starts, the
// goroutine yields its processor with probability 1/N, so that runs
// explore interleavings the scheduler would rarely produce (a goroutine
// descheduled just before it publishes, or before it takes the lock that
// would have ordered it after a publication). A race needs its two
// accesses unordered in the run that is observed; yielding before an
// operation lets another goroutine's operation on the same object go
// first. Yielding after a lock is taken could not: the other goroutine
// would block on the lock, and the order stays the same. The decisions
// come from a generator seeded by sched_seed (printed at start, random if
// not given), one stream per goroutine (schedState), so that a run's
// decisions can be repeated; the interleaving itself still depends on
// the Go scheduler.
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
	fmt.Fprintf(stderr, "bigfoot: sched=%d sched_seed=%d (BIGFOOT_OPTIONS='sched=%d sched_seed=%d' repeats the decisions)\n",
		sched.n, sched.seed, sched.n, sched.seed)
}

// schedState is a goroutine's decision stream (xorshift64*). A goroutine
// created by an instrumented go statement takes its stream from its
// parent's at the go statement (fork), so that a seed repeats the
// decisions of a program that creates its goroutines in the same order,
// whatever goids the runtime hands out; a goroutine started elsewhere
// starts its stream lazily from the seed and its goid.
type schedState struct{ x uint64 }

// next advances the stream of g and returns its next value.
func (s *schedState) next(g *G) uint64 {
	if s.x == 0 {
		s.x = splitmix(sched.seed^splitmix(g.goid+1)) | 1
	}
	s.x ^= s.x >> 12
	s.x ^= s.x << 25
	s.x ^= s.x >> 27
	return s.x * 0x2545F4914F6CDD1D
}

// fork returns the stream of a goroutine that g creates.
func (s *schedState) fork(g *G) schedState {
	if sched.n == 0 {
		return schedState{}
	}
	return schedState{splitmix(s.next(g)) | 1}
}

// yield is a perturbation point: the hooks call it before the operation
// they model takes effect (before a lock is taken, a channel operation,
// an atomic operation, a Wait, a release), and Start at a goroutine's
// first statement. It never follows an acquire.
func (g *G) yield() {
	if sched.n != 0 {
		g.perturb()
	}
}

// perturb yields with probability 1/sched.n.
func (g *G) perturb() {
	if g.sched.next(g)%sched.n == 0 {
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
