// Package frames prints the callers of the code that runs it, as a program
// that compares its stack with an expected one does: bigfoot must add no
// frame the program can see (issue 13, item 8).
package frames

import (
	"fmt"
	"io"
	"runtime"
)

// PrintCallers writes to w the function names of the frames of its caller's
// stack, innermost first.
func PrintCallers(w io.Writer, label string) {
	pcs := make([]uintptr, 64)
	n := runtime.Callers(2, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	fmt.Fprintf(w, "%s:\n", label)
	for {
		f, more := frames.Next()
		fmt.Fprintf(w, "\t%s\n", f.Function)
		if !more {
			break
		}
	}
}

// Boom panics.
func Boom() {
	panic("boom")
}
