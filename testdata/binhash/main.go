// Command binhash is the measurement program of element groups
// (docs/results.md, "Element groups"): four goroutines encode and decode
// fixed-size records with encoding/binary (LittleEndian and BigEndian
// Uint16/32/64 and their Put forms, the shape of every codec), hash them
// with hash/fnv, hash/adler32 and hash/crc32, and mix them with an
// xxhash-style round over 8-byte words, then print a checksum.
package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"hash/adler32"
	"hash/crc32"
	"hash/fnv"
	"sync"
)

const recSize = 32

type record struct {
	id    uint64
	ts    uint64
	kind  uint16
	flags uint16
	size  uint32
	sum   uint64
}

func encode(b []byte, r *record) {
	binary.LittleEndian.PutUint64(b[0:], r.id)
	binary.BigEndian.PutUint64(b[8:], r.ts)
	binary.LittleEndian.PutUint16(b[16:], r.kind)
	binary.LittleEndian.PutUint16(b[18:], r.flags)
	binary.LittleEndian.PutUint32(b[20:], r.size)
	binary.LittleEndian.PutUint64(b[24:], r.sum)
}

func decode(b []byte) record {
	return record{
		id:    binary.LittleEndian.Uint64(b[0:]),
		ts:    binary.BigEndian.Uint64(b[8:]),
		kind:  binary.LittleEndian.Uint16(b[16:]),
		flags: binary.LittleEndian.Uint16(b[18:]),
		size:  binary.LittleEndian.Uint32(b[20:]),
		sum:   binary.LittleEndian.Uint64(b[24:]),
	}
}

// mix is an xxhash-style round over the 8-byte words of b.
func mix(b []byte, h uint64) uint64 {
	for ; len(b) >= 8; b = b[8:] {
		h ^= binary.LittleEndian.Uint64(b) * 0xc2b2ae3d27d4eb4f
		h = (h<<31 | h>>33) * 0x9e3779b185ebca87
	}
	return h
}

func work(seed uint64, n int) uint64 {
	buf := make([]byte, 256*recSize)
	var h uint64
	for round := 0; round < n; round++ {
		for i := 0; i < 256; i++ {
			r := record{id: seed + uint64(i), ts: uint64(round), kind: uint16(i), flags: uint16(round), size: uint32(i * round)}
			r.sum = r.id ^ r.ts*31
			encode(buf[i*recSize:], &r)
		}
		for i := 0; i < 256; i++ {
			r := decode(buf[i*recSize:])
			h += r.id ^ r.ts ^ uint64(r.kind)<<16 ^ uint64(r.flags) ^ uint64(r.size) ^ r.sum
		}
		f := fnv.New64a()
		f.Write(buf[:1024])
		h ^= f.Sum64() + uint64(adler32.Checksum(buf[1024:2048])) + uint64(crc32.ChecksumIEEE(buf[2048:4096]))
		h = mix(buf, h)
	}
	return h
}

func main() {
	n := flag.Int("n", 20000, "rounds per goroutine")
	flag.Parse()
	var mu sync.Mutex
	var wg sync.WaitGroup
	var total uint64
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			h := work(uint64(g)<<32, *n)
			mu.Lock()
			total ^= h
			mu.Unlock()
		}(g)
	}
	wg.Wait()
	fmt.Printf("%016x\n", total)
}
