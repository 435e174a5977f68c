package instrument_test

import (
	"bytes"
	"context"
	"go/build"
	"os"
	"path/filepath"
	"testing"

	"github.com/bigfoot-go/bigfoot/instrument"
	"github.com/bigfoot-go/bigfoot/mode"
)

// TestStdUnpublished instruments package math as a standard-library
// package: math.Float64bits loads its parameter through
// *(*uint64)(unsafe.Pointer(&f)), an access to an object the function has
// not published (docs/placement.md, "Unpublished objects"), so it keeps
// no check. Before, every call of Pow, Sin, Exp, ... checked it.
func TestStdUnpublished(t *testing.T) {
	env := append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=", "GOWORK=off")
	res, err := instrument.Run(context.Background(), instrument.Config{Dir: "..", Patterns: []string{"math"}, Std: true, Mode: mode.BigFoot, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	src, ok := res.Replace[filepath.Join(build.Default.GOROOT, "src", "math", "unsafe.go")]
	if !ok {
		return // nothing of the file checked
	}
	for _, line := range bytes.Split(src, []byte("\n")) {
		if bytes.HasPrefix(line, []byte("func Float64bits(")) && bytes.Contains(line, []byte("__bf")) {
			t.Errorf("Float64bits is checked:\n%s", line)
		}
	}
}
