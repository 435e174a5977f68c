package main

import "testing"

// TestEmbeddedSourcesOriginal: a package that embeds its own Go file gets
// the file as it is on disk, as under go test -race, not the overlay's
// instrumented copy (valyala/fasthttp's file-server tests serve their own
// fs.go and compare its length with os.Stat's: every one failed under
// bigfoot before the tool script gave the compiler the originals,
// driver/embedtool.go). Under bigfoot build too.
func TestEmbeddedSourcesOriginal(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"go.mod": "module example.com/embedsrc\n\ngo 1.24\n",
		"src.go": `package embedsrc

import _ "embed"

//go:embed src.go
var Self string

var counter int

// Count is instrumented: the overlay's src.go differs from this one.
func Count() int { counter++; return counter }
`,
		"src_test.go": `package embedsrc

import (
	"os"
	"testing"
)

func TestSelf(t *testing.T) {
	disk, err := os.ReadFile("src.go")
	if err != nil {
		t.Fatal(err)
	}
	if Self != string(disk) {
		t.Fatalf("embedded src.go has %d bytes, the file on disk %d", len(Self), len(disk))
	}
	Count()
}
`,
		"cmd/main.go": `package main

import (
	"fmt"

	"example.com/embedsrc"
)

func main() { fmt.Println(len(embedsrc.Self), embedsrc.Count()) }
`,
	})
	sameAsGoRace(t, dir, nil, "-count=1", ".")
	want := run(t, dir, nil, "go", "run", "-race", "./cmd")
	exe := t.TempDir() + "/embedsrc"
	run(t, dir, nil, bigfootBin, "build", "-o", exe, "./cmd")
	if got := run(t, dir, nil, exe); got.stdout != want.stdout {
		t.Errorf("bigfoot build's program prints %q, go run -race's %q", got.stdout, want.stdout)
	}
}
