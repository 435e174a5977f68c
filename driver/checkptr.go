package driver

import (
	"sort"
	"strings"
)

// Pointer checks (docs/build.md, "The same build as go -race").
//
// The compiler's -race implies -d=checkptr in every package it compiles
// but the runtime's: conversions from unsafe.Pointer are checked for
// alignment and for straddling allocations, and pointer arithmetic for
// leaving its object, and a violation is a fatal error ("checkptr:
// converted pointer straddles multiple allocations"). A suite that fails
// that way under go test -race must fail under bigfoot test too, and one
// that passes must not pay for checks go -race does not make. bigfoot
// does not pass -race, so it passes the flag itself:
//
//   - -gcflags=all=-d=checkptr first, for every package;
//   - each -gcflags of GOFLAGS and of the command line again with
//     -d=checkptr in front of its flags: for a package that several
//     patterns match, the go command takes the last one's flags only, and
//     a -d=checkptr=0 of the user's, later in the list, still wins, as it
//     does over -race;
//   - last, bigfoot's runtime without it (checkptrExempt): go -race's
//     runtime is ThreadSanitizer's, compiled apart, and the shadow's
//     pointer arithmetic is on every check's path.

// checkptrExempt is the package pattern of bigfoot's runtime (the
// detector and the packages it imports), which is not compiled with
// pointer checks.
const checkptrExempt = "github.com/bigfoot-go/bigfoot/..."

// withCheckptr returns args, the go command's arguments after the verb
// with each -gcflags flag in the one-argument form -gcflags=value
// (ParseArgs), with the pointer checks added: the -gcflags flags of
// GOFLAGS (goflags) and checkptr's own in front, each -gcflags of args
// given -d=checkptr, and the exemption of bigfoot's runtime after the
// last of them. Without -gcflags of the user's, the packages of proved
// (checkptrProved) are exempted too.
func withCheckptr(args []string, goflags string, proved []string) []string {
	front := []string{"-gcflags=all=-d=checkptr"}
	for _, f := range strings.Fields(goflags) {
		if name, val, hasVal, ok := splitFlag(f); ok && name == "gcflags" && hasVal {
			front = append(front, "-gcflags="+checkptrValue(val))
		}
	}
	exempt := "-gcflags=" + checkptrExempt + "=-d=checkptr=0"
	last := -1
	out := make([]string, 0, len(args)+len(front)+1)
	flags := true // before -args, whose arguments are the test binary's
	for _, a := range args {
		if a == "-args" || a == "--args" {
			flags = false
		}
		if name, val, hasVal, ok := splitFlag(a); flags && ok && name == "gcflags" && hasVal {
			a = "-gcflags=" + checkptrValue(val)
			last = len(out)
		}
		out = append(out, a)
	}
	if last < 0 {
		front = append(front, exempt)
		if len(front) == 2 { // no -gcflags in GOFLAGS either
			for _, p := range proved {
				front = append(front, "-gcflags="+p+"=-d=checkptr=0")
			}
		}
		return append(front, out...)
	}
	out = append(out[:last+1], append([]string{exempt}, out[last+1:]...)...)
	return append(front, out...)
}

// checkptrValue returns a -gcflags value ("flags" for the packages on the
// command line, or "pattern=flags") with -d=checkptr in front of its
// flags.
func checkptrValue(val string) string {
	if strings.TrimSpace(val) == "" {
		return "-d=checkptr"
	}
	if !strings.HasPrefix(val, "-") {
		if i := strings.IndexByte(val, '='); i > 0 {
			return val[:i+1] + strings.TrimSpace("-d=checkptr "+val[i+1:])
		}
	}
	return "-d=checkptr " + val
}

// Pointer checks proved to pass (docs/build.md). The instrumenter proves,
// for each standard-library package it loads, whether every pointer check
// the compiler would make in the package's own code passes (the bit
// conversions of math: (*uint64)(unsafe.Pointer(&f))). Such a package is
// compiled with -d=checkptr=0 when the code the compiler may inline into
// it is proved too: each of its imports is such a package, unsafe, or one
// of the runtime's own packages, which the compiler never checks. A
// package under test is left checked (its test files are not proved), and
// so is every package when the user passes -gcflags, whose per-package
// flags a pattern of bigfoot's would replace.

// checkptrProved returns, in order, the standard-library packages of pkgs
// to compile without pointer checks, given the cache entries of the
// instrumented ones.
func checkptrProved(pkgs []listedPackage, entries map[string]*stdEntry) []string {
	byPath := map[string]listedPackage{}
	tested := map[string]bool{}
	for _, p := range pkgs {
		if p.ForTest != "" {
			tested[p.ForTest] = true
			continue
		}
		byPath[p.ImportPath] = p
	}
	proved := map[string]bool{} // memo; false while in progress
	var ok func(path string) bool
	ok = func(path string) bool {
		if v, done := proved[path]; done {
			return v
		}
		proved[path] = false
		p, listed := byPath[path]
		if !listed || !p.Standard {
			return false
		}
		if path == "unsafe" || path == "runtime" || stdExcluded(p) == runtimeOwn {
			proved[path] = true
			return true
		}
		if e := entries[path]; e == nil || !e.PointerChecksPass || tested[path] {
			return false
		}
		for _, imp := range p.Imports {
			if !ok(imp) {
				return false
			}
		}
		proved[path] = true
		return true
	}
	var out []string
	for path, p := range byPath {
		if ok(path) && entries[path] != nil && entries[path].PointerChecksPass && p.Standard {
			out = append(out, path)
		}
	}
	sort.Strings(out)
	return out
}
