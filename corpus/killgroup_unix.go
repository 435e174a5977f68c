//go:build unix

package corpus

import (
	"os/exec"
	"syscall"
	"time"
)

// killGroup runs cmd in a process group of its own and makes its
// cancellation kill the whole group: the test binaries the go command
// started, not only the go command.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
}
