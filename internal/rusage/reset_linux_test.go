package rusage

import (
	"os/exec"
	"runtime"
	"testing"
)

// TestResetPeakChild checks that a child started after ResetPeak is not
// accounted the memory this process held before: without it, a process
// that once held 256 MiB reports a child of a few MiB (true) at 256 MiB
// or more.
func TestResetPeakChild(t *testing.T) {
	const held = 256 << 20
	b := make([]byte, held)
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
	}
	runtime.KeepAlive(b)
	b = nil

	ResetPeak()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("true: %v", err)
	}
	if kib := MaxRSSKiB(cmd.ProcessState); kib >= held>>10 {
		t.Errorf("true's peak resident set: %d KiB, at least the %d KiB its parent held before ResetPeak", kib, held>>10)
	}
}
