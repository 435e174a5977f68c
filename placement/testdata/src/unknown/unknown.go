// Package unknown tests calls the kill-set pass cannot see into: interface
// methods, func values and functions of uninstrumented packages are assumed
// to acquire and release; allowlisted sync-free standard functions are not.
package unknown

import (
	"fmt"
	"strings"
)

type T struct{ s string }

func viaInterface(t *T, st fmt.Stringer) string {
	t.s = "a"
	x := st.String() // want "W t.s"
	return x
}

func viaFuncValue(t *T, f func()) {
	t.s = "a"
	f() // want "W t.s"
}

func viaFmt(t *T) {
	t.s = "a"
	fmt.Println() // want "W t.s"
}

func viaStrings(t *T) {
	t.s = strings.ToUpper(t.s)
} // want "W t.s"
