//go:build unix

package corpus

import (
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"time"
)

// maxRSSKiB returns the largest peak resident set of the exited process
// and of the descendants it waited for (the compiler, the linker, the test
// binaries), in KiB, or 0 if the system does not say.
func maxRSSKiB(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok || ru == nil {
		return 0
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss) / 1024 // bytes there
	}
	return int64(ru.Maxrss) // KiB on Linux and the BSDs
}

// killGroup runs cmd in a process group of its own and makes its
// cancellation kill the whole group: the test binaries the go command
// started, not only the go command.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
}
