// Package unselected is left out by the runner's -pkg.
package unselected

import "testing"

func TestUnselected(t *testing.T) { t.Fatal("run, not selected") }
