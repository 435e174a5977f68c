package driver

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// A goroutine blocked in a hooked operation (a channel receive outside a
// select, Lock, WaitGroup.Wait, ...) blocks inside the detector's hook,
// or inside package sync's method as its splice renamed it (__bf_Lock):
// frames go -race's build does not have. The runtime hides its own frames
// from the tracebacks it prints (runtime.Stack, a panic's or a crash's
// trace, the goroutine profile with debug=2) unless GOTRACEBACK asks for
// system frames (showfuncinfo in traceback.go); the driver patches that
// test to hide the detector's frames and the shim's the same way, so
// these tracebacks list the user's frames as under go -race
// (TestSameBlockedFrames). runtime.Callers and the goroutine profile's
// other forms still return every frame.

// tracebackDecl is showfuncinfo's last line in the runtime's traceback.go,
// and tracebackHooked the same line leaving out bigfoot's frames.
const (
	tracebackDecl   = "\treturn bytealg.IndexByteString(name, '.') >= 0 && (!stringslite.HasPrefix(name, \"runtime.\") || isExportedRuntime(name))\n}\n"
	tracebackHooked = "\treturn bytealg.IndexByteString(name, '.') >= 0 && (!stringslite.HasPrefix(name, \"runtime.\") || isExportedRuntime(name)) && !bigfootFrame(name)\n}\n"
)

// tracebackFunc, appended to traceback.go, names the frames the patched
// line leaves out: the detector's and the shadow's, and the standard
// library's shim and splices (whose names have "__bf_").
const tracebackFunc = `
// bigfootFrame reports whether the function name is the race detector's
// (bigfoot's), whose frames a traceback hides as it hides the runtime's.
func bigfootFrame(name string) bool {
	return stringslite.HasPrefix(name, "github.com/bigfoot-go/bigfoot/") || stringslite.Index(name, "__bf_") >= 0
}
`

// tracebackFiles returns traceback.go of package runtime in dir with
// showfuncinfo patched, or an error where its last line is not as
// expected.
func tracebackFiles(dir string) (map[string][]byte, error) {
	file := filepath.Join(dir, "traceback.go")
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	src := string(data)
	if strings.Count(src, tracebackDecl) != 1 {
		return nil, fmt.Errorf("%s: showfuncinfo's last line not found once as expected", file)
	}
	src = strings.Replace(src, tracebackDecl, tracebackHooked, 1) + tracebackFunc
	return map[string][]byte{file: []byte(src)}, nil
}
