// Gzipsha is a storage service's ingest path: blocks of log-like text are
// compressed with compress/gzip, hashed with crypto/sha256 (the content
// address of the compressed block), decompressed again and verified
// against the original. Workers take block numbers from a channel and
// keep a gzip.Writer and a bytes.Buffer each, reset per block, as a
// service would; a bufio.Reader over the gzip.Reader reads the block back.
//
// It prints one line, "checksum: <hex>", the xor of every block's address
// and the total compressed size.
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/bigfoot-go/bigfoot/bench/internal/peak"
)

const blockSize = 64 << 10

var words = []string{"request", "served", "user", "cache", "miss", "hit", "timeout", "retry",
	"GET", "POST", "/api/v1/items", "status=200", "status=404", "latency_ms=", "shard", "replica"}

// fillBlock writes block i's content into b: text lines with a mix of
// repeated words and numbers, compressible about 4:1.
func fillBlock(b *bytes.Buffer, i int) {
	b.Reset()
	s := uint64(i)*0x9e3779b97f4a7c15 + 3
	for b.Len() < blockSize {
		s ^= s << 13
		s ^= s >> 7
		s ^= s << 17
		b.WriteString(words[s%uint64(len(words))])
		b.WriteByte(' ')
		b.WriteString(strconv.FormatUint(s>>40, 10))
		if s&7 == 0 {
			b.WriteByte('\n')
		} else {
			b.WriteByte(' ')
		}
	}
	b.Truncate(blockSize)
}

func main() {
	size := flag.Int("size", 0, "blocks (0: default)")
	short := flag.Bool("short", false, "tiny size, for tests")
	workers := flag.Int("workers", 4, "goroutines")
	flag.Parse()
	n := 160
	if *short {
		n = 8
	}
	if *size > 0 {
		n = *size
	}
	w := max(*workers, 1)

	jobs := make(chan int)
	go func() {
		for i := 0; i < n; i++ {
			jobs <- i
		}
		close(jobs)
	}()

	var mu sync.Mutex
	var xor [sha256.Size]byte
	var compressed int64
	var wg sync.WaitGroup
	for k := 0; k < w; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var raw, packed bytes.Buffer
			zw, _ := gzip.NewWriterLevel(&packed, gzip.DefaultCompression)
			var zr gzip.Reader
			out := make([]byte, 0, blockSize)
			for i := range jobs {
				fillBlock(&raw, i)
				packed.Reset()
				zw.Reset(&packed)
				zw.Name = "block-" + strconv.Itoa(i)
				if _, err := zw.Write(raw.Bytes()); err != nil {
					panic(err)
				}
				if err := zw.Close(); err != nil {
					panic(err)
				}
				addr := sha256.Sum256(packed.Bytes())

				if err := zr.Reset(bytes.NewReader(packed.Bytes())); err != nil {
					panic(err)
				}
				br := bufio.NewReader(&zr)
				out = out[:0]
				buf := make([]byte, 4096)
				for {
					m, err := br.Read(buf)
					out = append(out, buf[:m]...)
					if err == io.EOF {
						break
					}
					if err != nil {
						panic(err)
					}
				}
				if !bytes.Equal(out, raw.Bytes()) || sha256.Sum256(out) != sha256.Sum256(raw.Bytes()) {
					panic(fmt.Sprintf("gzipsha: block %d changed in the round trip", i))
				}

				mu.Lock()
				for j := range xor {
					xor[j] ^= addr[j]
				}
				compressed += int64(packed.Len())
				mu.Unlock()
			}
		}()
	}
	wg.Wait()

	fmt.Printf("checksum: %016x%x\n", binary.BigEndian.Uint64(xor[:8]), compressed)
	peak.Report()
}
