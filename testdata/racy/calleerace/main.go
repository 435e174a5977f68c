// A goroutine runs a keyed mixing function over a key schedule in a loop
// (the function reads its key through a pointer parameter on every call:
// bigfoot checks those reads in the caller, as one range per loop, and
// calls a copy of the function without them) while main writes one key
// with no synchronization. The race is the read inside the callee.
package main

import (
	"fmt"
	"sync"
)

type schedule [16][2]uint16

func mix(h uint32, k *[2]uint16) uint32 {
	a := uint32(k[0]) * (h | 1) // RACE
	return a ^ uint32(k[1])
}

func run(k *schedule, h uint32) uint32 {
	for j := 0; j < len(k); j++ {
		h = mix(h, &k[j])
	}
	return h
}

func main() {
	var k schedule
	for i := range k {
		k[i] = [2]uint16{uint16(i), uint16(3 * i)}
	}
	var wg sync.WaitGroup
	var h uint32
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < 1000; i++ {
			h = run(&k, h)
		}
	}()
	k[7][0] = 99
	wg.Wait()
	fmt.Println(h != 1)
}
