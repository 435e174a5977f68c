// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import "testing"

// TestSymbolPrefix: package paths become the prefixes the linker gives
// their symbols (cmd/internal/objabi.PathToPrefix's rule), which
// runtime.Frame.Function and go -race's reports show.
func TestSymbolPrefix(t *testing.T) {
	for path, want := range map[string]string{
		"main":                             "main",
		"net/http":                         "net/http",
		"gopkg.in/yaml.v3":                 "gopkg.in/yaml%2ev3",
		"gopkg.in/natefinch/lumberjack.v2": "gopkg.in/natefinch/lumberjack%2ev2",
		"example.com/a.b/c":                "example.com/a.b/c",
		"example.com/100%":                 "example.com/100%25",
		"example.com/q\"x":                 "example.com/q%22x",
		"example.com/caf\xc3\xa9":          "example.com/caf%c3%a9",
	} {
		if got := symbolPrefix(path); got != want {
			t.Errorf("symbolPrefix(%q) = %q, want %q", path, got, want)
		}
	}
}
