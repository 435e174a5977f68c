// Copyright 2026 The bigfoot Authors. All rights reserved.

package bigfoot

import (
	"io/fs"
	"path"
	"strings"
	"testing"
)

// TestRuntimePackages checks IsRuntimePackage against the runtime's
// sources as this module embeds them.
func TestRuntimePackages(t *testing.T) {
	err := fs.WalkDir(Runtime(), ".", func(rel string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(rel, ".go") || strings.Contains(rel, "testdata") {
			return err
		}
		if p := path.Join(ModulePath, path.Dir(rel)); !IsRuntimePackage(p) {
			t.Errorf("%s (of %s) is not a runtime package", p, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{ModulePath, ModulePath + "/mode", ModulePath + "/detectors", ModulePath + "/bench/workloads/shadow", "example.com/detector", "shadow"} {
		if IsRuntimePackage(p) {
			t.Errorf("%s is a runtime package", p)
		}
	}
}
