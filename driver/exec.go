package driver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
)

// goCommand runs the go command with args in the run's directory and
// environment, its standard streams connected to bigfoot's.
func (d *run) goCommand(ctx context.Context, env []string, args []string) (int, error) {
	return d.command(ctx, env, append([]string{d.cfg.GoCmd}, args...))
}

// command runs argv in the run's directory with env, passing the standard
// streams through, and returns its exit status. bigfoot survives an
// interrupt the child also receives, so that it can remove its temporary
// directory after the child ends.
func (d *run) command(ctx context.Context, env []string, argv []string) (int, error) {
	if d.inv.X || d.inv.Verbose {
		prefix := ""
		if w := lookupEnv(env, "GOWORK"); d.tmp != "" && strings.HasPrefix(w, d.tmp) {
			prefix = "GOWORK=" + w + " "
		}
		fmt.Fprintf(d.cfg.Stderr, "bigfoot: %s%s\n", prefix, strings.Join(argv, " "))
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = d.dir
	cmd.Env = env
	cmd.Stdin = d.cfg.Stdin
	cmd.Stdout = d.cfg.Stdout
	cmd.Stderr = d.cfg.Stderr

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	defer signal.Stop(sig)

	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, nil
	case errors.As(err, &ee):
		if code := ee.ExitCode(); code >= 0 {
			return code, nil
		}
		return 1, fmt.Errorf("%s: %v", argv[0], ee.ProcessState) // killed by a signal
	default:
		return 1, fmt.Errorf("running %s: %w", argv[0], err)
	}
}

// setEnv returns env with key set to value, replacing earlier settings.
func setEnv(env []string, key, value string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, key+"=") {
			out = append(out, kv)
		}
	}
	return append(out, key+"="+value)
}

// lookupEnv returns the last value of key in env.
func lookupEnv(env []string, key string) string {
	v, _ := lookupEnvOK(env, key)
	return v
}

// lookupEnvOK returns the last value of key in env and whether key is set.
func lookupEnvOK(env []string, key string) (string, bool) {
	v, ok := "", false
	for _, kv := range env {
		if strings.HasPrefix(kv, key+"=") {
			v, ok = kv[len(key)+1:], true
		}
	}
	return v, ok
}

// filterGOFLAGS removes from a GOFLAGS value the flags that the workspace
// build cannot honour (-mod other than readonly, -modfile) or that bigfoot
// replaces (-race), and returns the rest and what it removed.
func filterGOFLAGS(goflags string) (kept string, dropped []string) {
	var keep []string
	for _, f := range strings.Fields(goflags) {
		name, val, _, ok := splitFlag(f)
		switch {
		case ok && name == "mod" && val != "readonly",
			ok && name == "modfile",
			ok && name == "race":
			dropped = append(dropped, f)
		default:
			keep = append(keep, f)
		}
	}
	return strings.Join(keep, " "), dropped
}
