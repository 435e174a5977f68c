package instrument

import (
	"context"
	"fmt"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/bigfoot-go/bigfoot"
	"github.com/bigfoot-go/bigfoot/placement"
	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"
)

// loadMode is what the instrumenter needs from go/packages for the packages
// it rewrites: syntax and full type information, module membership, and
// the other files of each package (assembly makes a package
// uninstrumentable). Dependencies come from export data (no NeedDeps):
// type-checking the whole import graph from source would cost most of the
// time of a load.
const loadMode = packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles |
	packages.NeedImports | packages.NeedTypes | packages.NeedSyntax |
	packages.NeedTypesInfo | packages.NeedModule | packages.NeedTypesSizes

// typecheckCgo is go/packages' unexported load-mode bit (the bit below
// NeedModule; gopls sets it through x/tools' internal packagesinternal)
// that type-checks a cgo package from its original files: CompiledGoFiles
// holds cgo's type declarations (_cgo_gotypes.go, in the build cache)
// followed by the package's own files, unprocessed, and the type checker
// resolves C.name to cgo's _C-prefixed declarations. Without it
// CompiledGoFiles holds cgo's rewritten copies of the files, whose syntax
// and offsets are not the user's, and a file that imports "C" could not be
// instrumented. TestTypecheckCgoBit checks the bit against the x/tools
// version in go.mod.
const typecheckCgo = packages.NeedModule >> 1

// A ListedPackage is a package of the import graph of a load's patterns,
// as go list -deps -json lists it.
type ListedPackage struct {
	ID     string           // go list's ImportPath (a test variant's has its suffix)
	Module *packages.Module // nil for a standard-library package
	Root   bool             // a pattern names it (go list's DepOnly is false)
}

// graphMode lists the import graph: enough to find the main module's
// packages that the patterns depend on.
const graphMode = packages.NeedName | packages.NeedModule | packages.NeedImports | packages.NeedDeps

// load runs go/packages and returns the packages of the main module that are
// to be instrumented, test variants first; with tests, the race runtime's
// packages among the main module's (bigfoot's own module), whose test
// binaries must still link the runtime; and the errors of those left
// out because they do not type-check (errors other than the expected
// undefined runtime.RaceXxx), which the go command reports as it does
// without bigfoot while the other packages are built and tested
// instrumented (a package importing one left out has errors too). It
// fails with a *LoadError if go/packages fails, or if no package is left.
//
// It loads in two steps: the import graph of the patterns (unless the
// caller listed it: cfg.Graph), then syntax and types for the patterns
// (with tests, if asked) and, without tests, for the main module's
// packages they import: in the same load through bigfoot's list driver
// (ListRootsEnv), else separately.
func load(ctx context.Context, cfg Config) (pkgs, runtimePkgs []*packages.Package, broken []string, err error) {
	env := cfg.Env
	if env == nil {
		env = os.Environ()
	}
	ours := false // the typed loads go through bigfoot's list driver
	config := func(mode packages.LoadMode, tests bool) *packages.Config {
		env := env
		if mode&packages.NeedTypes != 0 {
			env, ours = driverEnv(env, cfg.ListDriver, cfg.Dir)
		}
		return &packages.Config{Context: ctx, Mode: mode, Dir: cfg.Dir, Env: env, BuildFlags: cfg.BuildFlags, Tests: tests}
	}
	patterns := cfg.Patterns
	if len(patterns) == 0 {
		patterns = []string{"."}
	}
	graph := cfg.Graph
	if graph == nil {
		graph, err = listGraph(config(graphMode, cfg.Tests), patterns)
		if err != nil {
			return nil, nil, nil, &LoadError{Errors: []string{err.Error()}}
		}
	}
	// The driver's answer (listdriver.go), as any go/packages driver's,
	// has no module information: the graph's is attached to the
	// packages loaded with types.
	modules := map[string]*packages.Module{}
	rootPaths := map[string]bool{}
	for _, p := range graph {
		modules[p.ID] = p.Module
		if p.Root {
			rootPaths[pkgPath(p.ID)] = true
		}
	}
	attach := func(pkgs []*packages.Package) {
		packages.Visit(pkgs, nil, func(p *packages.Package) {
			if p.Module == nil {
				p.Module = modules[p.ID]
			}
		})
	}
	var errs []string
	var deps []string
	for _, p := range graph {
		if cfg.Std || p.Module == nil || !p.Module.Main || p.ID != pkgPath(p.ID) || rootPaths[p.ID] {
			continue
		}
		deps = append(deps, p.ID)
	}
	sort.Strings(deps)

	var loaded []*packages.Package
	collect := func(pkgs []*packages.Package) {
		attach(pkgs)
		for _, p := range pkgs {
			ok := true
			for _, e := range p.Errors {
				if !isExpectedError(e) {
					errs = append(errs, e.Error())
					ok = false
				}
			}
			if ok && selected(cfg, p) && p.Types != nil && len(p.Syntax) > 0 {
				loaded = append(loaded, p)
			}
			if cfg.Tests && p.ID == p.PkgPath && p.Module != nil && p.Module.Main && bigfoot.IsRuntimePackage(p.PkgPath) {
				runtimePkgs = append(runtimePkgs, p)
			}
		}
	}
	mode := loadMode
	if !cfg.Std {
		// Standard-library packages that use cgo stay uninstrumented
		// (driver/std.go); the main module's cgo files are rewritten.
		mode |= typecheckCgo
	}
	rootsConfig := config(mode, cfg.Tests)
	if ours && len(deps) > 0 {
		// The driver answers with deps as roots (ListRootsEnv).
		rootsConfig.Env = append(rootsConfig.Env, ListRootsEnv+"="+strings.Join(deps, " "))
	}
	roots, err := packages.Load(rootsConfig, patterns...)
	if err != nil {
		return nil, nil, nil, &LoadError{Errors: []string{err.Error()}}
	}
	collect(roots)
	if len(deps) > 0 && !ours {
		more, err := packages.Load(config(mode, false), deps...)
		if err != nil {
			return nil, nil, nil, &LoadError{Errors: []string{err.Error()}}
		}
		collect(more)
	}
	if len(errs) > 0 && len(loaded) == 0 {
		return nil, nil, nil, &LoadError{Errors: errs}
	}
	// Test variants ("p [p.test]") are supersets of the plain package:
	// visit them first so that each file is rewritten from the variant that
	// sees all of the package's files. Generated test mains are skipped.
	var out []*packages.Package
	for _, p := range loaded {
		if p.Name == "main" && strings.HasSuffix(p.ID, ".test") {
			continue
		}
		out = append(out, p)
	}
	sort.SliceStable(out, func(i, j int) bool {
		return isTestVariant(out[i]) && !isTestVariant(out[j])
	})
	return out, runtimePkgs, errs, nil
}

func isTestVariant(p *packages.Package) bool { return strings.Contains(p.ID, " [") }

// pkgPath returns the import path of the package whose go list
// ImportPath (go/packages ID) is id: a test variant's without its suffix.
func pkgPath(id string) string {
	path, _, _ := strings.Cut(id, " [")
	return path
}

// listGraph lists the import graph of the patterns with go/packages
// (config's mode is graphMode), as the caller of Run may have listed it
// (Config.Graph).
func listGraph(config *packages.Config, patterns []string) ([]ListedPackage, error) {
	roots, err := packages.Load(config, patterns...)
	if err != nil {
		return nil, err
	}
	isRoot := map[string]bool{}
	for _, p := range roots {
		isRoot[p.ID] = true
	}
	var graph []ListedPackage
	packages.Visit(roots, nil, func(p *packages.Package) {
		graph = append(graph, ListedPackage{ID: p.ID, Module: p.Module, Root: isRoot[p.ID]})
	})
	return graph, nil
}

// isExpectedError reports whether e is an error the instrumenter expects
// and repairs: runtime.RaceXxx exists only in -race builds. The type
// checker reports it; so does the compiler when go list builds export data
// (one message with a "# pkg" header and one line per error).
func isExpectedError(e packages.Error) bool {
	n := 0
	for _, line := range strings.Split(e.Msg, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if !strings.Contains(line, "undefined: runtime.Race") {
			return false
		}
		n++
	}
	return n > 0
}

// buildSSA builds pkg with go/ssa (imports from types only) and returns the
// heap variables, the program and the package. The heap variables are the
// declaring positions of the local variables of pkg that live on the heap:
// captured by a closure or with their address taken. go/ssa gives each
// such variable an *ssa.Alloc with Heap set whose Pos is the variable's
// declaring identifier.
func buildSSA(pkg *packages.Package) (set map[token.Pos]bool, prog *ssa.Program, spkg *ssa.Package, err error) {
	defer func() {
		if r := recover(); r != nil {
			set, prog, spkg, err = nil, nil, nil, fmt.Errorf("building SSA for %s: %v", pkg.ID, r)
		}
	}()
	prog = ssa.NewProgram(pkg.Fset, ssa.BuilderMode(0))
	created := map[*types.Package]bool{pkg.Types: true}
	var create func(p *types.Package)
	create = func(p *types.Package) {
		for _, imp := range p.Imports() {
			if !created[imp] {
				created[imp] = true
				create(imp)
				prog.CreatePackage(imp, nil, nil, true)
			}
		}
	}
	create(pkg.Types)
	spkg = prog.CreatePackage(pkg.Types, pkg.Syntax, pkg.TypesInfo, false)
	spkg.Build()
	return placement.SharedVars(spkg), prog, spkg, nil
}

// selected reports whether p is a package Run instruments: one of the
// main module, or with cfg.Std one of the standard library. The race
// runtime's own packages never are: in bigfoot's own module they are
// main-module packages, and checking them would make the runtime import
// itself.
func selected(cfg Config, p *packages.Package) bool {
	if cfg.Std {
		return p.Module == nil && isStdPath(p.PkgPath)
	}
	return p.Module != nil && p.Module.Main && !bigfoot.IsRuntimePackage(p.PkgPath)
}

// isStdPath reports whether path is a standard-library import path: its
// first element has no dot.
func isStdPath(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return path != "" && !strings.Contains(first, ".")
}

// inModule reports whether file lies in the directory tree of pkg's module,
// or for a standard-library package, in the package's directory (not among
// the files cgo generates in the build cache).
func inModule(pkg *packages.Package, file string) bool {
	if pkg.Module == nil && isStdPath(pkg.PkgPath) && len(pkg.GoFiles) > 0 {
		return filepath.Dir(file) == filepath.Dir(pkg.GoFiles[0])
	}
	if pkg.Module == nil || pkg.Module.Dir == "" {
		return false
	}
	rel, err := filepath.Rel(pkg.Module.Dir, file)
	return err == nil && !strings.HasPrefix(rel, "..") && !filepath.IsAbs(rel)
}
