package driver

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWorkspaceGodebug: a main package's default GODEBUG, as go list
// reports it, is the same in bigfoot's temporary go.work as in the
// user's setup: a module's go line and godebug lines, or an active
// go.work's.
func TestWorkspaceGodebug(t *testing.T) {
	requireGo(t)
	main := "package main\n\nfunc main() {}\n"
	for name, files := range map[string]map[string]string{
		"module": {
			"m/go.mod":  "module example.com/m\n\ngo 1.17\n\ngodebug (\n\tpanicnil=0\n\thttpmuxgo121=0\n)\n",
			"m/main.go": main,
		},
		"module without go line": {
			"m/go.mod":  "module example.com/m\n",
			"m/main.go": main,
		},
		"workspace": {
			"go.work":   "go 1.21\n\ngodebug randseednop=1\n\nuse ./m\n",
			"m/go.mod":  "module example.com/m\n\ngo 1.21\n\ngodebug panicnil=0\n",
			"m/main.go": main,
		},
	} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			writeTree(t, root, files)
			dir := filepath.Join(root, "m")
			env := append(os.Environ(), "GOWORK=", "GOFLAGS=")
			ctx := context.Background()
			list := func(env []string) string {
				out, err := runQuiet(ctx, "go", dir, env, "list", "-f", "{{.DefaultGODEBUG}}", ".")
				if err != nil {
					t.Fatal(err)
				}
				return strings.TrimSpace(string(out))
			}
			want := list(env)
			ge, err := readGoEnv(ctx, "go", dir, env)
			if err != nil {
				t.Fatal(err)
			}
			ws, err := userWorkspace(ctx, "go", dir, env, ge)
			if err != nil {
				t.Fatal(err)
			}
			work := filepath.Join(t.TempDir(), "go.work")
			if err := writeWorkspace(work, ws, "", ge.GOWORK, nil); err != nil {
				t.Fatal(err)
			}
			if got := list(setEnv(env, "GOWORK", work)); got != want {
				t.Errorf("default GODEBUG in bigfoot's go.work:\n%s\nin the user's setup:\n%s", got, want)
			}
		})
	}
}
