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

func main() { println(sum(make([]int, 10), new(point))) }
