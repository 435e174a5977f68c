// Command groups exercises field-group checks (-mode=bigfoot): which
// accesses of several fields of one object, or of adjacent elements of
// one array or slice at constant indices, become one group check at the
// group's last access, and which keep their own checks. It is race-free
// and deterministic; every function runs on shared objects.
package main

import (
	"fmt"
	"math"
	"sync"
)

type vec struct{ x, y, z float64 }

type particle struct {
	pos  vec
	vel  vec
	mass float64
	id   int32
	live bool // padding follows
	n    int64
}

type base struct{ a, b int }

type outer struct {
	base
	c int
}

type area interface{ area() float64 }

type sq struct{ s float64 }

func (q sq) area() float64 { return q.s * q.s }

type pair[T any] struct{ l, r T }

// fig31 is the thesis's Figure 3.1: one write check of x, y and z.
func fig31(p *vec, a, b float64) {
	p.x = a
	p.y = b
	p.z = p.x + p.y
}

// scale: read-modify-writes of three fields: one write group.
func (v *vec) scale(k float64) {
	v.x *= k
	v.y *= k
	v.z *= k
}

// energy reads vel and mass (adjacent) through p; the calls between
// (vec.dot, math.Sqrt) are simple: one read group.
func energy(p *particle) float64 {
	v := p.vel
	s := math.Sqrt(v.dot(v))
	return 0.5 * p.mass * s * s
}

func (v vec) dot(w vec) float64 { return v.x*w.x + v.y*w.y + v.z*w.z }

// padded: id and live are adjacent; n lies after padding: group id..live,
// n alone.
func padded(p *particle, i int32) {
	p.id = i
	p.live = true
	p.n = int64(i)
}

// locked: a release between the fields: no group.
func locked(p *vec, mu *sync.Mutex) {
	p.x = 1
	mu.Lock()
	p.y = 2
	mu.Unlock()
}

// divides: an integer division that may panic between the fields: no
// group (a recovered panic would leave p.x unchecked).
func divides(p *particle, d int32) {
	p.id = 10
	p.live = 10/d > 0
}

// dynamic: an interface call between the fields: no group.
func dynamic(p *vec, a area) {
	p.x = 1
	p.y = a.area()
}

// promoted: fields of an embedded struct reached by promotion: the group
// is emitted only where the anchor names its field directly.
func promoted(o *outer) {
	o.a = 1
	o.b = 2
	o.base.a = 3
	o.base.b = 4
}

// generic structs are not grouped (unsafe.Offsetof is not constant).
func generic(p *pair[int]) {
	p.l = 1
	p.r = 2
}

// recovered: the panic is recovered; fields written before and after it
// are in different blocks.
func recovered(p *vec, xs []float64) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("recovered: %v", r)
		}
	}()
	p.x = 1
	p.y = xs[3]
	p.z = 3
	return nil
}

// le64 is encoding/binary's LittleEndian.Uint64: the hint _ = b[7]
// proves the indices within bounds: one read check of b[0..7].
func le64(b []byte) uint64 {
	_ = b[7] // bounds check hint to compiler; see golang.org/issue/14808
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// putLE32 is LittleEndian.PutUint32: one write check of b[0..3], which
// covers the hint's read.
func putLE32(b []byte, v uint32) {
	_ = b[3] // early bounds check to guarantee safety of writes below
	b[0] = byte(v)
	b[1] = byte(v >> 8)
	b[2] = byte(v >> 16)
	b[3] = byte(v >> 24)
}

// le16 has no hint: b[1]'s index may panic after b[0] is read: no group.
func le16(b []byte) uint16 {
	return uint16(b[0]) | uint16(b[1])<<8
}

type digest struct {
	n int
	s [4]uint32
}

// mixState reads and writes the elements of an array field: a read group
// s[0..3] and a write group s[0..3] (constant indices of an array are
// within bounds).
func mixState(d *digest) {
	a, b, c, e := d.s[0], d.s[1], d.s[2], d.s[3]
	d.s[0], d.s[1], d.s[2], d.s[3] = b, c, e, a^b
}

func main() {
	var wg sync.WaitGroup
	var mu sync.Mutex
	vs := make([]vec, 4)
	ps := make([]particle, 4)
	os := make([]outer, 4)
	gs := make([]pair[int], 4)
	es := make([]float64, 4)
	bufs := make([][]byte, 4)
	ds := make([]digest, 4)
	sums := make([]uint64, 4)
	for i := range vs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			fig31(&vs[i], float64(i), 2)
			vs[i].scale(2)
			padded(&ps[i], int32(i))
			ps[i].vel = vs[i]
			ps[i].mass = 2
			e := energy(&ps[i])
			locked(&vs[i], &mu)
			divides(&ps[i], 3)
			dynamic(&vs[i], sq{3})
			promoted(&os[i])
			generic(&gs[i])
			err := recovered(&vs[i], []float64{1})
			es[i] = e
			bufs[i] = make([]byte, 8)
			putLE32(bufs[i], uint32(i)*0x01020304)
			putLE32(bufs[i][4:], 0xdeadbeef)
			ds[i].s = [4]uint32{1, 2, 3, uint32(i)}
			mixState(&ds[i])
			sums[i] = le64(bufs[i]) + uint64(le16(bufs[i][6:])) + uint64(ds[i].s[3])
			if err != nil && i == 0 {
				fmt.Println(err)
			}
		}(i)
	}
	wg.Wait()
	sum := 0.0
	for _, e := range es {
		sum += e
	}
	fmt.Println(vs)
	fmt.Println(ps)
	fmt.Println(os, gs, sum, sums)
}
