package driver

import (
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
// last of them.
func withCheckptr(args []string, goflags string) []string {
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
		return append(append(front, exempt), out...)
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
