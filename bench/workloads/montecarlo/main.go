// Montecarlo prices an Asian call option by simulating many paths of a
// stock price under geometric Brownian motion, in the spirit of the
// JavaGrande montecarlo kernel: every path allocates many small objects
// (one per time step) that are read back to compute the path's payoff.
// Paths are dealt out to goroutines in contiguous blocks; each path's
// random numbers come from its own generator seeded by the path index, so
// the results do not depend on the number of goroutines or the schedule.
//
// It prints one line, "checksum: <hex>", a hash of the bits of every
// path's payoff followed by their mean, summed in path order.
package main

import (
	"flag"
	"fmt"
	"math"
	"sync"

	"github.com/bigfoot-go/bigfoot/bench/internal/peak"
)

// step is one time step of a simulated path.
type step struct {
	price  float64
	ret    float64 // log return over the step
	shock  float64 // the standard normal draw behind it
	index  int
	parent *step // the previous step
}

// path is one simulated price trajectory.
type path struct {
	steps  []*step
	seed   uint64
	payoff float64
}

const (
	s0     = 100.0
	strike = 100.0
	rate   = 0.05
	sigma  = 0.2
	years  = 1.0
)

func main() {
	size := flag.Int("size", 0, "number of paths (0: default)")
	short := flag.Bool("short", false, "tiny size, for tests")
	workers := flag.Int("workers", 4, "goroutines")
	flag.Parse()
	npaths, nsteps := 40000, 250
	if *short {
		npaths = 400
	}
	if *size > 0 {
		npaths = *size
	}
	w := max(*workers, 1)

	payoffs := make([]float64, npaths)
	var wg sync.WaitGroup
	for k := 0; k < w; k++ {
		lo, hi := k*npaths/w, (k+1)*npaths/w
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := lo; i < hi; i++ {
				p := simulate(uint64(i), nsteps)
				payoffs[i] = p.payoff
			}
		}()
	}
	wg.Wait()

	h := uint64(14695981039346656037)
	sum := 0.0
	for _, v := range payoffs {
		h = (h ^ math.Float64bits(v)) * 1099511628211
		sum += v
	}
	mean := math.Exp(-rate*years) * sum / float64(npaths)
	h = (h ^ math.Float64bits(mean)) * 1099511628211
	fmt.Printf("checksum: %016x\n", h)
	peak.Report()
}

// simulate builds one path of n steps from its own seed and computes its
// payoff: the excess of the average price over the strike, if any.
func simulate(seed uint64, n int) *path {
	p := &path{seed: seed, steps: make([]*step, 0, n)}
	rng := splitmix{state: seed*0x9e3779b97f4a7c15 + 1}
	dt := years / float64(n)
	drift := (rate - sigma*sigma/2) * dt
	vol := sigma * math.Sqrt(dt)
	prev := &step{price: s0}
	for i := 0; i < n; i++ {
		z := rng.normal()
		r := drift + vol*z
		s := &step{price: prev.price * math.Exp(r), ret: r, shock: z, index: i, parent: prev}
		p.steps = append(p.steps, s)
		prev = s
	}
	avg := 0.0
	for _, s := range p.steps {
		avg += s.price
	}
	avg /= float64(n)
	p.payoff = math.Max(avg-strike, 0)
	return p
}

// splitmix is the SplitMix64 generator.
type splitmix struct{ state uint64 }

func (r *splitmix) next() uint64 {
	r.state += 0x9e3779b97f4a7c15
	z := r.state
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// uniform returns a number in (0, 1).
func (r *splitmix) uniform() float64 {
	return (float64(r.next()>>11) + 0.5) / (1 << 53)
}

// normal returns a standard normal draw (Box-Muller, one of the pair).
func (r *splitmix) normal() float64 {
	u, v := r.uniform(), r.uniform()
	return math.Sqrt(-2*math.Log(u)) * math.Cos(2*math.Pi*v)
}
