// Raytracer renders a scene of spheres lit by point lights, with shadows
// and mirror reflections, as the JavaGrande raytracer kernel does. Vectors,
// rays, hits and materials are small structs whose fields are read
// together (field groups). Image rows are dealt out to goroutines
// round-robin; each pixel is written by one goroutine.
//
// It prints one line, "checksum: <hex>", a hash of the 8-bit colour of
// every pixel in raster order.
package main

import (
	"flag"
	"fmt"
	"math"
	"sync"

	"github.com/bigfoot-go/bigfoot/bench/internal/peak"
)

// vec is a point, direction or colour.
type vec struct{ x, y, z float64 }

func (a vec) add(b vec) vec       { return vec{a.x + b.x, a.y + b.y, a.z + b.z} }
func (a vec) sub(b vec) vec       { return vec{a.x - b.x, a.y - b.y, a.z - b.z} }
func (a vec) mul(b vec) vec       { return vec{a.x * b.x, a.y * b.y, a.z * b.z} }
func (a vec) scale(s float64) vec { return vec{a.x * s, a.y * s, a.z * s} }
func (a vec) dot(b vec) float64   { return a.x*b.x + a.y*b.y + a.z*b.z }
func (a vec) norm() vec           { return a.scale(1 / math.Sqrt(a.dot(a))) }

// ray is a half-line from orig in direction dir (a unit vector).
type ray struct{ orig, dir vec }

// material is how a surface reflects light.
type material struct {
	colour   vec
	diffuse  float64
	specular float64
	shine    float64
	mirror   float64
}

// sphere is an object of the scene.
type sphere struct {
	centre vec
	radius float64
	mat    material
}

// light is a point light.
type light struct {
	pos    vec
	colour vec
}

// hit describes the nearest intersection of a ray with the scene.
type hit struct {
	t      float64
	point  vec
	normal vec
	obj    *sphere
}

// scene is everything the tracer reads.
type scene struct {
	objs    []sphere
	lights  []light
	ambient vec
}

const maxDepth = 4

func main() {
	size := flag.Int("size", 0, "image side in pixels (0: default)")
	short := flag.Bool("short", false, "tiny size, for tests")
	workers := flag.Int("workers", 4, "goroutines")
	flag.Parse()
	n := 1500
	if *short {
		n = 96
	}
	if *size > 0 {
		n = *size
	}
	w := max(*workers, 1)

	sc := build()
	img := make([][3]uint8, n*n)
	var wg sync.WaitGroup
	for k := 0; k < w; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for y := k; y < n; y += w {
				for x := 0; x < n; x++ {
					img[y*n+x] = pixel(sc, x, y, n)
				}
			}
		}()
	}
	wg.Wait()

	h := uint64(14695981039346656037)
	for _, p := range img {
		for _, c := range p {
			h = (h ^ uint64(c)) * 1099511628211
		}
	}
	fmt.Printf("checksum: %016x\n", h)
	peak.Report()
}

// build makes a grid of spheres of varied materials above a large floor
// sphere, lit by three lights.
func build() *scene {
	sc := &scene{ambient: vec{0.05, 0.05, 0.05}}
	sc.objs = append(sc.objs, sphere{
		centre: vec{0, -1000, 0}, radius: 999,
		mat: material{colour: vec{0.6, 0.6, 0.6}, diffuse: 0.8, specular: 0.1, shine: 10, mirror: 0.2},
	})
	for i := 0; i < 5; i++ {
		for j := 0; j < 5; j++ {
			c := vec{0.2 + 0.15*float64(i), 0.3 + 0.1*float64(j), 0.9 - 0.15*float64(i)}
			sc.objs = append(sc.objs, sphere{
				centre: vec{float64(i-2) * 1.1, -0.6 + 0.2*float64((i+j)%3), 3 + float64(j)*1.1},
				radius: 0.4,
				mat:    material{colour: c, diffuse: 0.7, specular: 0.5, shine: 30, mirror: 0.1 * float64((i*j)%4)},
			})
		}
	}
	sc.lights = []light{
		{pos: vec{-5, 5, -2}, colour: vec{0.7, 0.7, 0.7}},
		{pos: vec{5, 8, 0}, colour: vec{0.5, 0.45, 0.4}},
		{pos: vec{0, 3, 10}, colour: vec{0.2, 0.25, 0.3}},
	}
	return sc
}

// pixel traces the ray through pixel (x, y) of an n×n image.
func pixel(sc *scene, x, y, n int) [3]uint8 {
	u := (float64(x)+0.5)/float64(n)*2 - 1
	v := 1 - (float64(y)+0.5)/float64(n)*2
	r := ray{orig: vec{0, 0.5, -3}, dir: vec{u, v - 0.2, 1.5}.norm()}
	c := trace(sc, r, 0)
	return [3]uint8{quant(c.x), quant(c.y), quant(c.z)}
}

func quant(c float64) uint8 {
	return uint8(math.Min(math.Max(c, 0), 1)*255 + 0.5)
}

// trace returns the colour seen along r.
func trace(sc *scene, r ray, depth int) vec {
	h, ok := nearest(sc, r)
	if !ok {
		return vec{0.1, 0.15, 0.3}.scale(1 - r.dir.y*0.5)
	}
	m := &h.obj.mat
	c := sc.ambient.mul(m.colour)
	for i := range sc.lights {
		l := &sc.lights[i]
		toL := l.pos.sub(h.point)
		dist := math.Sqrt(toL.dot(toL))
		dir := toL.scale(1 / dist)
		if shadowed(sc, ray{h.point.add(h.normal.scale(1e-6)), dir}, dist) {
			continue
		}
		if d := h.normal.dot(dir); d > 0 {
			c = c.add(m.colour.mul(l.colour).scale(m.diffuse * d))
		}
		refl := dir.sub(h.normal.scale(2 * h.normal.dot(dir)))
		if s := refl.dot(r.dir); s > 0 {
			c = c.add(l.colour.scale(m.specular * math.Pow(s, m.shine)))
		}
	}
	if m.mirror > 0 && depth < maxDepth {
		d := r.dir.sub(h.normal.scale(2 * h.normal.dot(r.dir)))
		rc := trace(sc, ray{h.point.add(h.normal.scale(1e-6)), d}, depth+1)
		c = c.scale(1 - m.mirror).add(rc.scale(m.mirror))
	}
	return c
}

// nearest finds the closest intersection of r with the scene.
func nearest(sc *scene, r ray) (hit, bool) {
	best := hit{t: math.Inf(1)}
	for i := range sc.objs {
		s := &sc.objs[i]
		if t, ok := intersect(s, r); ok && t < best.t {
			best.t, best.obj = t, s
		}
	}
	if best.obj == nil {
		return best, false
	}
	best.point = r.orig.add(r.dir.scale(best.t))
	best.normal = best.point.sub(best.obj.centre).norm()
	return best, true
}

// shadowed reports whether anything lies on r closer than dist.
func shadowed(sc *scene, r ray, dist float64) bool {
	for i := range sc.objs {
		if t, ok := intersect(&sc.objs[i], r); ok && t < dist {
			return true
		}
	}
	return false
}

// intersect returns the smallest positive t with |orig + t·dir - centre| = radius.
func intersect(s *sphere, r ray) (float64, bool) {
	oc := r.orig.sub(s.centre)
	b := oc.dot(r.dir)
	c := oc.dot(oc) - s.radius*s.radius
	disc := b*b - c
	if disc < 0 {
		return 0, false
	}
	sq := math.Sqrt(disc)
	if t := -b - sq; t > 1e-9 {
		return t, true
	}
	if t := -b + sq; t > 1e-9 {
		return t, true
	}
	return 0, false
}
