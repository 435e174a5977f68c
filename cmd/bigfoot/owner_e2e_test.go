package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// ownerProgram makes each decision placement owns across functions: a
// covered call in a loop (mix__bfnc), refused covers (a callee that may
// panic, one that synchronizes), unpublished accesses, a call that keeps
// its argument unpublished (fill__bfup0), and objects published through a
// store, a channel send, a go statement and a call.
const ownerProgram = `package main

import (
	"fmt"
	"sync"
)

type key struct{ a, b uint32 }

func mix(r uint32, k *key) uint32 { return r ^ k.a ^ k.b }

func divide(r uint32, k *key) uint32 { return r / (k.a | 1) }

var mu sync.Mutex

func locked(r uint32, k *key) uint32 {
	mu.Lock()
	r ^= k.a
	mu.Unlock()
	return r
}

func fill(k *key, v uint32) {
	k.a = v
	k.b = v + 1
}

var sink *key

func publish(k *key) { sink = k }

func build(v uint32) *key {
	k := &key{}
	k.a = v
	fill(k, v)
	k.b++
	return k
}

func stored(v uint32) uint32 {
	k := &key{}
	k.a = v
	sink = k
	return k.b
}

func sent(v uint32, c chan *key) uint32 {
	k := &key{}
	k.a = v
	c <- k
	return k.b
}

func passed(v uint32) uint32 {
	k := &key{}
	k.a = v
	publish(k)
	return k.b
}

func main() {
	ks := make([]key, 64)
	for i := range ks {
		ks[i] = *build(uint32(i))
	}
	var wg sync.WaitGroup
	out := make([]uint32, 3)
	for g := 0; g < 3; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			r := uint32(g)
			for j := range ks {
				switch g {
				case 0:
					r = mix(r, &ks[j])
				case 1:
					r = divide(r, &ks[j])
				default:
					r = locked(r, &ks[j])
				}
			}
			out[g] = r
		}(g)
	}
	wg.Wait()
	c := make(chan *key, 1)
	fmt.Println(out, stored(1), sent(2, c), passed(3))
}
`

// TestOwnerAgreement checks that the binary and the report agree: every
// call of a specialized copy in the overlay bigfoot build emits is one
// that bigfoot analyze decides, and conversely; the copies emitted are the
// copies decided; and a line whose accesses analyze finds all unpublished
// has no check in the overlay.
func TestOwnerAgreement(t *testing.T) {
	if bigfootBin == "" {
		t.Skip("end-to-end test; skipped with -short")
	}
	dir := writeModule(t, map[string]string{
		"go.mod":  "module example.com/owner\n\ngo 1.22\n",
		"main.go": ownerProgram,
	})
	r := run(t, dir, nil, bigfootBin, "analyze", "-json", ".")
	if r.code != 0 {
		t.Fatalf("bigfoot analyze: %v", r)
	}
	var rep jsonReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("bad JSON: %v\n%s", err, r.stdout)
	}
	wantCalls, wantCopies := map[string]bool{}, map[string]bool{}
	unpubLines, accessLines := map[int]bool{}, map[int]bool{}
	line := func(pos string) int {
		parts := strings.Split(pos, ":")
		n, _ := strconv.Atoi(parts[len(parts)-2])
		return n
	}
	for _, p := range rep.Packages {
		for _, f := range p.Functions {
			for _, a := range f.Accesses {
				accessLines[line(a.Pos)] = true
			}
			for _, d := range f.Decisions {
				fields := strings.Fields(d.Text)
				switch fields[0] {
				case "call":
					wantCalls[fmt.Sprintf("%d %s", line(d.Pos), fields[1])] = true
				case "copy":
					wantCopies[fields[1]] = true
				case "unpub":
					unpubLines[line(d.Pos)] = true
				}
			}
		}
	}
	for _, w := range []string{"mix__bfnc", "fill__bfup0"} {
		if !wantCopies[w] {
			t.Errorf("analyze decides no copy %s: %v", w, wantCopies)
		}
	}
	if len(unpubLines) == 0 {
		t.Errorf("analyze finds no unpublished access")
	}

	src := keptMain(t, dir, "-mode=bigfoot")
	gotCalls, gotCopies := map[string]bool{}, map[string]bool{}
	callRE := regexp.MustCompile(`\b(\w+__bf(?:nc|up\d+))\(`)
	declRE := regexp.MustCompile(`^func (\w+__bf(?:nc|up\d+))\(`)
	lines := strings.Split(string(src), "\n")
	body := len(strings.Split(ownerProgram, "\n"))
	for i, l := range lines {
		if i >= body || strings.HasPrefix(l, "//line ") {
			// The trailer: helpers and copies, under //line directives.
			if d := declRE.FindStringSubmatch(l); d != nil {
				gotCopies[d[1]] = true
			}
			continue
		}
		for _, c := range callRE.FindAllStringSubmatch(l, -1) {
			gotCalls[fmt.Sprintf("%d %s", i+1, c[1])] = true
		}
	}
	compareSets(t, "calls of copies", wantCalls, gotCalls)
	compareSets(t, "copies", wantCopies, gotCopies)
	for n := range unpubLines {
		if accessLines[n] || n > len(lines) {
			continue
		}
		if l := lines[n-1]; strings.Contains(l, "__bf.R(") || strings.Contains(l, "__bf.W(") || strings.Contains(l, "__bf.R1(") || strings.Contains(l, "__bf.W1(") {
			t.Errorf("line %d: analyze finds only unpublished accesses, the overlay checks: %s", n, l)
		}
	}

	// The checks left out are legitimate: the precise-checks verifier
	// finds every access covered and every check legitimate.
	r = run(t, dir, nil, bigfootBin, "run", "-mode=bigfoot", "-tags=bigfoot_verify", ".")
	if r.code != 0 || strings.Contains(r.stderr, raceReport) {
		t.Fatalf("want exit status 0 and no race; got %v", r)
	}
	if !strings.Contains(r.stderr, " uncovered=0 illegitimate=0 ") || strings.Contains(r.stderr, "bigfoot verify: accesses=0 ") {
		t.Errorf("the verifier found violations or recorded nothing:\n%s", r.stderr)
	}
}

// compareSets reports the elements of want and got that the other lacks.
func compareSets(t *testing.T, what string, want, got map[string]bool) {
	t.Helper()
	var missing, extra []string
	for k := range want {
		if !got[k] {
			missing = append(missing, k)
		}
	}
	for k := range got {
		if !want[k] {
			extra = append(extra, k)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing) > 0 || len(extra) > 0 {
		t.Errorf("%s: analyze decides but the overlay lacks %v; the overlay has but analyze does not decide %v", what, missing, extra)
	}
}

// rowsProgram sums the rows of a flattened n×n matrix, a[i*n+j] in a loop
// over j, in goroutines: race-free.
const rowsProgram = `package main

import (
	"fmt"
	"sync"
)

func rowSum(a []float64, i, n int) float64 {
	s := 0.0
	for j := 0; j < n; j++ {
		s += a[i*n+j]
	}
	return s
}

func main() {
	const n = 64
	a := make([]float64, n*n)
	for k := range a {
		a[k] = float64(k % 7)
	}
	out := make([]float64, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			out[i] = rowSum(a, i, n)
		}(i)
	}
	wg.Wait()
	fmt.Println(out[0], out[n-1])
}
`

// TestNonlinearRange checks that a loop over a[i*n+j] (j the loop index,
// i and n invariant) gets a static range in the binary, as analyze's plan
// says, with plain accesses in the loop, and that the verifier finds
// every access covered and every check legitimate.
func TestNonlinearRange(t *testing.T) {
	if bigfootBin == "" {
		t.Skip("end-to-end test; skipped with -short")
	}
	dir := writeModule(t, map[string]string{
		"go.mod":  "module example.com/rows\n\ngo 1.22\n",
		"main.go": rowsProgram,
	})
	r := run(t, dir, nil, bigfootBin, "analyze", "-func", "rowSum", ".")
	if r.code != 0 || !strings.Contains(r.stdout, "R a[i*n..j+i*n]\t(moved|loop-range|before-return)") {
		t.Errorf("analyze places no loop range for a[i*n+j]:\n%v", r)
	}
	src := keptMain(t, dir, "-mode=bigfoot")
	lines := strings.Split(string(src), "\n")
	if l := lines[9]; !strings.Contains(l, "__bf.OpenRange(") {
		t.Errorf("the loop over j opens no static range: %s", l)
	}
	if l := lines[10]; !strings.Contains(l, "s += a[i*n+j]") || strings.Contains(l, "__bf.R(") || strings.Contains(l, "__bf.R1(") || strings.Contains(l, "__bf.F") {
		t.Errorf("the loop body checks or records a[i*n+j] per iteration: %s", l)
	}
	r = run(t, dir, nil, bigfootBin, "run", "-mode=bigfoot", "-tags=bigfoot_verify", ".")
	if r.code != 0 || strings.Contains(r.stderr, raceReport) {
		t.Fatalf("want exit status 0 and no race; got %v", r)
	}
	if !strings.Contains(r.stderr, " uncovered=0 illegitimate=0 ") || strings.Contains(r.stderr, "bigfoot verify: accesses=0 ") {
		t.Errorf("the verifier found violations or recorded nothing:\n%s", r.stderr)
	}
}

// keptMain builds the module in dir with bigfoot build -work and the given
// flags, and returns the instrumented main.go the build compiled (from
// the kept overlay, removed when the test ends).
func keptMain(t *testing.T, dir string, flags ...string) []byte {
	t.Helper()
	args := append(append([]string{"build", "-work"}, flags...), "-o", filepath.Join(t.TempDir(), "out"), ".")
	r := run(t, dir, nil, bigfootBin, args...)
	if r.code != 0 {
		t.Fatalf("bigfoot %s: %v", strings.Join(args, " "), r)
	}
	m := regexp.MustCompile(`BIGFOOT_WORK=(\S+)`).FindStringSubmatch(r.stderr)
	if m == nil {
		t.Fatalf("no BIGFOOT_WORK line: %v", r)
	}
	t.Cleanup(func() { os.RemoveAll(m[1]) })
	src, err := os.ReadFile(filepath.Join(m[1], "files", strings.ReplaceAll(filepath.Join(dir, "main.go"), ":", "")))
	if err != nil {
		t.Fatal(err)
	}
	return src
}
