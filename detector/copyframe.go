// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"unsafe"
)

// The frame go -race prints above a copy's line.
//
// cmd/compile, when it instruments a package, turns the copy builtin
// into a call of runtime.slicecopy (runtime.typedslicecopy for elements
// with pointers), whose race checks name slicecopy's entry as the
// access's pc: every race at a copy is reported with a first frame
// "runtime.slicecopy()" at the line of slicecopy's declaration, above the
// frame of the function that called copy. bigfoot checks copy's ranges in
// the detector and prints the same frame for an access at a copy's site,
// so that a report reads as go -race's.
//
// The line is that of the runtime source the program was built with,
// found beside the file of another runtime function (the program's
// table of functions names runtime files as the build saw them). If that
// source cannot be read (a build with -trimpath, a binary run away from
// its toolchain), the frame is left out.

// cutCopy removes the "c" item, which marks a copy's site, from the
// coverage items of a site table entry (tab-separated), and reports
// whether it was there.
func cutCopy(cov string) (string, bool) {
	if cov == "c" {
		return "", true
	}
	if rest, ok := strings.CutPrefix(cov, "c\t"); ok {
		return rest, true
	}
	if rest, ok := strings.CutSuffix(cov, "\tc"); ok {
		return rest, true
	}
	if i := strings.Index(cov, "\tc\t"); i >= 0 {
		return cov[:i] + cov[i+2:], true
	}
	return cov, false
}

// copyAccess reports whether the access a reported for site s (exact:
// a is an access the site's entry names, not the site itself) is a
// copy's.
func copyAccess(s uint32, a access, exact bool) bool {
	_, si, ok := site(s)
	return ok && si.copy && (!exact || a.line == si.line && a.col == si.col && a.fn == "")
}

// writeSlicecopy writes the frame of runtime.slicecopy, if its source
// was found.
func writeSlicecopy(w io.Writer) {
	if file, line := slicecopyPos(); line > 0 {
		fmt.Fprintf(w, "  runtime.slicecopy()\n      %s:%d +0x0\n", file, line)
	}
}

// slicecopy is slicecopyPos's result, once found. reportMu guards it.
var slicecopy struct {
	found bool
	file  string
	line  int
}

// slicecopyPos returns the file and line of runtime.slicecopy's
// declaration, or line 0 if its source cannot be read. The caller holds
// reportMu.
func slicecopyPos() (string, int) {
	if !slicecopy.found {
		slicecopy.found = true
		slicecopy.file, slicecopy.line = findSlicecopy()
	}
	return slicecopy.file, slicecopy.line
}

// findSlicecopy reads the runtime's slice.go, beside the file of
// runtime.Gosched, for slicecopy's declaration.
func findSlicecopy() (string, int) {
	f := runtime.Gosched
	pc := **(**uintptr)(unsafe.Pointer(&f)) // a func value points to its code pointer
	fn := runtime.FuncForPC(pc)
	if fn == nil {
		return "", 0
	}
	file, _ := fn.FileLine(pc)
	i := strings.LastIndexByte(file, '/')
	if i < 0 {
		return "", 0
	}
	file = file[:i+1] + "slice.go"
	data, err := os.ReadFile(file)
	if err != nil {
		return "", 0
	}
	j := bytes.Index(data, []byte("\nfunc slicecopy("))
	if j < 0 {
		return "", 0
	}
	return file, bytes.Count(data[:j+1], []byte("\n")) + 1
}
