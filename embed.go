// Package bigfoot holds the sources of the race-detection runtime that the
// build driver writes into every instrumented build.
//
// The runtime (packages detector and shadow, and any subpackages, and the
// lock and the heap mark they share, internal/spin and internal/ownheap) is
// compiled into the user's binary, whose module does not require this one;
// so the bigfoot command carries its sources and makes them resolvable
// through a temporary workspace (see docs/build.md and driver.Run).
package bigfoot

import (
	"embed"
	"io/fs"
	"strings"
)

// ModulePath is the module path of this module, which instrumented code
// imports the runtime from.
const ModulePath = "github.com/bigfoot-go/bigfoot"

// runtimeFS holds detector/, shadow/, internal/spin/ and internal/ownheap/ with everything
// below them; the driver writes out only the Go files other than tests,
// assembly and headers.
//
//go:embed detector shadow internal/spin internal/ownheap
var runtimeFS embed.FS

// Runtime returns the runtime sources, rooted at the module root: paths are
// "detector/...", "shadow/...", "internal/spin/...", "internal/ownheap/...".
func Runtime() fs.FS { return runtimeFS }

// runtimeDirs are the runtime's package trees, the directories embedded
// above.
var runtimeDirs = []string{"detector", "shadow", "internal/spin", "internal/ownheap"}

// IsRuntimePackage reports whether path is the import path of one of the
// runtime's packages or of a package below one. Builds never instrument
// them (they are compiled as in a build without -race): in this module,
// where they are the main module's, checking them would make the runtime
// import itself.
func IsRuntimePackage(path string) bool {
	rest, ok := strings.CutPrefix(path, ModulePath+"/")
	if !ok {
		return false
	}
	for _, d := range runtimeDirs {
		if rest == d || strings.HasPrefix(rest, d+"/") {
			return true
		}
	}
	return false
}
