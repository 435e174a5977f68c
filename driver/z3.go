package driver

import (
	"errors"
	"os"
	"os/exec"
	"strings"
)

// ErrNoZ3 is wrapped by CheckZ3's error.
var ErrNoZ3 = errors.New("libz3 not found (the placement pass of -mode=bigfoot needs it): install it with\n\tapt-get install -y libz3-dev")

// CheckZ3 reports whether Z3's C library and header are installed, as the
// placement pass (cgo over Debian's libz3-dev) needs them to build.
func CheckZ3() error {
	for _, h := range []string{"/usr/include/z3.h", "/usr/local/include/z3.h"} {
		if _, err := os.Stat(h); err == nil {
			return nil
		}
	}
	if out, err := exec.Command("ldconfig", "-p").Output(); err == nil && strings.Contains(string(out), "libz3.so") {
		// The library without its header is enough to run a binary built
		// elsewhere, not to build one; say so.
		return errors.New("libz3 is installed but /usr/include/z3.h is missing: install it with\n\tapt-get install -y libz3-dev")
	}
	return ErrNoZ3
}
