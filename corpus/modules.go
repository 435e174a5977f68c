package corpus

import (
	"bufio"
	_ "embed"
	"fmt"
	"io"
	"strings"
)

// Module is one module of the corpus.
type Module struct {
	Path    string `json:"path"`
	Version string `json:"version"`
	Style   string `json:"style"` // generics, reflection, encoder, parser, logger, concurrency, cache, …
	Why     string `json:"why"`
}

// String returns path@version.
func (m Module) String() string { return m.Path + "@" + m.Version }

//go:embed modules.txt
var modulesTxt string

// Modules returns the corpus of modules.txt.
func Modules() []Module {
	ms, err := ParseModules(strings.NewReader(modulesTxt))
	if err != nil {
		panic("corpus: modules.txt: " + err.Error())
	}
	return ms
}

// ParseModules reads a module list: one module a line, as its path, its
// version, its style and a one-line reason, separated by white space (the
// reason may contain spaces). Blank lines and lines starting with # are
// skipped.
func ParseModules(r io.Reader) ([]Module, error) {
	var ms []Module
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 3 {
			return nil, fmt.Errorf("line %d: want path, version, style and why, have %q", n, line)
		}
		ms = append(ms, Module{Path: f[0], Version: f[1], Style: f[2], Why: strings.Join(f[3:], " ")})
	}
	return ms, sc.Err()
}

// Select returns the modules whose path contains one of the
// comma-separated substrings of only, all of them if only is empty.
func Select(ms []Module, only string) []Module {
	if only == "" {
		return ms
	}
	var out []Module
	for _, m := range ms {
		for _, s := range strings.Split(only, ",") {
			if s != "" && strings.Contains(m.Path, s) {
				out = append(out, m)
				break
			}
		}
	}
	return out
}

// BenchSuites are the modules whose suites `bigfoot bench -suites`
// measures: concurrency libraries, loggers, caches and parsers.
var BenchSuites = []string{
	"github.com/panjf2000/ants/v2",
	"github.com/sourcegraph/conc",
	"golang.org/x/sync",
	"go.uber.org/zap",
	"github.com/rs/zerolog",
	"github.com/sirupsen/logrus",
	"github.com/hashicorp/golang-lru/v2",
	"github.com/patrickmn/go-cache",
	"github.com/tidwall/gjson",
	"github.com/Masterminds/semver/v3",
}
