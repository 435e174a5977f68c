package main

import (
	"fmt"
	"strings"
)

type point struct{ x, y int }

type node struct {
	val  int
	next *node
	arr  [4]int
	pt   point
}

var (
	counter int
	table   = map[string]int{"a": 1}
	global  point
	gslice  = []int{1, 2, 3}
)

// accesses exercises reads and writes of shared and local memory.
func accesses() {
	n := &node{val: 1}
	n.next = &node{val: 2}
	n.next.val += n.val
	n.arr[1] = 5
	local := [3]int{1, 2, 3}
	local[0] = local[1] + local[2] // a non-escaping array: no checks
	p := &n.pt
	p.x = 7
	(*p).y = 8
	counter++
	global = *p            // whole-struct copy: read *p, write global
	copyOfGlobal := global // read of the whole struct
	table["b"] = 2
	v, ok := table["a"]
	delete(table, "a")
	fmt.Println(n.next.val, n.arr, local, copyOfGlobal, v, ok, len(table), counter)
	var iface any = *n.next // interface conversion copies the struct
	_ = iface
	s := "hello"
	_ = s[1] // strings are immutable: no check
	b := []byte(s)
	str := string(b)
	dst := make([]byte, 3)
	nc := copy(dst, b)
	nc += copy(dst, "xy")
	gslice = append(gslice, 4, 5)
	gslice = append(gslice, gslice[:2]...)
	b = append(b, " world"...)
	fmt.Println(str, nc, string(dst), gslice, string(b))
	clear(dst)
	m := map[int]int{}
	for i := range 3 {
		m[i] = i * i
	}
	clear(m)
	fmt.Println(len(m), strings.Repeat("-", 3))
}

// ranges exercises the range forms.
func ranges() {
	xs := []int{1, 2, 3}
	sum := 0
	for _, x := range xs {
		sum += x
	}
	for i := range xs {
		xs[i] *= 2
	}
	arr := [3]int{4, 5, 6}
	for i, a := range arr {
		sum += i * a
	}
	pa := &arr
	for _, a := range pa {
		sum += a
	}
	m := map[string]int{"k": 1}
	for k, v := range m {
		sum += len(k) + v
	}
	for i, r := range "héllo" {
		sum += i + int(r)
	}
	var captured []func() int
	for i, x := range xs {
		captured = append(captured, func() int { return i + x })
	}
	for _, f := range captured {
		sum += f()
	}
	var k, v int
	for k, v = range xs {
		sum += k + v
	}
	fmt.Println(sum, xs)
}
