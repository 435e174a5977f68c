package driver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// go test vets each package it tests (go help test, "-vet") and does not
// run the tests of a package vet fails. Through the overlay, vet would see
// the instrumented files: the checks the instrumenter inserted hide some
// of vet's findings (a Printf call whose function value goes through the
// detector's hook is no Printf call to vet), and the positions of the
// others lose their columns. go test takes no -vettool, so bigfoot test
// runs the go command with -toolexec naming a script that runs every tool
// as it is but vet, which it runs through bigfoot (VetTool): that gives
// cmd/vet the package's original files in place of their instrumented
// copies, and vet reports what it reports under go test -race. The go
// command keys its cache by each tool's -V=full answer, which the script
// leaves alone but vet's, so compiled packages are shared with builds
// without the script.

// VetToolVerb is the first argument of bigfoot when the go command runs
// vet through it; the command line does not document it.
const VetToolVerb = "__vettool"

// vetToolID marks the vet tool's identity (-V=full), which the go command
// keys its cache of vet results by: a result of cmd/vet on the
// instrumented files is not one on the original files.
const vetToolID = "bigfoot-original-files"

// toolexecScript writes into the run's temporary directory the script the
// go command runs its tools through (vet through VetTool, a compile with
// embedded files through EmbedTool), and returns its path, or "" if there
// is none to write: bigfoot does not know its executable (Config.Self),
// the verb is neither test nor build, or the user gave -toolexec (vet and
// embedded files then see the instrumented files).
func (d *run) toolexecScript(overlay string) (string, error) {
	if d.cfg.Self == "" || d.inv.Verb != "test" && d.inv.Verb != "build" {
		return "", nil
	}
	for _, a := range d.inv.GoArgs {
		if name, _, _, ok := splitFlag(a); ok && name == "toolexec" {
			return "", nil
		}
	}
	script := filepath.Join(d.tmp, "toolexec")
	self, ov := shellQuote(d.cfg.Self), shellQuote(overlay)
	text := "#!/bin/sh\ncase \"$1\" in\n" +
		"*/vet) exec " + self + " " + VetToolVerb + " " + ov + ` "$@" ;;` + "\n" +
		"*/compile) for a; do [ \"$a\" = -embedcfg ] && exec " + self + " " + EmbedToolVerb + " " + ov + ` "$@"; done ;;` + "\n" +
		"esac\nexec \"$@\"\n"
	if err := os.WriteFile(script, []byte(text), 0o777); err != nil {
		return "", fmt.Errorf("writing the tool script: %w", err)
	}
	return script, nil
}

// shellQuote quotes s for sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// VetTool runs cmd/vet (the executable vet) with args, the arguments the
// go command gives it, for a build through overlay: a
// configuration file (the last argument, *.cfg) is rewritten so that its
// Go files are the originals of the overlay's replacements, and files the
// overlay added (bigfoot's own) are left out, unless the originals do not
// type-check. It returns vet's exit status.
func VetTool(vet, overlay string, args []string, stdout, stderr io.Writer) int {
	if len(args) == 1 && args[0] == "-V=full" {
		out, err := exec.Command(vet, args...).Output()
		if err != nil {
			fmt.Fprintf(stderr, "bigfoot: %s -V=full: %v\n", vet, err)
			return 1
		}
		fmt.Fprintln(stdout, markedToolID(string(out)))
		return 0
	}
	n := len(args)
	if n == 0 || !strings.HasSuffix(args[n-1], ".cfg") {
		return runVet(vet, args, stdout, stderr)
	}
	cfg, err := originalFilesConfig(args[n-1], overlay)
	if err != nil {
		fmt.Fprintf(stderr, "bigfoot: vet: %v\n", err)
		return 1
	}
	defer os.Remove(cfg)
	var out, errs bytes.Buffer
	code := runVet(vet, append(args[:n-1:n-1], cfg), &out, &errs)
	if code != 0 && bytes.HasPrefix(errs.Bytes(), []byte("vet: ")) {
		// The original files do not type-check where the instrumented
		// ones do: they call what only a -race build's runtime has
		// (runtime.RaceAcquire, ...), which the instrumenter replaced.
		// vet sees the instrumented files, as without bigfoot's script.
		return runVet(vet, args, stdout, stderr)
	}
	stdout.Write(out.Bytes())
	stderr.Write(errs.Bytes())
	return code
}

// runVet runs vet with args and returns its exit status.
func runVet(vet string, args []string, stdout, stderr io.Writer) int {
	cmd := exec.Command(vet, args...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Run(); err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		fmt.Fprintf(stderr, "bigfoot: vet: %v\n", err)
		return 1
	}
	return 0
}

// markedToolID returns vet's -V=full answer line with vetToolID added
// before the build ID that ends a development toolchain's answer (the go
// command reads it there), or at the end.
func markedToolID(line string) string {
	f := strings.Fields(line)
	if n := len(f); n > 0 && strings.HasPrefix(f[n-1], "buildID=") {
		return strings.Join(append(f[:n-1:n-1], vetToolID, f[n-1]), " ")
	}
	return strings.Join(append(f, vetToolID), " ")
}

// originalFilesConfig writes a copy of the vet configuration file cfg
// whose files (GoFiles, NonGoFiles, IgnoredFiles) are the originals of
// overlay's replacement files, without the files overlay adds, and returns
// the copy's name.
func originalFilesConfig(cfg, overlay string) (string, error) {
	data, err := os.ReadFile(cfg)
	if err != nil {
		return "", err
	}
	var conf map[string]json.RawMessage
	if err := json.Unmarshal(data, &conf); err != nil {
		return "", fmt.Errorf("%s: %v", cfg, err)
	}
	orig, err := overlayOriginals(overlay)
	if err != nil {
		return "", err
	}
	for _, key := range []string{"GoFiles", "NonGoFiles", "IgnoredFiles"} {
		if conf[key] == nil {
			continue
		}
		var files []string
		if err := json.Unmarshal(conf[key], &files); err != nil {
			return "", fmt.Errorf("%s: %s: %v", cfg, key, err)
		}
		kept := files[:0]
		for _, f := range files {
			if from, ok := orig[f]; ok {
				if _, err := os.Stat(from); err != nil {
					continue // a file of bigfoot's
				}
				f = from
			}
			kept = append(kept, f)
		}
		if conf[key], err = json.Marshal(kept); err != nil {
			return "", err
		}
	}
	if data, err = json.Marshal(conf); err != nil {
		return "", err
	}
	return writeTemp("bigfoot-vet-*.cfg", data)
}
