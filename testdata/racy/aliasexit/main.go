// A lookup reads a field of each element through an alias, e := &s[i],
// and returns another field of the element it finds; another goroutine
// writes a key the lookup reads, ordered with nothing. Bigfoot mode holds
// the keys' reads in a static range, checked when the lookup returns,
// and the read on the way out in a check of its own.
package main

import "fmt"

type pair struct{ k, v int }

func lookup(kvs []pair, key int) int {
	for i := range kvs {
		e := &kvs[i]
		if e.k == key { // RACE
			return e.v
		}
	}
	return -1
}

func main() {
	kvs := make([]pair, 1000)
	for i := range kvs {
		kvs[i] = pair{i, 2 * i}
	}
	done := make(chan bool)
	go func() {
		kvs[100].k = 100
		done <- true
	}()
	n := lookup(kvs, 600)
	<-done
	fmt.Println(n)
}
