// Command inline calls every check that emitted code calls per access, so
// that TestInlining can see which ones the compiler inlines.
package main

import (
	"unsafe"

	__bf "github.com/bigfoot-go/bigfoot/detector"
)

type point struct{ x, y int }

func sum(a []int, pt *point) int {
	g := __bf.Cur()
	f := g.Footprint(1, false)
	s := 0
	for i := range a {
		s += *__bf.F(f, &a[i], 2)
	}
	for i := range a {
		if i%2 == 0 { // FM, which is not inlined, leaves a on the stack too
			s += *__bf.FM(f, &a[i], 7)
		} else {
			s += *__bf.FM(f, &a[i], 8)
		}
	}
	for i := range a {
		s += __bf.Load(f, &a[i], i+1) + __bf.LoadGrow(f, &a[i], i+1)
	}
	*__bf.W(g, &a[0], 3) = s
	s += *__bf.R(g, &a[1], 4)
	s += *__bf.RG(g, &pt.x, unsafe.Offsetof(pt.x), unsafe.Offsetof(pt.x), unsafe.Offsetof(pt.y)+unsafe.Sizeof(pt.y), 5)
	*__bf.WG(g, &pt.y, unsafe.Offsetof(pt.y), unsafe.Offsetof(pt.x), unsafe.Offsetof(pt.y)+unsafe.Sizeof(pt.y), 6) = s
	g.PopFootprints(f)
	return s
}

// Getters as the instrumenter writes them (self-finding checks, no
// prologue), which must stay inlinable as in a plain build.

func (p *point) getX() int { return *__bf.R1(&p.x, 9) }

func (p *point) setX(v int) { *__bf.W1(&p.x, 11) = v }

func (p *point) both() int {
	return *__bf.RG1(&p.x, unsafe.Offsetof(p.x), unsafe.Offsetof(p.x), unsafe.Offsetof(p.y)+unsafe.Sizeof(p.y), 12)
}

func (p *point) setBoth(v int) {
	*__bf.WG1(&p.y, unsafe.Offsetof(p.y), unsafe.Offsetof(p.x), unsafe.Offsetof(p.y)+unsafe.Sizeof(p.y), 13) = v
}

func text(b []byte) string { return string(__bf.ReadAll1(14, b)) }

func zero(b []byte) { clear(__bf.WriteAll1(15, b)) }

func main() {
	pt := new(point)
	pt.setX(1)
	pt.setBoth(2)
	b := []byte("ab")
	zero(b)
	println(sum(make([]int, 10), pt), pt.getX(), pt.both(), text(b))
}
