// Package eachtest has the test binary name of the module's root package.
package eachtest

import "testing"

func TestInner(t *testing.T) {}
