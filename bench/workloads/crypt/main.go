// Crypt encrypts and decrypts a large byte array with a 16-round Feistel
// cipher whose round function mixes 16-bit words with multiplication modulo
// 65537, addition modulo 65536 and xor, in the manner of IDEA. The array is
// split into one contiguous block per goroutine: the access pattern of the
// JavaGrande crypt kernel (block-partitioned array, each element touched by
// exactly one goroutine per phase).
//
// It prints one line, "checksum: <hex>", a hash of the ciphertext that is
// the same for any GOMAXPROCS and any schedule; it exits with status 1 if
// decryption does not restore the plaintext.
package main

import (
	"flag"
	"fmt"
	"os"
	"sync"

	"github.com/bigfoot-go/bigfoot/bench/internal/peak"
)

const rounds = 16

func main() {
	size := flag.Int("size", 0, "array size in MiB (0: default)")
	short := flag.Bool("short", false, "tiny size, for tests")
	workers := flag.Int("workers", 4, "goroutines")
	flag.Parse()
	n := 24 << 20
	if *short {
		n = 256 << 10
	}
	if *size > 0 {
		n = *size << 20
	}
	n &^= 7
	w := max(*workers, 1)

	plain := make([]byte, n)
	seed := uint64(0x9e3779b97f4a7c15)
	for i := range plain {
		seed = seed*6364136223846793005 + 1442695040888963407
		plain[i] = byte(seed >> 56)
	}
	ek := schedule(0x0123456789abcdef)
	dk := reverse(ek)

	cipher := make([]byte, n)
	back := make([]byte, n)
	parallel(w, n/8, func(lo, hi int) { crypt(plain[lo*8:hi*8], cipher[lo*8:hi*8], &ek) })
	parallel(w, n/8, func(lo, hi int) { crypt(cipher[lo*8:hi*8], back[lo*8:hi*8], &dk) })

	for i := range plain {
		if plain[i] != back[i] {
			fmt.Fprintf(os.Stderr, "crypt: decryption differs at byte %d\n", i)
			os.Exit(1)
		}
	}
	h := uint64(14695981039346656037)
	for _, b := range cipher {
		h = (h ^ uint64(b)) * 1099511628211
	}
	fmt.Printf("checksum: %016x\n", h)
	peak.Report()
}

// keys holds one 16-bit subkey per round and position.
type keys [rounds][2]uint16

// schedule derives the round keys from a 64-bit master key.
func schedule(master uint64) keys {
	var k keys
	x := master
	for r := range k {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		k[r][0] = uint16(x) | 1
		k[r][1] = uint16(x >> 16)
	}
	return k
}

// reverse returns the keys of the inverse cipher: a Feistel network is
// inverted by running its rounds in the opposite order.
func reverse(k keys) keys {
	var d keys
	for r := range k {
		d[r] = k[rounds-1-r]
	}
	return d
}

// mul multiplies modulo 65537, reading 0 as 65536, as IDEA does.
func mul(a, b uint16) uint16 {
	x, y := uint32(a), uint32(b)
	if x == 0 {
		x = 65536
	}
	if y == 0 {
		y = 65536
	}
	return uint16(x * y % 65537)
}

// round is the Feistel function on one 32-bit half.
func round(h uint32, k *[2]uint16) uint32 {
	a := mul(uint16(h), k[0])
	b := uint16(h>>16) + k[1]
	b ^= a
	a += mul(b, k[0]^0x5a5a)
	return uint32(a)<<16 | uint32(b)
}

// crypt runs the cipher over src (a multiple of 8 bytes) into dst.
func crypt(src, dst []byte, k *keys) {
	for i := 0; i+8 <= len(src); i += 8 {
		l := uint32(src[i]) | uint32(src[i+1])<<8 | uint32(src[i+2])<<16 | uint32(src[i+3])<<24
		r := uint32(src[i+4]) | uint32(src[i+5])<<8 | uint32(src[i+6])<<16 | uint32(src[i+7])<<24
		for j := 0; j < rounds; j++ {
			l, r = r, l^round(r, &k[j])
		}
		l, r = r, l
		dst[i], dst[i+1], dst[i+2], dst[i+3] = byte(l), byte(l>>8), byte(l>>16), byte(l>>24)
		dst[i+4], dst[i+5], dst[i+6], dst[i+7] = byte(r), byte(r>>8), byte(r>>16), byte(r>>24)
	}
}

// parallel splits [0, n) into w contiguous blocks and runs f on each in
// its own goroutine, returning when all are done.
func parallel(w, n int, f func(lo, hi int)) {
	var wg sync.WaitGroup
	for i := 0; i < w; i++ {
		lo, hi := i*n/w, (i+1)*n/w
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(lo, hi)
		}()
	}
	wg.Wait()
}
