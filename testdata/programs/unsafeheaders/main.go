// Unsafeheaders: the Data field of reflect's slice and string headers,
// read through a pointer and converted to unsafe.Pointer, as code older
// than unsafe.Slice and unsafe.StringData does; under -d=checkptr the
// compiler exempts exactly that conversion from its arithmetic check.
package main

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"unsafe"
)

type table struct {
	mu    sync.Mutex
	index []*int
	data  unsafe.Pointer
}

// grow replaces the table's index with one of n slots.
func (t *table) grow(n int) {
	index := make([]*int, n)
	t.mu.Lock()
	t.data = dataOf((*reflect.SliceHeader)(unsafe.Pointer(&index)))
	t.index = index
	t.mu.Unlock()
}

// dataOf returns a slice's array, from its header.
func dataOf(h *reflect.SliceHeader) unsafe.Pointer {
	return unsafe.Pointer(h.Data)
}

// slot returns slot i, read through the data pointer.
func (t *table) slot(i int) **int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return (**int)(unsafe.Add(t.data, uintptr(i)*unsafe.Sizeof(t.index[0])))
}

// firstByte reads a string's first byte through its header.
func firstByte(s *string) byte {
	h := (*reflect.StringHeader)(unsafe.Pointer(s))
	return *(*byte)(unsafe.Pointer(h.Data))
}

func main() {
	t := &table{}
	t.grow(8)
	var wg sync.WaitGroup
	vals := make([]int, 8)
	for i := range 8 {
		vals[i] = i * i
		wg.Add(1)
		go func() {
			defer wg.Done()
			*t.slot(i) = &vals[i]
		}()
	}
	wg.Wait()
	sum := 0
	for i := range 8 {
		sum += **t.slot(i)
	}
	words := []string{"alpha", "beta", "gamma"}
	for i := range words {
		words[i] = strings.ToUpper(words[i]) // on the heap
	}
	var first []byte
	for i := range words {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := firstByte(&words[i])
			_ = b
		}()
	}
	wg.Wait()
	for i := range words {
		first = append(first, firstByte(&words[i]))
	}
	fmt.Println(sum, string(first))
}
