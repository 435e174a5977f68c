package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// coalescedSrc races once per case (its argument), on memory that
// bigfoot mode checks with a check covering several accesses: a field
// group, a write check that covers the read before it (RedCard), a loop
// range merged from two sites, two loops' ranges merged past their
// function's return, a loop's range pending at a copy, a callee's
// accesses checked by its caller's loop (the callee in this file and in
// another), a loop whose two branches write one footprint (and a
// merge's), six loops' ranges merged past their function's return, and
// merged loop sites
// over a global array and over a subslice off its object's start, and
// element groups (encoding/binary's b[0..3] read and written as one
// check each). The
// earlier access runs in a goroutine that ends before the later one,
// with no synchronization either detector sees (early), so the report of
// each case is the same in every run.
const coalescedSrc = `package main

import (
	"os"
	"runtime"
)

type vec struct{ x, y, z float64 }

func set(p *vec, a float64) {
	p.x = a
	p.y = a + 1
	p.z = a + 2
}

func (p *vec) move(dx, dy, dz float64) {
	p.x += dx
	p.y += dy
	p.z += dz
}

// setAll writes each element's three fields in a loop: a field group
// per element, through the loop's footprint.
func setAll(vs []vec) {
	for i := range vs {
		vs[i].x = 1
		vs[i].y = 2
		vs[i].z = 3
	}
}

type counter struct{ n int }

// flag's apply writes two bools of one granule, as one group check.
type flag struct {
	name            string
	value, dv, dvOK bool
}

func (f *flag) apply() {
	f.dv = f.value
	f.dvOK = true
}

type cell struct{ u, v int }

func fillPairs(pairs []int) {
	for i := 0; i < len(pairs)/2; i++ {
		pairs[2*i] = i
		pairs[2*i+1] = -i
	}
}

func halves(a []int) {
	for i := 0; i < len(a)/2; i++ {
		a[i] = 1
	}
	for i := len(a) / 2; i < len(a); i++ {
		a[i] = 2
	}
}

func loopCopy(a, b []int) {
	for i := range a {
		a[i] = i
	}
	copy(b, a)
}

func setCell(c *cell, v int) {
	c.u = v
	c.v = v + 1
}

func cells(cs []cell) {
	for i := range cs {
		setCell(&cs[i], i)
	}
}

func pts(ps []pt) {
	for i := range ps {
		shift(&ps[i], i)
	}
}

func branch(s []int) {
	for i := range s {
		if i%2 == 0 {
			s[i] = 1
		} else {
			s[i] = 2
		}
	}
}

// six writes the sixths of a in six loops: six sites of one function
// in one pending check (bigfoot mode).
func six(a []int) {
	n := len(a) / 6
	for i := 0; i < n; i++ {
		a[i] = 1
	}
	for i := n; i < 2*n; i++ {
		a[i] = 2
	}
	for i := 2 * n; i < 3*n; i++ {
		a[i] = 3
	}
	for i := 3 * n; i < 4*n; i++ {
		a[i] = 4
	}
	for i := 4 * n; i < 5*n; i++ {
		a[i] = 5
	}
	for i := 5 * n; i < len(a); i++ {
		a[i] = 6
	}
}

var global [8]int

// merge merges the sorted a and b into dst: dst[k] is written in
// both branches.
func merge(dst, a, b []int) {
	i, j, k := 0, 0, 0
	for i < len(a) && j < len(b) {
		if a[i] <= b[j] {
			dst[k] = a[i]
			i++
		} else {
			dst[k] = b[j]
			j++
		}
		k++
	}
	k += copy(dst[k:], a[i:])
	copy(dst[k:], b[j:])
}

// msort sorts a by merges from tmp: an element is written at every
// level, by either branch of merge.
func msort(a, tmp []int) {
	if len(a) < 2 {
		return
	}
	mid := len(a) / 2
	msort(a[:mid], tmp[:mid])
	msort(a[mid:], tmp[mid:])
	copy(tmp, a)
	merge(a, tmp[:mid], tmp[mid:])
}

// le32 and putLE32 are encoding/binary's LittleEndian.Uint32 and
// PutUint32: element groups. (Four bytes: go -race keeps four accesses
// per 8-byte word, and misses a race on b[3] once b[0..7] are read.)
func le32(b []byte) uint32 {
	_ = b[3]
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

func putLE32(b []byte, v uint32) {
	_ = b[3]
	b[0] = byte(v)
	b[1] = byte(v >> 8)
	b[2] = byte(v >> 16)
	b[3] = byte(v >> 24)
}

func bump(c *counter) {
	v := c.n
	c.n = v + 1
}

// early runs f in a goroutine and returns once it has ended: no
// synchronization orders f's access before the caller's next ones.
func early(f func()) {
	go f()
	for runtime.NumGoroutine() > 1 {
		runtime.Gosched()
	}
}

func main() {
	p := &vec{}
	switch os.Args[1] {
	case "groupfirst":
		early(func() { p.x = 3 })
		set(p, 1)
	case "groupmiddle":
		early(func() { p.y = 3 })
		set(p, 1)
	case "grouplast":
		early(func() { p.z = 3 })
		set(p, 1)
	case "grouploop":
		vs := make([]vec, 4)
		early(func() { vs[2].y = 9 })
		setAll(vs)
	case "grouploopprev":
		vs := make([]vec, 4)
		early(func() { setAll(vs) })
		println(vs[2].y)
	case "method":
		early(func() { p.y = 3 })
		p.move(1, 2, 3)
	case "groupprev":
		early(func() { set(p, 1) })
		println(p.y)
	case "bools":
		// new, not &flag{...}: a literal's initializing write would take
		// one of the four shadow cells go -race keeps per 8 bytes, and
		// its random eviction then misses the race in a third of runs.
		f := new(flag)
		early(func() { f.apply() })
		f.apply()
	case "redcard":
		c := &counter{}
		early(func() { c.n = 5 })
		bump(c)
	case "pairs":
		s := make([]int, 8)
		early(func() { s[5] = 1 })
		fillPairs(s)
	case "pairsprev":
		s := make([]int, 8)
		early(func() { fillPairs(s) })
		println(s[5])
	case "halves":
		a := make([]int, 8)
		early(func() { a[1] = 1 })
		halves(a)
	case "halvesprev":
		a := make([]int, 8)
		early(func() { halves(a) })
		println(a[1])
	case "loopcopy":
		a, b := make([]int, 8), make([]int, 8)
		early(func() { a[3] = 1 })
		loopCopy(a, b)
	case "copyprev":
		a, b := make([]int, 8), make([]int, 8)
		early(func() { loopCopy(a, b) })
		println(b[3])
	case "callee":
		cs := make([]cell, 4)
		early(func() { cs[2].v = 1 })
		cells(cs)
	case "calleeprev":
		cs := make([]cell, 4)
		early(func() { cells(cs) })
		println(cs[2].v)
	case "calleeother":
		ps := make([]pt, 4)
		early(func() { ps[2].b = 1 })
		pts(ps)
	case "calleeotherprev":
		ps := make([]pt, 4)
		early(func() { pts(ps) })
		println(ps[2].b)
	case "branch":
		s := make([]int, 8)
		early(func() { s[5] = 1 })
		branch(s)
	case "branchprev":
		s := make([]int, 8)
		early(func() { branch(s) })
		println(s[5])
	case "merge":
		dst := make([]int, 8)
		early(func() { dst[3] = 1 })
		merge(dst, []int{1, 3, 5, 7}, []int{2, 4, 6, 8})
	case "mergeprev":
		dst := make([]int, 8)
		early(func() { merge(dst, []int{1, 3, 5, 7}, []int{2, 4, 6, 8}) })
		println(dst[3])
	case "msort":
		s := []int{5, 2, 7, 1, 8, 3, 6, 4}
		early(func() { s[6] = 9 })
		msort(s, make([]int, 8))
	case "msortprev":
		s := []int{5, 2, 7, 1, 8, 3, 6, 4}
		early(func() { msort(s, make([]int, 8)) })
		println(s[6])
	case "six":
		a := make([]int, 24)
		early(func() { a[17] = 1 })
		six(a)
	case "sixprev":
		a := make([]int, 24)
		early(func() { six(a) })
		println(a[17])
	case "globalprev":
		early(func() { fillPairs(global[:]) })
		println(global[5])
	case "elemread":
		b := make([]byte, 8)
		early(func() { b[3] = 1 })
		println(le32(b))
	case "elemreadprev":
		b := make([]byte, 8)
		early(func() { println(le32(b)) })
		b[3] = 1
	case "elemwrite":
		b := make([]byte, 8)
		early(func() { println(b[2]) })
		putLE32(b, 7)
	case "elemwriteprev":
		b := make([]byte, 8)
		early(func() { putLE32(b, 7) })
		println(b[2])
	case "subsliceprev":
		s := make([]int, 9)
		early(func() { fillPairs(s[1:]) })
		println(s[6])
	}
}
`

// coalescedOther is coalescedSrc's other file: a callee whose accesses
// the caller's loop checks.
const coalescedOther = `package main

type pt struct{ a, b int }

func shift(p *pt, v int) {
	p.a = v
	p.b = v + 1
}
`

// reportAccess matches, in a race report, the header of an access and the
// top frame of its stack: kind, function, file:line.
var reportAccess = regexp.MustCompile(`(?m)^(Read|Write|Previous read|Previous write) at 0x[0-9a-f]+ by [^\n]*:\n  ([^\n]*)\(\)\n +([^ \n]*:\d+)`)

// firstAccesses returns the two accesses of the first race report in out,
// as "kind function file:line" lines.
func firstAccesses(out string) string {
	var acc []string
	for _, m := range reportAccess.FindAllStringSubmatch(out, 2) {
		acc = append(acc, m[1]+" "+m[2]+" "+filepath.Base(m[3]))
	}
	return strings.Join(acc, "\n")
}

// TestSameCoalescedSites: a race found by a check that covers several
// accesses is reported as go -race reports it, in each mode of modes: both
// accesses' kind, function, file and line. Field groups name the field
// that raced (the first, a middle one, the last, in a loop (the plan's
// static ranges of a group) as the later and the earlier access,
// through a method, the earlier
// access of a race a plain read finds, and the first of two bools of one
// granule both accesses wrote); a write check that covers the
// read before it names the read when the earlier access was a write; a
// merged loop range, ranges merged past a return and a callee's accesses
// checked by its caller's loop name the site that touched the racing
// element, as the later access and as the earlier one; a range pending
// at a copy of the same elements names the loop, whose access came first;
// a merge sort's copy names the copy, not the merge its caller made next
// (whose footprint's check comes first); and an access of a copy, later
// or earlier, has runtime.slicecopy's frame first, as go -race prints it.
func TestSameCoalescedSites(t *testing.T) {
	if bigfootBin == "" {
		t.Skip("end-to-end test; skipped with -short")
	}
	dir := writeModule(t, map[string]string{
		"go.mod":   "module example.com/sites\n\ngo 1.22\n",
		"main.go":  coalescedSrc,
		"other.go": coalescedOther,
	})
	tools := append([]string{"race"}, modes...)
	for _, tool := range tools {
		buildBinary(t, dir, tool, filepath.Join(dir, tool))
	}
	for _, c := range []string{"groupfirst", "groupmiddle", "grouplast", "grouploop", "grouploopprev", "method", "groupprev", "bools", "redcard",
		"pairs", "pairsprev", "halves", "halvesprev", "loopcopy",
		"callee", "calleeprev", "calleeother", "calleeotherprev", "branch", "branchprev", "merge", "mergeprev", "msort", "msortprev", "copyprev",
		"six", "sixprev", "globalprev", "subsliceprev", "elemread", "elemreadprev", "elemwrite", "elemwriteprev"} {
		t.Run(c, func(t *testing.T) {
			want := ""
			var wantStacks []reportedAccess
			for _, tool := range tools {
				_, r := raceRuns(t, filepath.Join(dir, tool), 1, c)
				got, stacks := firstAccesses(r.stderr), reportedAccesses(r.stderr)
				if tool == "race" {
					if strings.Count(got, "\n") != 1 || len(stacks) != 2 {
						t.Fatalf("go -race reported no race:\n%v", r)
					}
					want, wantStacks = got, stacks
				} else if got != want {
					t.Errorf("%s: accesses\n%s\nwant (go -race)\n%s\nreport:\n%s", tool, got, want, r.stderr)
				} else if len(stacks) != 2 || !sameUserFrames(stacks[0], wantStacks[0]) || !sameUserFrames(stacks[1], wantStacks[1]) {
					t.Errorf("%s: stacks\n%v\nwant at least go -race's frames of package main\n%v\nreport:\n%s", tool, stacks, wantStacks, r.stderr)
				}
			}
		})
	}
}
