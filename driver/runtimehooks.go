package driver

import (
	"fmt"
	"os"
	"path/filepath"
)

// runtimeHookFiles returns the files that make the runtime call the
// detector at a program's exit (exithook.go) and at a goroutine's start and
// end (gohook.go) in package runtime in dir: proc.go patched and the files
// declaring the hooks. It fails where the toolchain's proc.go does not take
// every patch, so that a build has all of them or none
// (Request.RuntimeHooks).
func runtimeHookFiles(dir string) (map[string][]byte, error) {
	file := filepath.Join(dir, "proc.go")
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	src := string(data)
	for _, patch := range []func(string) (string, error){patchExit, patchGoroutines} {
		if src, err = patch(src); err != nil {
			return nil, fmt.Errorf("%s: %v", file, err)
		}
	}
	return map[string][]byte{
		file:                             []byte(src),
		filepath.Join(dir, exitHookFile): []byte(exitHookSource),
		filepath.Join(dir, goHookFile):   []byte(goHookSource),
	}, nil
}

// runtimeHooked reports whether the toolchain at goroot takes the runtime's
// hooks: its runtime takes the files every build adds (gcCountDir) and
// runtimeHookFiles' patches.
func runtimeHooked(goroot string) bool {
	dir, err := gcCountDir(goroot)
	if err != nil {
		return false
	}
	_, err = runtimeHookFiles(dir)
	return err == nil
}
