package instrument

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"

	"golang.org/x/tools/go/packages"
)

// The list driver: loading without compiling the packages to instrument.
//
// go/packages type-checks the packages named by the patterns from source
// and their imports from export data, which it asks of go list -export.
// But go list -export compiles every package it lists, the patterns'
// packages and their test variants too: a compile of each package the
// instrumenter then type-checks from source anyway, and before the build
// compiles it once more, instrumented. For a module's packages on a fresh
// checkout that compile was about as long as the rest of bigfoot's work
// (docs/build.md, "Build cost").
//
// So the loads that need types go through a go/packages driver
// (GOPACKAGESDRIVER) that bigfoot's own binary serves (ServeListDriver):
// it lists the import graph without export data, then asks go list
// -export for the packages outside the main module only (the standard
// library and the dependencies, which the build cache has), and answers
// with the main module's packages without export data. go/packages
// type-checks such packages from source, as it does any package whose
// export data is missing; those that are not roots without function
// bodies. The answer is otherwise go list's, so the packages, their files
// and errors are the same.

// ListDriverEnv marks a run of bigfoot's binary as the driver: its value
// is the directory the load runs in.
const ListDriverEnv = "BIGFOOT_LIST_DRIVER"

// ListRootsEnv names, space-separated, packages of the import graph the
// driver answers with as roots besides the patterns' (and without their
// tests): the main module's packages the patterns import, which the
// instrumenter rewrites too. go/packages type-checks a root with its
// function bodies, so that one load serves both, where a load of those
// packages alone listed the graph and the export data again.
const ListRootsEnv = "BIGFOOT_LIST_ROOTS"

// driverEnv returns env with the driver set, and true; or env as it is
// and false if there is no driver or the user chose one of their own
// (GOPACKAGESDRIVER): theirs answers.
func driverEnv(env []string, driver, dir string) ([]string, bool) {
	if driver == "" {
		return env, false
	}
	for _, kv := range env {
		if strings.HasPrefix(kv, "GOPACKAGESDRIVER=") {
			return env, false
		}
	}
	return append(env[:len(env):len(env)], "GOPACKAGESDRIVER="+driver, ListDriverEnv+"="+dir), true
}

// ServeListDriver answers the go/packages request read from stdin for the
// patterns (the driver's arguments) on stdout.
func ServeListDriver(ctx context.Context, patterns []string, stdin io.Reader, stdout io.Writer) error {
	var req packages.DriverRequest
	if err := json.NewDecoder(stdin).Decode(&req); err != nil {
		return fmt.Errorf("reading the go/packages request: %v", err)
	}
	resp, err := listDriver(ctx, &req, patterns)
	if err != nil {
		return err
	}
	return json.NewEncoder(stdout).Encode(resp)
}

// listDriver answers req: go list's answer, with export data for the
// packages outside the main module only.
func listDriver(ctx context.Context, req *packages.DriverRequest, patterns []string) (*packages.DriverResponse, error) {
	env := append(req.Env[:len(req.Env):len(req.Env)], "GOPACKAGESDRIVER=off")
	dir := ""
	extra := map[string]bool{}
	for _, kv := range req.Env {
		if v, ok := strings.CutPrefix(kv, ListDriverEnv+"="); ok {
			dir = v
		}
		if v, ok := strings.CutPrefix(kv, ListRootsEnv+"="); ok {
			for _, path := range strings.Fields(v) {
				extra[path] = true
			}
		}
	}
	config := func(mode packages.LoadMode, tests bool) *packages.Config {
		return &packages.Config{Context: ctx, Mode: mode, Dir: dir, Env: env, BuildFlags: req.BuildFlags, Tests: tests, Overlay: req.Overlay}
	}
	const typed = packages.NeedTypes | packages.NeedTypesInfo | packages.NeedSyntax | packages.NeedTypesSizes | packages.NeedExportFile
	listMode := req.Mode&^typed | packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles |
		packages.NeedImports | packages.NeedDeps | packages.NeedModule
	graph, err := packages.Load(config(listMode, req.Tests), patterns...)
	if err != nil {
		return nil, err
	}
	var paths []string
	packages.Visit(graph, nil, func(p *packages.Package) {
		if p.PkgPath != "unsafe" && p.ID == p.PkgPath && (p.Module == nil || !p.Module.Main) {
			paths = append(paths, p.PkgPath)
		}
	})
	exports := map[string]string{}
	if len(paths) > 0 {
		exp, err := packages.Load(config(packages.NeedName|packages.NeedExportFile, false), paths...)
		if err != nil {
			return nil, err
		}
		for _, p := range exp {
			exports[p.ID] = p.ExportFile
		}
	}
	minor, ok := mainGoVersion(graph)
	if !ok {
		// Main modules of different go lines (a workspace): go/packages
		// takes one version from a driver. go list answers.
		return &packages.DriverResponse{NotHandled: true}, nil
	}
	goarch, err := goArch(ctx, dir, env)
	if err != nil {
		return nil, err
	}
	resp := &packages.DriverResponse{Compiler: "gc", Arch: goarch, GoVersion: minor}
	packages.Visit(graph, nil, func(p *packages.Package) {
		p.ExportFile = exports[p.ID]
		resp.Packages = append(resp.Packages, p)
	})
	roots := map[string]bool{}
	for _, p := range graph {
		resp.Roots = append(resp.Roots, p.ID)
		roots[p.ID] = true
	}
	for _, p := range resp.Packages {
		if extra[p.ID] && !roots[p.ID] {
			resp.Roots = append(resp.Roots, p.ID)
			roots[p.ID] = true
		}
	}
	return resp, nil
}

// mainGoVersion returns the minor number of the main modules' go line
// (go 1.21.0: 21), which go/packages type-checks the packages of a
// driver's answer at, as it does a package of a module at its module's
// line: an answer carries no modules. 0 if the line is missing (no
// version set, as go/packages does for such a module). ok is false if
// the main modules' lines differ.
func mainGoVersion(graph []*packages.Package) (minor int, ok bool) {
	line, seen := "", false
	ok = true
	packages.Visit(graph, nil, func(p *packages.Package) {
		if p.Module == nil || !p.Module.Main {
			return
		}
		if seen && p.Module.GoVersion != line {
			ok = false
		}
		line, seen = p.Module.GoVersion, true
	})
	if !ok || line == "" {
		return 0, ok
	}
	v, _, _ := strings.Cut(strings.TrimPrefix(line, "1."), ".")
	v, _, _ = strings.Cut(v, "rc")
	v, _, _ = strings.Cut(v, "beta")
	minor, err := strconv.Atoi(v)
	if err != nil {
		return 0, false
	}
	return minor, true
}

// goArch returns the go command's GOARCH, which go/packages takes the
// sizes of types from.
func goArch(ctx context.Context, dir string, env []string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", "env", "GOARCH")
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go env GOARCH: %v", err)
	}
	return strings.TrimSpace(string(out)), nil
}
