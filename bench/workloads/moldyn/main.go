// Moldyn simulates argon-like particles in a periodic cubic box under a
// Lennard-Jones potential with a cutoff, integrating with velocity Verlet,
// as the JavaGrande moldyn kernel does. Particles are small structs of nine
// float64 fields (position, velocity, force). Each step, the pair
// interactions are split among goroutines (particle i belongs to worker
// i mod w, which handles the pairs (i, j>i)); each goroutine accumulates
// forces in its own array, and the arrays are then summed per particle in
// worker order, so the result does not depend on the schedule.
//
// It prints one line, "checksum: <hex>", a hash of the bits of the final
// positions, velocities and the potential energy.
package main

import (
	"flag"
	"fmt"
	"math"
	"sync"

	"github.com/bigfoot-go/bigfoot/bench/internal/peak"
)

// particle is one atom: position, velocity and the force on it.
type particle struct {
	x, y, z    float64
	vx, vy, vz float64
	fx, fy, fz float64
}

// force is one goroutine's contribution to the force on a particle.
type force struct{ x, y, z float64 }

const (
	dt     = 0.004
	cutoff = 2.5
	side   = 1.2 // lattice spacing: the density of a warm liquid
)

func main() {
	size := flag.Int("size", 0, "lattice cells per side; 4 particles per cell (0: default)")
	short := flag.Bool("short", false, "tiny size, for tests")
	steps := flag.Int("steps", 0, "time steps (0: default)")
	workers := flag.Int("workers", 4, "goroutines")
	flag.Parse()
	cells, nsteps := 8, 120
	if *short {
		cells, nsteps = 4, 6
	}
	if *size > 0 {
		cells = *size
	}
	if *steps > 0 {
		nsteps = *steps
	}
	w := max(*workers, 1)

	ps, box := lattice(cells)
	partial := make([][]force, w)
	for i := range partial {
		partial[i] = make([]force, len(ps))
	}
	energy := make([]float64, w)

	computeForces(ps, partial, energy, box)
	for s := 0; s < nsteps; s++ {
		parallel(w, len(ps), func(lo, hi int) {
			for i := lo; i < hi; i++ {
				p := &ps[i]
				p.vx += p.fx * dt / 2
				p.vy += p.fy * dt / 2
				p.vz += p.fz * dt / 2
				p.x = wrap(p.x+p.vx*dt, box)
				p.y = wrap(p.y+p.vy*dt, box)
				p.z = wrap(p.z+p.vz*dt, box)
			}
		})
		computeForces(ps, partial, energy, box)
		parallel(w, len(ps), func(lo, hi int) {
			for i := lo; i < hi; i++ {
				p := &ps[i]
				p.vx += p.fx * dt / 2
				p.vy += p.fy * dt / 2
				p.vz += p.fz * dt / 2
			}
		})
	}

	h := uint64(14695981039346656037)
	for i := range ps {
		p := &ps[i]
		for _, v := range [...]float64{p.x, p.y, p.z, p.vx, p.vy, p.vz} {
			h = (h ^ math.Float64bits(v)) * 1099511628211
		}
	}
	epot := 0.0
	for _, e := range energy {
		epot += e
	}
	h = (h ^ math.Float64bits(epot)) * 1099511628211
	fmt.Printf("checksum: %016x\n", h)
	peak.Report()
}

// lattice places 4 particles per cell of a face-centred cubic lattice and
// gives them small deterministic velocities with zero total momentum.
func lattice(cells int) ([]particle, float64) {
	box := float64(cells) * side
	offs := [4][3]float64{{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}}
	ps := make([]particle, 0, 4*cells*cells*cells)
	seed := uint64(42)
	next := func() float64 {
		seed = seed*6364136223846793005 + 1442695040888963407
		return float64(seed>>11)/(1<<53) - 0.5
	}
	for i := 0; i < cells; i++ {
		for j := 0; j < cells; j++ {
			for k := 0; k < cells; k++ {
				for _, o := range offs {
					ps = append(ps, particle{
						x: (float64(i) + o[0]) * side, y: (float64(j) + o[1]) * side, z: (float64(k) + o[2]) * side,
						vx: next(), vy: next(), vz: next(),
					})
				}
			}
		}
	}
	var mx, my, mz float64
	for _, p := range ps {
		mx, my, mz = mx+p.vx, my+p.vy, mz+p.vz
	}
	n := float64(len(ps))
	for i := range ps {
		ps[i].vx -= mx / n
		ps[i].vy -= my / n
		ps[i].vz -= mz / n
	}
	return ps, box
}

// computeForces sets the force fields of every particle and energy[k] to
// worker k's share of the potential energy.
func computeForces(ps []particle, partial [][]force, energy []float64, box float64) {
	w := len(partial)
	var wg sync.WaitGroup
	for k := 0; k < w; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			energy[k] = pairs(ps, k, w, partial[k], box)
		}()
	}
	wg.Wait()
	parallel(w, len(ps), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			var fx, fy, fz float64
			for k := range partial {
				f := &partial[k][i]
				fx, fy, fz = fx+f.x, fy+f.y, fz+f.z
			}
			p := &ps[i]
			p.fx, p.fy, p.fz = fx, fy, fz
		}
	})
}

// pairs accumulates into f the forces of the pairs (i, j>i) with
// i mod w == k and returns their potential energy.
func pairs(ps []particle, k, w int, f []force, box float64) float64 {
	clear(f)
	const rc2 = cutoff * cutoff
	epot := 0.0
	for i := k; i < len(ps); i += w {
		pi := &ps[i]
		var ax, ay, az float64
		for j := i + 1; j < len(ps); j++ {
			pj := &ps[j]
			dx := minImage(pi.x-pj.x, box)
			dy := minImage(pi.y-pj.y, box)
			dz := minImage(pi.z-pj.z, box)
			r2 := dx*dx + dy*dy + dz*dz
			if r2 >= rc2 {
				continue
			}
			ir2 := 1 / r2
			ir6 := ir2 * ir2 * ir2
			epot += 4 * ir6 * (ir6 - 1)
			s := 24 * ir2 * ir6 * (2*ir6 - 1)
			ax, ay, az = ax+s*dx, ay+s*dy, az+s*dz
			fj := &f[j]
			fj.x -= s * dx
			fj.y -= s * dy
			fj.z -= s * dz
		}
		fi := &f[i]
		fi.x += ax
		fi.y += ay
		fi.z += az
	}
	return epot
}

// minImage returns the periodic displacement of d closest to zero.
func minImage(d, box float64) float64 {
	if d > box/2 {
		return d - box
	}
	if d < -box/2 {
		return d + box
	}
	return d
}

// wrap maps x into [0, box).
func wrap(x, box float64) float64 {
	for x >= box {
		x -= box
	}
	for x < 0 {
		x += box
	}
	return x
}

// parallel splits [0, n) into w contiguous blocks and runs f on each in
// its own goroutine, returning when all are done.
func parallel(w, n int, f func(lo, hi int)) {
	var wg sync.WaitGroup
	for i := 0; i < w; i++ {
		lo, hi := i*n/w, (i+1)*n/w
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(lo, hi)
		}()
	}
	wg.Wait()
}
