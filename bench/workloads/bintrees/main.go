// Bintrees is the allocation pattern of request handling: each request
// builds short-lived pointer structures and drops them. Goroutines build
// binary search trees of small nodes from a request's keys (inserting,
// looking up, deleting some), walk them recursively and iteratively with
// an explicit stack, and build complete binary trees of a given depth and
// count their nodes, as in the binary-trees benchmark. A long-lived tree,
// read-only, is checked by every goroutine.
//
// It prints one line, "checksum: <hex>", folded from the node counts and
// in-order walks.
package main

import (
	"flag"
	"fmt"
	"sync"

	"github.com/bigfoot-go/bigfoot/bench/internal/peak"
)

// node is a node of a binary search tree.
type node struct {
	key         int
	val         string
	left, right *node
}

func insert(t *node, key int, val string) *node {
	if t == nil {
		return &node{key: key, val: val}
	}
	switch {
	case key < t.key:
		t.left = insert(t.left, key, val)
	case key > t.key:
		t.right = insert(t.right, key, val)
	default:
		t.val = val
	}
	return t
}

func find(t *node, key int) *node {
	for t != nil && t.key != key {
		if key < t.key {
			t = t.left
		} else {
			t = t.right
		}
	}
	return t
}

func remove(t *node, key int) *node {
	if t == nil {
		return nil
	}
	switch {
	case key < t.key:
		t.left = remove(t.left, key)
	case key > t.key:
		t.right = remove(t.right, key)
	case t.left == nil:
		return t.right
	case t.right == nil:
		return t.left
	default:
		m := t.right
		for m.left != nil {
			m = m.left
		}
		t.key, t.val = m.key, m.val
		t.right = remove(t.right, m.key)
	}
	return t
}

// walk folds the keys in order, with an explicit stack.
func walk(t *node) uint64 {
	var h uint64
	var stack []*node
	for t != nil || len(stack) > 0 {
		for t != nil {
			stack = append(stack, t)
			t = t.left
		}
		t = stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		h = h*31 + uint64(t.key) + uint64(len(t.val))
		t = t.right
	}
	return h
}

// tree is a node of a complete binary tree.
type tree struct{ left, right *tree }

func bottomUp(depth int) *tree {
	if depth <= 0 {
		return &tree{}
	}
	return &tree{bottomUp(depth - 1), bottomUp(depth - 1)}
}

func (t *tree) count() int {
	if t.left == nil {
		return 1
	}
	return 1 + t.left.count() + t.right.count()
}

var labels = []string{"a", "bb", "ccc", "dddd"}

func main() {
	size := flag.Int("size", 0, "requests (0: default)")
	short := flag.Bool("short", false, "tiny size, for tests")
	workers := flag.Int("workers", 4, "goroutines")
	flag.Parse()
	n := 12_000
	if *short {
		n = 200
	}
	if *size > 0 {
		n = *size
	}
	w := max(*workers, 1)

	var longLived *node
	for i := 0; i < 1<<12; i++ {
		longLived = insert(longLived, (i*2654435761)%(1<<20), labels[i%4])
	}
	want := walk(longLived)

	sums := make([]uint64, w)
	var wg sync.WaitGroup
	for k := 0; k < w; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var sum uint64
			for r := k; r < n; r += w {
				s := uint64(r)*0x9e3779b97f4a7c15 + 19
				var t *node
				for i := 0; i < 200; i++ {
					s ^= s << 13
					s ^= s >> 7
					s ^= s << 17
					t = insert(t, int(s%10_000), labels[s>>32%4])
				}
				for i := 0; i < 100; i++ {
					s ^= s << 13
					s ^= s >> 7
					s ^= s << 17
					if f := find(t, int(s%10_000)); f != nil {
						sum += uint64(f.key)
					}
					if i%3 == 0 {
						t = remove(t, int(s%10_000))
					}
				}
				sum = sum*7 + walk(t)
				sum += uint64(bottomUp(8 + r%3).count())
				if r%64 == 0 && walk(longLived) != want {
					panic("bintrees: the long-lived tree changed")
				}
			}
			sums[k] = sum
		}()
	}
	wg.Wait()

	var sum uint64
	for _, s := range sums {
		sum += s
	}
	fmt.Printf("checksum: %016x\n", sum)
	peak.Report()
}
