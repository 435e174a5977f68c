// Copyright 2026 The bigfoot Authors. All rights reserved.

package shadow

import "unsafe"

// A freeStack holds the addresses of a blockPool's free blocks, outside
// the Go heap. They were a slice on the heap, which grew by doubling as
// the sweeps returned a cycle's granules: each growth a new array and the
// old one garbage, 13 MB allocated on the pipeline workload where the
// program allocates 11 MB, enough to double its collections. The
// addresses are kept in nodes of a few thousand, mapped like the blocks
// themselves and never unmapped: a node emptied by get waits on the spare
// list for the next put. The caller (blockPool) holds the lock.
type freeStack struct {
	top   uintptr // the node put fills and get empties; 0 if none
	spare uintptr // emptied nodes, linked through next
	n     int     // addresses held
}

// A freeNode is a node of a freeStack: a full node under top, then the
// addresses.
type freeNode struct {
	next uintptr
	n    uintptr
	a    [freeNodeLen]uintptr
}

const (
	freeNodeLen   = 510      // a node is 4 KiB
	freeNodeChunk = 64 << 10 // bytes mapped at a time for nodes
	freeNodeSize  = unsafe.Sizeof(freeNode{})
)

func node(p uintptr) *freeNode { return (*freeNode)(ptrOf(p)) }

// len returns the number of addresses held.
func (s *freeStack) len() int { return s.n }

// last returns the address get would return first; s must not be empty.
func (s *freeStack) last() uintptr {
	t := node(s.top)
	if t.n == 0 {
		t = node(t.next)
	}
	return t.a[t.n-1]
}

// pop moves up to len(dst) addresses into dst and returns how many.
func (s *freeStack) pop(dst []uintptr) int {
	i := 0
	for i < len(dst) && s.top != 0 {
		t := node(s.top)
		if t.n == 0 {
			// Empty: give it to the spare list, go on under it.
			s.top, t.next, s.spare = t.next, s.spare, s.top
			continue
		}
		k := copy(dst[i:], t.a[t.n-uintptr(min(len(dst)-i, int(t.n))):t.n])
		t.n -= uintptr(k)
		i += k
	}
	s.n -= i
	return i
}

// push adds the addresses of src.
func (s *freeStack) push(src []uintptr) {
	s.n += len(src)
	for len(src) > 0 {
		t := node(s.top)
		if s.top == 0 || t.n == freeNodeLen {
			s.top = s.newNode(s.top)
			t = node(s.top)
		}
		k := copy(t.a[t.n:], src)
		t.n += uintptr(k)
		src = src[k:]
	}
}

// newNode returns an empty node whose next is under, from the spare list
// or newly mapped memory.
func (s *freeStack) newNode(under uintptr) uintptr {
	p := s.spare
	if p != 0 {
		s.spare = node(p).next
	} else {
		base := uintptr(mapMemory(freeNodeChunk, false))
		for q := base + freeNodeSize; q+freeNodeSize <= base+freeNodeChunk; q += freeNodeSize {
			node(q).next, s.spare = s.spare, q
		}
		p = base
	}
	node(p).next, node(p).n = under, 0
	return p
}
