//go:build !unix

package corpus

import (
	"os"
	"os/exec"
)

func maxRSSKiB(*os.ProcessState) int64 { return 0 }

func killGroup(*exec.Cmd) {}
