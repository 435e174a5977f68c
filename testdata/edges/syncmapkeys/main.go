// A sync.Map orders what go -race's orders: a Load after a Store of its
// key, and a Store after a Store of another key (a change locks the trie
// node that holds the key, the root for every key of a small map), but
// not a Load after a Store of another key. Each of maps goroutines
// writes its x and stores "a" into its map; main, once every goroutine
// is done (it waits to see their files, which orders nothing), loads
// "b" from each map and reads each x: a race, which go run -race reports
// once (the same two lines each time), unless in every map "a" shares
// "b"'s slot of the root under the map's hash seed (one chance in 16 per
// map). y, written before a Store of "a" and read after a later Store of
// "b" into another map, and z, written before a Store of "a" and read
// after a Load of "a", do not race.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
)

const maps = 8

var (
	ms     [maps]sync.Map
	xs     [maps]int
	my, mz sync.Map
	y, z   int
)

// publish writes x and then stores "a" into m.
func publish(m *sync.Map, x *int) {
	*x = 1 // WRITE
	m.Store("a", 1)
}

// observe loads "b" from m and then reads x.
func observe(m *sync.Map, x *int) int {
	m.Load("b")
	return *x // READ
}

// created waits until the file name exists.
func created(name string) {
	for {
		if _, err := os.Stat(name); err == nil {
			return
		}
		runtime.Gosched()
	}
}

func main() {
	dir, err := os.MkdirTemp("", "syncmapkeys")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	done := func(name string) {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			panic(err)
		}
		f.Close()
	}
	for i := range ms {
		ms[i].Store("b", 0)
	}
	mz.Load("a")
	my.Load("a")
	for i := range ms {
		go func() {
			publish(&ms[i], &xs[i])
			done(strconv.Itoa(i))
		}()
	}
	go func() {
		y = 1
		my.Store("a", 1)
		z = 1
		mz.Store("a", 1)
		done("y")
	}()
	sum := 0
	for i := range ms {
		created(filepath.Join(dir, strconv.Itoa(i)))
		sum += observe(&ms[i], &xs[i])
	}
	created(filepath.Join(dir, "y"))
	my.Store("b", 1)
	sum += y
	mz.Load("a")
	sum += z
	fmt.Println(sum)
}
