// Package nobuild's tests do not build.
package nobuild

import "testing"

func TestNoBuild(t *testing.T) { var unused int }
