package e

import "testing"

// TestPanicNil recovers panic(nil) as nil in a go 1.17 module.
func TestPanicNil(t *testing.T) {
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("recovered %v, want nil", r)
		}
	}()
	panic(nil)
}
