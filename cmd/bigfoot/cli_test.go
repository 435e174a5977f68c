package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestCLI covers what the command does before the driver runs: help,
// version and usage errors (exit status 2).
func TestCLI(t *testing.T) {
	for _, tc := range []struct {
		args   string
		code   int
		stdout string // substring
		stderr string // substring
	}{
		{"", 2, "", "Usage:"},
		{"help", 0, "The commands are:", ""},
		{"-h", 0, "bigfoot <command>", ""},
		{"help build", 0, "usage: bigfoot build", ""},
		{"help run", 0, "exits with the\nprogram's own exit status", ""},
		{"help nosuch", 2, "", "unknown help topic"},
		{"build -h", 0, "usage: bigfoot build", ""},
		{"test -help", 0, "-mode mode", ""},
		{"version", 0, "bigfoot version ", ""},
		{"vet .", 2, "", "bigfoot vet: unknown command"},
		{"build -race .", 2, "", "bigfoot replaces -race"},
		{"test -mode=fast .", 2, "", "invalid -mode \"fast\""},
		{"run", 2, "", "no go files listed"},
		{"build -nosuch .", 2, "", "flag provided but not defined: -nosuch"},
		{"bench -h", 0, "", "-micro"},
		{"bench -micro NoSuch", 2, "", `no microbenchmark "NoSuch"`},
	} {
		var stdout, stderr bytes.Buffer
		var args []string
		if tc.args != "" {
			args = strings.Fields(tc.args)
		}
		code := bigfootMain(context.Background(), args, nil, &stdout, &stderr)
		if code != tc.code || !strings.Contains(stdout.String(), tc.stdout) || !strings.Contains(stderr.String(), tc.stderr) {
			t.Errorf("bigfoot %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", tc.args, code, tc.code, stdout.String(), stderr.String())
		}
	}
}
