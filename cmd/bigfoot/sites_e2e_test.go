package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// coalescedSrc races once per case (its argument), on memory that
// bigfoot mode checks with a check covering several accesses: a field
// group, a write check that covers the read before it (RedCard). The
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

type counter struct{ n int }

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
	case "method":
		early(func() { p.y = 3 })
		p.move(1, 2, 3)
	case "groupprev":
		early(func() { set(p, 1) })
		println(p.y)
	case "redcard":
		c := &counter{}
		early(func() { c.n = 5 })
		bump(c)
	}
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
// accesses is reported as go -race reports it, in every mode: both
// accesses' kind, function and line. Field groups name the field that
// raced (the first, a middle one, through a method, and the earlier
// access of a race a plain read finds); a write check that covers the
// read before it names the read when the earlier access was a write.
func TestSameCoalescedSites(t *testing.T) {
	if bigfootBin == "" {
		t.Skip("end-to-end test; skipped with -short")
	}
	dir := writeModule(t, map[string]string{
		"go.mod":  "module example.com/sites\n\ngo 1.22\n",
		"main.go": coalescedSrc,
	})
	tools := append([]string{"race"}, modes...)
	for _, tool := range tools {
		buildBinary(t, dir, tool, filepath.Join(dir, tool))
	}
	for _, c := range []string{"groupfirst", "groupmiddle", "method", "groupprev", "redcard"} {
		t.Run(c, func(t *testing.T) {
			want := ""
			for _, tool := range tools {
				_, r := raceRuns(t, filepath.Join(dir, tool), 1, c)
				got := firstAccesses(r.stderr)
				if tool == "race" {
					if strings.Count(got, "\n") != 1 {
						t.Fatalf("go -race reported no race:\n%v", r)
					}
					want = got
				} else if got != want {
					t.Errorf("%s: accesses\n%s\nwant (go -race)\n%s\nreport:\n%s", tool, got, want, r.stderr)
				}
			}
		})
	}
}
