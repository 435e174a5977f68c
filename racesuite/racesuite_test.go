package racesuite

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var modesFlag = flag.String("modes", "fasttrack,redcard,slimstate,bigfoot,bigfoot+verify", "comma-separated -mode values to run the suite in (fasttrack, bigfoot, redcard, slimstate; mode+all builds with -deps=all, the standard library instrumented too; mode+verify (after +all if both) builds with the precise-checks verifier (tag bigfoot_verify) and fails on any uncovered access or illegitimate check; gorace runs go test -race instead, as a reference)")

// TestRaceSuite runs Go's race-detector suite under bigfoot test and fails
// on any false positive (a race reported in a TestNoRace* test) or when
// fewer tests pass than floor.txt records for the mode.
//
// The suite is compiled once per mode with bigfoot test -c and the test
// binary is run with -test.v, as race_test.go runs go test -race -v, with
// GOMAXPROCS=1 and every race reported (BIGFOOT_OPTIONS=dedup=0). A test
// that crashes the binary stops the rest, so the binary is run again on
// the tests that have not run yet; the crashed test counts as failed.
func TestRaceSuite(t *testing.T) {
	if testing.Short() {
		t.Skip("the race suite takes minutes; run without -short")
	}
	goroot := goEnv(t, "GOROOT")
	files, err := Files(filepath.Join(goroot, "src", "runtime", "race", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	floors, err := Floors("floor.txt")
	if err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	tmp := t.TempDir()
	bigfoot := filepath.Join(tmp, "bigfoot")
	if *modesFlag != "gorace" {
		build := exec.Command("go", "build", "-o", bigfoot, "./cmd/bigfoot")
		build.Dir = ".."
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("building bigfoot: %v\n%s", err, out)
		}
		fmt.Printf("built bigfoot in %.1fs\n", time.Since(start).Seconds())
	}

	// The suite as a module of its own.
	mod := filepath.Join(tmp, "suite")
	if err := os.MkdirAll(mod, 0o777); err != nil {
		t.Fatal(err)
	}
	gomod := fmt.Sprintf("module racesuite\n\ngo %s\n", strings.TrimPrefix(goEnv(t, "GOVERSION"), "go"))
	if err := os.WriteFile(filepath.Join(mod, "go.mod"), []byte(gomod), 0o666); err != nil {
		t.Fatal(err)
	}
	var tests []string
	cgoMain := "" // the package of the program the cgo test runs, or ""
	for _, f := range files {
		if f.Cgo != "" && !haveCgo() {
			f.Skip = "needs cgo (no C compiler)"
		}
		if f.Skip != "" {
			fmt.Printf("skipping %s: %s (%d tests)\n", f.Name, f.Skip, len(f.Tests))
			continue
		}
		data, err := os.ReadFile(f.Path)
		if err == nil && f.Port {
			data, err = Port(data)
		}
		if err == nil {
			err = os.WriteFile(filepath.Join(mod, f.Name), data, 0o666)
		}
		if err != nil {
			t.Fatal(err)
		}
		if f.Cgo != "" {
			cgoMain = "./cgomain"
			if err := copyInto(filepath.Join(mod, "cgomain", "main.go"), f.Cgo); err != nil {
				t.Fatal(err)
			}
		}
		tests = append(tests, f.Tests...)
	}

	for _, mode := range strings.Split(*modesFlag, ",") {
		t.Run(mode, func(t *testing.T) {
			runSuite(t, bigfoot, mod, mode, cgoMain, tests, floors)
		})
	}
}

// haveCgo reports whether cgo programs can be built: a C compiler is
// installed and CGO_ENABLED is not 0.
func haveCgo() bool {
	if _, err := exec.LookPath("gcc"); err != nil {
		return false
	}
	out, err := exec.Command("go", "env", "CGO_ENABLED").Output()
	return err == nil && strings.TrimSpace(string(out)) == "1"
}

// copyInto copies the file src to dst, creating dst's directory.
func copyInto(dst, src string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o777); err != nil {
		return err
	}
	return os.WriteFile(dst, data, 0o666)
}

// runSuite compiles the suite in mode, and the cgo test's program
// (cgoMain, a package of the suite's module, if not ""), runs it, prints
// a line per failing test and "N passed, M failed", and checks false
// positives and the floor.
func runSuite(t *testing.T, bigfoot, mod, mode, cgoMain string, tests []string, floors map[string]int) {
	start := time.Now()
	bin := filepath.Join(mod, "suite-"+mode+".test")
	placement, verify := strings.CutSuffix(mode, "+verify")
	placement, all := strings.CutSuffix(placement, "+all")
	flags := []string{"-mode=" + placement}
	if all {
		flags = append(flags, "-deps=all")
	}
	if verify {
		flags = append(flags, "-tags=bigfoot_verify")
	}
	args := append([]string{"test", "-c", "-o", bin}, flags...)
	cmd := exec.Command(bigfoot, append(args, ".")...)
	if mode == "gorace" {
		cmd = exec.Command("go", "test", "-race", "-c", "-o", bin, ".")
	}
	cmd.Dir = mod
	cmd.Env = suiteEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("bigfoot test -c -mode=%s: %v\n%s", mode, err, out)
	}
	var env []string
	if cgoMain != "" {
		// The program go run -race would build, built the same way as
		// the suite: with this mode, or with go build -race.
		main := filepath.Join(mod, "cgomain-"+mode)
		args := append(append([]string{"build", "-o", main}, flags...), cgoMain)
		cmd := exec.Command(bigfoot, args...)
		if mode == "gorace" {
			cmd = exec.Command("go", "build", "-race", "-o", main, cgoMain)
		}
		cmd.Dir = mod
		cmd.Env = suiteEnv()
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("building %s for the cgo test: %v\n%s", cgoMain, err, out)
		}
		env = append(env, CgoMainEnv+"="+main)
	}
	fmt.Printf("%s: compiled the suite in %.1fs\n", mode, time.Since(start).Seconds())

	start = time.Now()
	var verified VerifyTotals
	results := RunAll(tests, func(tests []string) []byte {
		out := runBinary(t, bin, mod, env, tests)
		if verify {
			verified.Add(out)
		}
		return out
	},
		func(crash string, left int) {
			fmt.Printf("%s: the suite binary stopped (%s); running the %d tests left\n", mode, crash, left)
		})
	fmt.Printf("%s: ran the suite in %.1fs\n", mode, time.Since(start).Seconds())

	passed, failed := 0, 0
	var falsePos []string
	for _, name := range tests {
		r := results[strings.TrimPrefix(name, "Test")]
		if r == nil || r.Skipped {
			continue
		}
		if r.Passed {
			passed++
			if r.Failing {
				fmt.Printf("%s (expected failure that passed)\n", r)
			}
			continue
		}
		failed++
		fmt.Println(r)
		if r.FalsePositive() && !r.Failing {
			falsePos = append(falsePos, name)
		}
	}
	fmt.Printf("%d passed, %d failed\n", passed, failed)
	if verify {
		fmt.Printf("%s: verifier: %s\n", mode, verified)
		if verified.Runs == 0 || verified.Accesses == 0 {
			t.Errorf("%s: no \"bigfoot verify:\" summary in the suite's output", mode)
		}
		if verified.Uncovered+verified.Illegitimate > 0 || len(verified.Violations) > 0 {
			t.Errorf("%s: the verifier found %d uncovered accesses and %d illegitimate checks:\n%s",
				mode, verified.Uncovered, verified.Illegitimate, strings.Join(verified.Violations, "\n"))
		}
	}

	if len(falsePos) > 0 {
		t.Errorf("%s: %d false positives: %s", mode, len(falsePos), strings.Join(falsePos, " "))
	}
	if floor, ok := floors[mode]; ok && passed < floor {
		t.Errorf("%s: %d tests passed, fewer than the floor %d in floor.txt", mode, passed, floor)
	} else if ok && passed > floor {
		t.Logf("%s: %d tests passed, more than the floor %d: raise it in floor.txt", mode, passed, floor)
	}
}

// runBinary runs the compiled suite on the named tests, with env added to
// the environment, and returns the combined output, stdout and stderr
// interleaved as written.
func runBinary(t *testing.T, bin, dir string, env, tests []string) []byte {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-test.v", "-test.timeout=90s", "-test.run=^("+strings.Join(tests, "|")+")$")
	cmd.Dir = dir
	cmd.Env = append(suiteEnv(),
		"GOMAXPROCS=1",
		"GORACE=suppress_equal_stacks=0 suppress_equal_addresses=0",
		"BIGFOOT_OPTIONS=dedup=0",
	)
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Logf("the suite binary was killed after 10 minutes: %v", err)
	}
	return out
}

// suiteEnv is the environment without the settings race_test.go clears.
func suiteEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		switch {
		case strings.HasPrefix(kv, "GOMAXPROCS="), strings.HasPrefix(kv, "GODEBUG="),
			strings.HasPrefix(kv, "GORACE="), strings.HasPrefix(kv, "BIGFOOT_OPTIONS="),
			strings.HasPrefix(kv, "GOWORK="), strings.HasPrefix(kv, "GOFLAGS="):
			continue
		}
		env = append(env, kv)
	}
	return env
}

// goEnv returns go env key.
func goEnv(t *testing.T, key string) string {
	out, err := exec.Command("go", "env", key).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", key, err)
	}
	return strings.TrimSpace(string(out))
}
