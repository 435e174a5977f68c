// Panics: defer, recover, panics crossing frames, runtime errors, named
// results changed by deferred functions, labels and goto.
package main

import (
	"errors"
	"fmt"
	"sync"
)

func safeDiv(a, b int) (q int, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("recovered: %v", r)
			q = -1
		}
	}()
	return a / b, nil
}

func index(xs []int, i int) (v int, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = errors.New("out of range")
		}
	}()
	return xs[i], nil
}

func nested() (out []string) {
	defer func() { out = append(out, "outer defer") }()
	func() {
		defer func() {
			r := recover()
			out = append(out, fmt.Sprint("inner recovered ", r))
		}()
		panic("boom")
	}()
	out = append(out, "after inner")
	return out
}

func loops() []int {
	var found []int
outer:
	for i := 0; i < 5; i++ {
		for j := 0; j < 5; j++ {
			if j > i {
				continue outer
			}
			if i*j > 6 {
				break outer
			}
			if (i+j)%3 == 0 {
				found = append(found, i*10+j)
			}
		}
	}
	i := 0
loop:
	if i < 3 {
		found = append(found, -i)
		i++
		goto loop
	}
	switch {
	case i == 3:
		found = append(found, 300)
		fallthrough
	case i == 4:
		found = append(found, 400)
	}
	return found
}

func main() {
	fmt.Println(safeDiv(7, 2))
	fmt.Println(safeDiv(1, 0))
	fmt.Println(index([]int{1, 2}, 5))
	fmt.Println(nested())
	fmt.Println(loops())

	var wg sync.WaitGroup
	errs := make([]string, 3)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil {
					errs[i] = fmt.Sprint(r)
				}
			}()
			var m map[string]int
			if i == 1 {
				m["x"] = 1 // nil map write panics
			}
			errs[i] = "ok"
		}()
	}
	wg.Wait()
	fmt.Println(errs)

	for i := 3; i > 0; i-- {
		defer fmt.Println("deferred", i)
	}
}
