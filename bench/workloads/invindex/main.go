// Invindex is a search service's indexer: goroutines tokenize documents
// with bufio.Scanner (ScanWords) and the strings and unicode packages,
// and add postings to an inverted index split into shards, each a map of
// term to posting list under its own sync.Mutex, the shard chosen by an
// FNV hash of the term. Then they answer conjunctive queries against it.
//
// It prints one line, "checksum: <hex>", folded from the index's terms
// and postings in sorted order and from the query answers.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/bigfoot-go/bigfoot/bench/internal/peak"
)

const shards = 32

// shard is one part of the index.
type shard struct {
	mu    sync.Mutex
	terms map[string][]int32
}

// index maps terms to the documents that contain them.
type index struct {
	shards [shards]shard
}

func newIndex() *index {
	ix := new(index)
	for i := range ix.shards {
		ix.shards[i].terms = make(map[string][]int32)
	}
	return ix
}

func (ix *index) shard(term string) *shard {
	h := fnv.New32a()
	h.Write([]byte(term))
	return &ix.shards[h.Sum32()%shards]
}

// add indexes document doc's text.
func (ix *index) add(doc int32, text string) {
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Split(bufio.ScanWords)
	seen := make(map[string]bool)
	for sc.Scan() {
		term := strings.ToLower(strings.TrimFunc(sc.Text(), func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r)
		}))
		if len(term) < 2 || seen[term] {
			continue
		}
		seen[term] = true
		sh := ix.shard(term)
		sh.mu.Lock()
		sh.terms[term] = append(sh.terms[term], doc)
		sh.mu.Unlock()
	}
}

// lookup returns a sorted copy of term's postings.
func (ix *index) lookup(term string) []int32 {
	sh := ix.shard(term)
	sh.mu.Lock()
	p := slices.Clone(sh.terms[term])
	sh.mu.Unlock()
	slices.Sort(p)
	return p
}

// query returns how many documents contain every term.
func (ix *index) query(terms ...string) int {
	var acc []int32
	for i, t := range terms {
		p := ix.lookup(strings.ToLower(t))
		if i == 0 {
			acc = p
			continue
		}
		var out []int32
		for _, d := range acc {
			if _, ok := slices.BinarySearch(p, d); ok {
				out = append(out, d)
			}
		}
		acc = out
	}
	return len(acc)
}

var vocabulary = strings.Fields(`the quick brown fox jumps over lazy dog service request
latency error timeout retry cache shard replica leader follower commit log index search
query token parser scanner buffer stream channel goroutine mutex lock unlock map slice
string byte rune Unicode naïve café résumé Zürich 2026 v1.2.3 HTTP/2 JSON gRPC`)

// document returns the text of document i: about 300 words with
// punctuation and mixed case.
func document(i int) string {
	s := uint64(i)*0x9e3779b97f4a7c15 + 11
	var b strings.Builder
	for j := 0; j < 300; j++ {
		s ^= s << 13
		s ^= s >> 7
		s ^= s << 17
		w := vocabulary[s%uint64(len(vocabulary))]
		if s>>60 == 0 {
			w = strings.ToUpper(w[:1]) + w[1:]
		}
		b.WriteString(w)
		if s>>59&3 == 1 {
			b.WriteString(fmt.Sprintf("%d", s>>50&1023))
		}
		switch s >> 56 & 15 {
		case 0:
			b.WriteString(". ")
		case 1:
			b.WriteString(", ")
		case 2:
			b.WriteString("\n")
		default:
			b.WriteByte(' ')
		}
	}
	return b.String()
}

func main() {
	size := flag.Int("size", 0, "documents (0: default)")
	short := flag.Bool("short", false, "tiny size, for tests")
	workers := flag.Int("workers", 4, "goroutines")
	flag.Parse()
	n := 4_000
	if *short {
		n = 300
	}
	if *size > 0 {
		n = *size
	}
	w := max(*workers, 1)

	ix := newIndex()
	var wg sync.WaitGroup
	for k := 0; k < w; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for d := k; d < n; d += w {
				ix.add(int32(d), document(d))
			}
		}()
	}
	wg.Wait()

	queries := [][]string{{"quick", "fox"}, {"cache", "miss"}, {"café", "Zürich"}, {"error", "timeout", "retry"}, {"goroutine", "mutex", "channel", "lock"}, {"json", "grpc"}}
	answers := make([]uint64, w)
	for k := 0; k < w; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := k; i < 200*len(queries); i += w {
				answers[k] += uint64(ix.query(queries[i%len(queries)]...))
			}
		}()
	}
	wg.Wait()

	var sum uint64
	var nterms int
	for i := range ix.shards {
		sh := &ix.shards[i]
		terms := make([]string, 0, len(sh.terms))
		for t := range sh.terms {
			terms = append(terms, t)
		}
		slices.Sort(terms)
		for _, t := range terms {
			p := sh.terms[t]
			slices.Sort(p)
			h := fnv.New64a()
			h.Write([]byte(t))
			sum = sum*31 + h.Sum64()
			for _, d := range p {
				sum = sum*1_000_003 + uint64(d)
			}
		}
		nterms += len(terms)
	}
	for _, a := range answers {
		sum += a
	}
	fmt.Printf("checksum: %016x%x\n", sum, nterms)
	peak.Report()
}
