// A goroutine appends in a loop to a slice whose backing array main reads
// an element of, with no synchronization: bigfoot records the appends'
// writes in a footprint (placement.FootprintAppend, detector.AppendF).
package main

import (
	"fmt"
	"strings"
	"sync"
)

func fill(buf []byte, src string) []byte {
	for i := 0; i < len(src); i++ {
		buf = append(buf, src[i]) // RACE
	}
	return buf
}

func main() {
	backing := make([]byte, 0, 1000)
	src := strings.Repeat("x", 1000)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		fill(backing, src)
	}()
	x := backing[:1000][500]
	wg.Wait()
	fmt.Println(x >= 0)
}
