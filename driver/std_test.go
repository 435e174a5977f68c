package driver

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bigfoot-go/bigfoot/placement"
)

// TestSpliceSync applies the sync hooks to this toolchain's package sync:
// every declaration they extend must be found once (a new Go release that
// changes one fails here, not in a user's build), the files must still
// parse, and no line may move.
func TestSpliceSync(t *testing.T) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "src", "sync")
	overlay := map[string][]byte{}
	if err := spliceSync(dir, overlay); err != nil {
		t.Fatal(err)
	}
	files := map[string]bool{}
	for _, sp := range syncSplices {
		files[sp.file] = true
	}
	for name := range files {
		path := filepath.Join(dir, name)
		src, ok := overlay[path]
		if !ok {
			t.Fatalf("%s not in the overlay", name)
		}
		orig, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := strings.Count(string(src), "\n"), strings.Count(string(orig), "\n"); got != want {
			t.Errorf("%s: %d lines, want %d: a splice moved lines", name, got, want)
		}
		if _, err := parser.ParseFile(token.NewFileSet(), path, src, 0); err != nil {
			t.Errorf("%s does not parse after splicing: %v", name, err)
		}
	}
	if _, err := parser.ParseFile(token.NewFileSet(), syncHooksFile, overlay[filepath.Join(dir, syncHooksFile)], 0); err != nil {
		t.Errorf("%s: %v", syncHooksFile, err)
	}
}

// unsplicedSync are the methods of package sync's types that
// placement's table of synchronizing calls hooks at a user's call and
// that the splices leave alone, with the reason.
var unsplicedSync = map[string]string{
	"sync.WaitGroup.Done": "Done is Add(-1): Add's splice releases",
	"sync.WaitGroup.Go":   "Go calls Add and Done, and the runtime orders the goroutine it starts",
	"sync.Once.Do":        "its splices are inside Do's body and doSlow's (once.go)",
	"sync.Locker.Lock":    "an interface: the Mutex or RWMutex behind it is spliced",
	"sync.Locker.Unlock":  "an interface: the Mutex or RWMutex behind it is spliced",
	"sync.Cond.Wait":      "Wait's own edges are its Locker's, whose Unlock and Lock are spliced; Signal and Broadcast order nothing",
}

// TestSyncSplicesFollowTable checks that each method of package sync
// that placement's table of synchronizing calls hooks at a user's call is
// hooked inside package sync too, where the standard library's own calls
// go through (syncSplices), or is listed in unsplicedSync with the
// reason: a method added to the table and not to the splices fails here.
func TestSyncSplicesFollowTable(t *testing.T) {
	for key, c := range placement.SyncCalls() {
		parts := strings.Split(key, ".")
		if c.Hook == "" || len(parts) != 3 || parts[0] != "sync" {
			continue
		}
		if _, ok := unsplicedSync[key]; ok {
			continue
		}
		decl := fmt.Sprintf(" *%s) %s(", parts[1], parts[2])
		found := false
		for _, sp := range syncSplices {
			found = found || strings.Contains(sp.decl, decl)
		}
		if !found {
			t.Errorf("%s is hooked at users' calls (%s) but not spliced into package sync, and unsplicedSync gives no reason", key, c.Hook)
		}
	}
	for key := range unsplicedSync {
		if _, ok := placement.SyncCalls()[key]; !ok {
			t.Errorf("unsplicedSync lists %s, which the table does not", key)
		}
	}
}

// TestStdHooksNoEscape checks the promise behind the //go:noescape marks
// of stdShim: in every build of the detector (the verifier's and the
// counting build's tags too), the compiler's escape analysis finds that
// the hooks they name let no checked address escape.
func TestStdHooksNoEscape(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the detector three times")
	}
	// The hooks marked in stdShim, and their address parameter.
	hooks := map[string]string{"stdCheck": "p", "stdCheckGroup": "p", "stdCheckCur": "p", "stdCheckGroupCur": "p", "stdCheckRangeCur": "base", "stdCheckRange": "base", "stdRecord": "p", "stdRecordAt": "p", "stdAccess": "p", "stdFootprintFrame": "frame"}
	shim := map[string]string{"stdCheck": "check", "stdCheckGroup": "checkGroup", "stdCheckCur": "checkCur", "stdCheckGroupCur": "checkGroupCur", "stdCheckRangeCur": "checkRangeCur", "stdCheckRange": "checkRange", "stdRecord": "record", "stdRecordAt": "recordAt", "stdAccess": "access", "stdFootprintFrame": "footprintFrame"}
	for name, local := range shim {
		mark := "//go:noescape\n//go:linkname __bf_" + local + " github.com/bigfoot-go/bigfoot/detector." + name + "\n"
		if !strings.Contains(stdShim, mark) {
			t.Errorf("stdShim lacks %q", mark)
		}
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filepath.Join("..", "detector", "std.go"), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var want []string // "std.go:line:col: p does not escape"
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || hooks[fd.Name.Name] == "" {
			continue
		}
		for _, field := range fd.Type.Params.List {
			for _, n := range field.Names {
				if n.Name == hooks[fd.Name.Name] {
					pos := fset.Position(n.Pos())
					want = append(want, fmt.Sprintf("std.go:%d:%d: %s does not escape", pos.Line, pos.Column, n.Name))
				}
			}
		}
	}
	if len(want) != len(hooks) {
		t.Fatalf("found %d of the %d hooks in detector/std.go", len(want), len(hooks))
	}
	for _, tags := range []string{"", "bigfoot_verify", "bigfoot_count"} {
		out, err := exec.Command("go", "build", "-o", os.DevNull, "-tags", tags, "-gcflags=-m", "../detector").CombinedOutput()
		if err != nil {
			t.Fatalf("tags %q: %v\n%s", tags, err, out)
		}
		for _, w := range want {
			if !strings.Contains(string(out), w) {
				t.Errorf("tags %q: the escape analysis does not say %q", tags, w)
			}
		}
	}
}

// TestStdRewriteGoStatement: a standard-library file keeps its go
// statements instrumented as the instrumenter renders them with the
// runtime's hooks (ForkNext before the go statement, Cur in a function
// literal for a hooked call) and without them (Fork, Go1): the shim has
// every name they use. (Without ForkNext among the shim's methods, every
// package with a go statement was left uninstrumented, net/http's dial
// goroutine among them.)
func TestStdRewriteGoStatement(t *testing.T) {
	const head = "package p\n\nimport __bf \"github.com/bigfoot-go/bigfoot/detector\"\n\nfunc g(int) {}\n\nfunc f(x int, c chan int) {\n\t__bfg := __bf.Cur()\n\t"
	for _, stmt := range []string{
		"{ __bft1 := x; __bfg.ForkNext(1); go g(__bft1) }",
		"{ __bft1 := c; __bfg.ForkNext(1); go func() { __bfg := __bf.Cur(); close(__bf.Close(__bfg, __bft1)) }() }",
		"{ __bft1 := x; __bft2 := __bfg.Fork(1); go __bf.Go1(__bft2, g, __bft1) }",
	} {
		if _, why := stdRewrite([]byte(head+stmt+"\n}\n"), map[string]bool{}); why != "" {
			t.Errorf("%s: %s", stmt, why)
		}
	}
}

// TestStdRewriteElidedAccess: a standard-library file instrumented for a
// build with the tag bigfoot_verify or bigfoot_count, where the
// instrumenter announces each access whose check the static pass elided
// (A), keeps its instrumentation: the shim has A. (Without it, 88 packages
// a klauspost/compress test imports, net/http among them, were left
// uninstrumented in a verify build, and the response net/http's readLoop
// hands to the caller through a channel was unordered: a false race.)
func TestStdRewriteElidedAccess(t *testing.T) {
	const src = "package p\n\nimport __bf \"github.com/bigfoot-go/bigfoot/detector\"\n\nfunc f(x *int) {\n\t__bfg := __bf.Cur()\n\t*__bf.W(__bfg, x, 1) = 1\n\t*__bf.A(__bfg, x, true, 2) = 2\n}\n"
	used := map[string]bool{}
	if _, why := stdRewrite([]byte(src), used); why != "" {
		t.Fatalf("left uninstrumented: %s", why)
	}
	if !used["A"] {
		t.Fatal("the rewrite does not name A among the hooks it uses")
	}
}

// TestStdRewriteFootprints: a standard-library file whose loops record
// accesses in footprints, by every form the instrumenter emits (F; FM,
// whose sites share elements; FG, a field group's), keeps its
// instrumentation: the shim has each. (Without FM, a package with one
// merge or one if/else writing s[i] was left uninstrumented, regexp,
// sort and strconv among them.)
func TestStdRewriteFootprints(t *testing.T) {
	const src = "package p\n\nimport __bf \"github.com/bigfoot-go/bigfoot/detector\"\n\ntype pt struct{ x, y int }\n\nfunc f(s []int, ps []pt) {\n\t__bfg := __bf.Cur()\n\t__bfF0, __bfF1, __bfF2 := __bfg.FootprintFrame(1, true, &__bfg), __bfg.Footprint(2, true), __bfg.Footprint(3, false)\n" +
		"\tfor i := range s {\n\t\t*__bf.F(__bfF0, &s[i], 1) = 1\n\t\tif i%2 == 0 {\n\t\t\t*__bf.FM(__bfF1, &s[i], 2) = 1\n\t\t} else {\n\t\t\t*__bf.FM(__bfF1, &s[i], 4) = 2\n\t\t}\n\t\t_ = __bf.FG(__bfF2, &ps[i].x, 0, 0, 16, 3).x\n\t}\n\t__bfg.PopFootprints(__bfF0)\n}\n"
	used := map[string]bool{}
	if _, why := stdRewrite([]byte(src), used); why != "" {
		t.Fatalf("left uninstrumented: %s", why)
	}
	for _, h := range []string{"F", "FM", "FG"} {
		if !used[h] {
			t.Errorf("the rewrite does not name %s among the hooks it uses", h)
		}
	}
}
