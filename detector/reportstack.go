// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"fmt"
	"io"
	"runtime"
)

// Stacks in reports: the frames of a stack a report shows, and the stack
// of an access whose stack was taken elsewhere than at its own check (the
// earlier access, from the history; a deferred check's).

// shownFrames returns the frames of the return addresses pcs that a
// report shows (showFrame), innermost first.
func shownFrames(pcs []uintptr) []runtime.Frame {
	var fs []runtime.Frame
	frames := runtime.CallersFrames(pcs)
	caller := ""
	for {
		f, more := frames.Next()
		if showFrame(f, caller) {
			fs = append(fs, f)
		}
		if !isDetectorFrame(f) {
			caller = f.Function
		}
		if !more {
			return fs
		}
	}
}

// writeFrame writes frame f of a report's stack, at line.
func writeFrame(w io.Writer, f runtime.Frame, line int) {
	fmt.Fprintf(w, "  %s()\n      %s:%d +0x%x\n", userFuncName(f.Function), f.File, line, f.PC-f.Entry)
}

// writeAccessStack writes the stack of the access a of the check at site
// (exact: as writeAccess), whose stack pcs was taken at the check, or,
// if commit, where a footprint's check was made (a synchronization, a
// return: the function of the site is on that stack, not necessarily
// its first frame). The first frame is the access's, from the site; the
// others are the callers of the site's function on the stack, or the
// whole stack if that function is not on it (a callee's check the
// instrumenter moved into its caller's loop; or, if a is in a callee of
// the site's function, "e", from that function's frame). It returns false, having
// written nothing, if the stack cannot be placed: a commit's without the
// site's function.
func writeAccessStack(w io.Writer, s uint32, a access, exact bool, pcs []uintptr, commit bool) bool {
	t, si, ok := site(s)
	if !ok {
		return false
	}
	fs := shownFrames(pcs)
	if t.hook {
		for _, f := range fs {
			writeFrame(w, f, f.Line)
		}
		return len(fs) > 0
	}
	name := t.pkg + "." + si.fn
	from := -1
	for i, f := range fs {
		if userFuncName(f.Function) == name {
			from = i + 1
			if exact && a.fn != "" {
				from = i
			}
			break
		}
	}
	if from < 0 {
		if commit {
			return false
		}
		from = 0
	}
	writeAccess(w, s, a, exact)
	for i, f := range fs[from:] {
		line := f.Line
		if i == 0 && exact && a.fn != "" {
			line = si.line // the site's function, at the call of a's
		}
		writeFrame(w, f, line)
	}
	return true
}

// writeDeferredStack writes the stack of the access a deferred check of
// g's at site found a race for (a footprint's, a pending check's), whose
// check was made with the stack pcs, and reports whether it could: a
// pending check's stack is its accesses', taken when it opened, unless
// its ranges came with several; a footprint's check is made while the
// function of its accesses runs (at its return, at a synchronization
// in it or in a callee).
func writeDeferredStack(w io.Writer, g *G, site uint32, a access, exact bool, pcs []uintptr) bool {
	switch g.pendStack {
	case 0:
		return writeAccessStack(w, site, a, exact, pcs, true)
	case unknownStack:
		return false
	}
	return writeAccessStack(w, site, a, exact, stackOf(g.pendStack), false)
}

// writeCreation writes where a goroutine was created: the go statement at
// site, then its function's callers on the creator's stack (stack, an id
// of the depot; creatorStack), or the site alone if the stack is unknown.
func writeCreation(w io.Writer, site, stack uint32) {
	if pcs := stackOf(stack); pcs == nil || !writeAccessStack(w, site, access{}, false, pcs, false) {
		writeSite(w, site)
	}
}
