package placement

import (
	"go/token"
	"go/types"
	"slices"
	"sort"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"
)

// TestPureStdDoesNotSynchronize: no function that isPure accepts reaches,
// through the bodies of the standard library, an operation the detector
// treats as synchronization (a sync or sync/atomic call, a channel
// operation, a go statement). The kill sets take such a function's calls
// for sync-free, so a check before the call covers an access after it;
// the detector, which instruments the standard library and its atomics,
// makes the call release, and a race on the access after it is missed.
// (hash/crc32's Update loads an atomic.Bool on every call: an elided read
// of compress/gzip's Reader.err after it was uncovered in a verify build,
// and a program racing on a field it wrote before crc32.Update and read
// after it raced unreported; TestPureStdRace in cmd/bigfoot.)
func TestPureStdDoesNotSynchronize(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the standard library's sources")
	}
	var paths []string
	for p := range pureStd {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	cfg := &packages.Config{Mode: packages.LoadAllSyntax}
	pkgs, err := packages.Load(cfg, paths...)
	if err != nil {
		t.Fatal(err)
	}
	if packages.PrintErrors(pkgs) > 0 {
		t.Fatal("the packages do not load")
	}
	prog, _ := ssautil.AllPackages(pkgs, ssa.InstantiateGenerics)
	prog.Build()
	seen := map[*ssa.Function]string{}
	for _, path := range paths {
		pkg := prog.ImportedPackage(path)
		if pkg == nil {
			t.Fatalf("%s: no SSA package", path)
		}
		for _, fn := range exported(prog, pkg) {
			if !isPure(fn) {
				continue
			}
			if why := syncReach(fn, nil, seen); why != "" {
				t.Errorf("%s is pure by pureStd, but it synchronizes: %s", fn, why)
			}
		}
	}
}

// exported returns the exported functions of pkg and the exported
// methods of its exported types (value and pointer receivers).
func exported(prog *ssa.Program, pkg *ssa.Package) []*ssa.Function {
	var fns []*ssa.Function
	for name, m := range pkg.Members {
		if !token.IsExported(name) {
			continue
		}
		switch m := m.(type) {
		case *ssa.Function:
			fns = append(fns, m)
		case *ssa.Type:
			for _, t := range []types.Type{m.Type(), types.NewPointer(m.Type())} {
				ms := prog.MethodSets.MethodSet(t)
				for i := range ms.Len() {
					if sel := ms.At(i); sel.Obj().Exported() {
						if fn := prog.MethodValue(sel); fn != nil && !slices.Contains(fns, fn) {
							fns = append(fns, fn)
						}
					}
				}
			}
		}
	}
	sort.Slice(fns, func(i, j int) bool { return fns[i].String() < fns[j].String() })
	return fns
}

// syncReach returns how fn reaches synchronization ("" if it does not),
// following static calls and calls of func values that the callers pass
// down (strings.Map's mapping, unicode.ToLower from strings.ToLower); a
// call through any other func value or an interface counts as
// synchronization. The runtime's own packages are not followed. args
// binds fn's parameters to the functions its caller passes; seen
// memoizes the functions reached with none bound, and breaks recursion.
func syncReach(fn *ssa.Function, args map[*ssa.Parameter]*ssa.Function, seen map[*ssa.Function]string) string {
	if len(args) > 0 {
		return syncReachBody(fn, args, seen)
	}
	if why, ok := seen[fn]; ok {
		return why
	}
	seen[fn] = ""
	why := syncReachBody(fn, nil, seen)
	seen[fn] = why
	return why
}

func syncReachBody(fn *ssa.Function, args map[*ssa.Parameter]*ssa.Function, seen map[*ssa.Function]string) string {
	if e, ok := syncFunc(fn); ok && e != 0 {
		return fn.String()
	}
	pkg := fn.Package()
	if pkg == nil && fn.Origin() != nil {
		pkg = fn.Origin().Package()
	}
	if pkg != nil && runtimeOwn(pkg.Pkg.Path()) {
		return ""
	}
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			switch in := instr.(type) {
			case *ssa.Go, *ssa.Send, *ssa.Select:
				return fn.String() + ": " + instr.String()
			case *ssa.UnOp:
				if in.Op == token.ARROW {
					return fn.String() + ": " + instr.String()
				}
			case ssa.CallInstruction:
				c := in.Common()
				if b, ok := c.Value.(*ssa.Builtin); ok {
					if b.Name() == "close" {
						return fn.String() + ": " + instr.String()
					}
					continue
				}
				callee := funcOf(c.Value, args)
				if c.IsInvoke() || callee == nil {
					return fn.String() + ": " + instr.String()
				}
				var bound map[*ssa.Parameter]*ssa.Function
				for i, a := range c.Args {
					if f := funcOf(a, args); f != nil && i < len(callee.Params) {
						if bound == nil {
							bound = map[*ssa.Parameter]*ssa.Function{}
						}
						bound[callee.Params[i]] = f
					}
				}
				if why := syncReach(callee, bound, seen); why != "" {
					return fn.String() + " → " + why
				}
			}
		}
	}
	return ""
}

// funcOf returns the function v is, given the functions bound to the
// parameters, or nil if it is not known.
func funcOf(v ssa.Value, args map[*ssa.Parameter]*ssa.Function) *ssa.Function {
	switch v := v.(type) {
	case *ssa.Function:
		return v
	case *ssa.MakeClosure:
		return v.Fn.(*ssa.Function)
	case *ssa.Parameter:
		return args[v]
	}
	return nil
}

// runtimeOwn reports whether the package at path is the runtime or one
// of its own, whose synchronization the detector does not see (nor does
// go -race).
func runtimeOwn(path string) bool {
	return path == "runtime" || strings.HasPrefix(path, "runtime/") || strings.HasPrefix(path, "internal/runtime/")
}
