package driver

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
)

// A package that embeds its own Go files (//go:embed fs.go, a file
// server's tests serving their own sources) gets from the go command the
// files as the overlay has them: under bigfoot, the instrumented copies,
// whose size and content the tests compare with the files on disk
// (valyala/fasthttp's TestFSServeFileHead). go -race embeds the files as
// they are. The go command hands the compiler the embedded files' paths
// in a configuration file (-embedcfg); bigfoot test's tool script
// (toolexecScript) runs a compile that has one through bigfoot
// (EmbedTool), which gives the compiler a copy naming the originals of
// the overlay's replacements. The go command keys its cache by the
// embedded files it read, the overlay's, which only such a build has.

// EmbedToolVerb is the first argument of bigfoot when the tool script
// runs a compile with embedded files through it; the command line does
// not document it.
const EmbedToolVerb = "__embedtool"

// EmbedTool runs the compiler (tool) with args, the go command's, whose
// -embedcfg file is replaced by a copy whose files are the originals of
// overlay's replacements. It returns the compiler's exit status.
func EmbedTool(tool, overlay string, args []string, stdout, stderr io.Writer) int {
	args = append([]string(nil), args...)
	for i := 0; i+1 < len(args); i++ {
		if args[i] != "-embedcfg" {
			continue
		}
		cfg, err := originalEmbedConfig(args[i+1], overlay)
		if err != nil {
			fmt.Fprintf(stderr, "bigfoot: compile: %v\n", err)
			return 1
		}
		defer os.Remove(cfg)
		args[i+1] = cfg
		break
	}
	cmd := exec.Command(tool, args...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Run(); err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		fmt.Fprintf(stderr, "bigfoot: compile: %v\n", err)
		return 1
	}
	return 0
}

// originalEmbedConfig writes a copy of the embed configuration cfg (the
// compiler's -embedcfg: Patterns, and Files, name to path) in which every
// path that is one of overlay's replacements is its original, and returns
// the copy's name.
func originalEmbedConfig(cfg, overlay string) (string, error) {
	data, err := os.ReadFile(cfg)
	if err != nil {
		return "", err
	}
	var conf struct {
		Patterns map[string][]string
		Files    map[string]string
	}
	if err := json.Unmarshal(data, &conf); err != nil {
		return "", fmt.Errorf("%s: %v", cfg, err)
	}
	orig, err := overlayOriginals(overlay)
	if err != nil {
		return "", err
	}
	for name, path := range conf.Files {
		if from, ok := orig[path]; ok {
			if _, err := os.Stat(from); err == nil {
				conf.Files[name] = from
			}
		}
	}
	if data, err = json.Marshal(conf); err != nil {
		return "", err
	}
	return writeTemp("bigfoot-embed-*.cfg", data)
}

// overlayOriginals returns the original of each replacement file of the
// overlay file overlay: replacement path to the path it replaces.
func overlayOriginals(overlay string) (map[string]string, error) {
	ov, err := os.ReadFile(overlay)
	if err != nil {
		return nil, err
	}
	var o struct{ Replace map[string]string }
	if err := json.Unmarshal(ov, &o); err != nil {
		return nil, fmt.Errorf("%s: %v", overlay, err)
	}
	orig := make(map[string]string, len(o.Replace))
	for from, to := range o.Replace {
		orig[to] = from
	}
	return orig, nil
}

// writeTemp writes data to a new temporary file named after pattern and
// returns its name.
func writeTemp(pattern string, data []byte) (string, error) {
	f, err := os.CreateTemp("", pattern)
	if err != nil {
		return "", err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), f.Close()
}
