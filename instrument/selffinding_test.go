package instrument

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestSelfFinding: a function without loops whose one use of the
// goroutine state is a check gets the check's form that finds the state
// itself and no prologue, and stays within the compiler's inlining budget
// as in a plain build; the others keep the prologue.
func TestSelfFinding(t *testing.T) {
	for _, m := range []string{"fasttrack", "bigfoot"} {
		t.Run(m, func(t *testing.T) {
			w := newWorkspace(t, filepath.Join("testdata", "src", "getters"))
			w.mode = m
			res := w.instrument(t, false)
			var src string
			for path, b := range res.Replace {
				if filepath.Base(path) == "getters.go" {
					src = string(b)
				}
			}
			if src == "" {
				t.Fatal("getters.go not rewritten")
			}
			decl := regexp.MustCompile(`(?m)^func (\([^)]*\) )?(\w+)\(`)
			locs := decl.FindAllStringSubmatchIndex(src, -1)
			for i, loc := range locs {
				name := src[loc[4]:loc[5]]
				end := len(src)
				if i+1 < len(locs) {
					end = locs[i+1][0]
				}
				body := src[loc[0]:end]
				prologue := strings.Contains(body, "__bfg := __bf.Cur()")
				switch {
				case strings.Contains(name, "__bf"):
					// A copy for unpublished receivers, without checks.
				case name == "oneGroup" && m == "fasttrack":
					// No field groups in fasttrack mode: two checks.
				case strings.HasPrefix(name, "one"):
					if prologue || !regexp.MustCompile(`__bf\.(R1|W1|RG1|WG1|ReadAll1)\(`).MatchString(body) {
						t.Errorf("%s: want a self-finding check and no prologue:\n%s", name, body)
					}
				case strings.HasPrefix(name, "keep"):
					if !prologue || regexp.MustCompile(`__bf\.\w+1\(`).MatchString(body) {
						t.Errorf("%s: want the prologue and checks that take it:\n%s", name, body)
					}
				}
			}
			out, err := w.goCmd(t, true, "build", "-gcflags=-m", "./...")
			if err != nil {
				t.Fatalf("go build: %v\n%s", err, out)
			}
			fns := []string{"(*Point).oneRead", "(*Point).oneWrite", "oneIndex", "Tok.oneString"}
			if m != "fasttrack" {
				fns = append(fns, "(*Point).oneGroup")
			}
			for _, fn := range fns {
				if !regexp.MustCompile(`(?m)can inline ` + regexp.QuoteMeta(fn) + `( |$)`).MatchString(out) {
					t.Errorf("%s is not inlinable:\n%s", fn, out)
				}
			}
		})
	}
}
