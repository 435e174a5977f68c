package driver

import (
	"bytes"
	"go/build/constraint"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// The race build tag (docs/build.md, "The same build as go -race").
//
// go build -race sets the build tag race, so files constrained by race or
// !race switch. bigfoot cannot pass -tags race to the go command: the
// runtime's race.go would then expect Go's race runtime (ThreadSanitizer)
// in the link. Instead:
//
//   - the instrumenter loads the user's packages and the dependencies with
//     the tag race (loadTags), so that it rewrites the files go -race
//     compiles; the standard library's export data is then compiled with
//     the tag, which only the runtime and internal/race notice;
//   - every file of those packages whose build constraint names race gets
//     an overlay entry (its instrumented text, or its own) in which the
//     tag is renamed raceTag, and the go command gets -tags raceTag
//     (goTags): the go command compiles the same files, and nothing else
//     changes, since no other file names raceTag.
//
// Dependencies left uninstrumented in the module cache cannot be
// overlaid; they are compiled as without -race. The standard library
// too: its race-constrained files (runtime, internal/race, runtime/race)
// belong to Go's race runtime.

// raceTag stands for race in the constraints the go command reads.
const raceTag = "bigfoot_race"

// withTag returns flags, loading flags in the form -name=value, with tag
// added to the list of the last -tags flag among them, or, if there is
// none, to that of GOFLAGS (goflags) in a -tags flag appended at the end:
// a -tags flag on the command line replaces GOFLAGS' list, it does not
// extend it.
func withTag(flags []string, goflags, tag string) []string {
	out := append([]string{}, flags...)
	for i := len(out) - 1; i >= 0; i-- {
		if name, val, _, ok := splitFlag(out[i]); ok && name == "tags" {
			out[i] = "-tags=" + addTag(val, tag)
			return out
		}
	}
	list := ""
	for _, f := range strings.Fields(goflags) {
		if name, val, hasVal, ok := splitFlag(f); ok && name == "tags" && hasVal {
			list = val
		}
	}
	return append(out, "-tags="+addTag(list, tag))
}

// addTag adds tag to a -tags list (comma-separated, or space-separated
// in the old form).
func addTag(list, tag string) string {
	switch {
	case strings.TrimSpace(list) == "":
		return tag
	case !strings.Contains(list, ",") && strings.Contains(strings.TrimSpace(list), " "):
		return list + " " + tag
	}
	return list + "," + tag
}

// goArgs returns the go command's arguments after the verb with the tag
// raceTag added to the list of the command line's last -tags flag, or,
// if there is none, in a -tags flag in front that also holds GOFLAGS'
// list (goflags), and go -race's pointer checks but in the packages of
// proved (withCheckptr).
func (inv *Invocation) goArgs(goflags string, proved []string) []string {
	return withCheckptr(inv.tagArgs(goflags), goflags, proved)
}

// tagArgs returns the go command's arguments after the verb with the tag
// raceTag added (goArgs).
func (inv *Invocation) tagArgs(goflags string) []string {
	args := append([]string{}, inv.GoArgs...)
	if inv.tagsArg == 0 {
		return append(withTag(nil, goflags, raceTag), args...)
	}
	i := inv.tagsArg - 1
	a := args[i]
	if name, val, hasVal, ok := splitFlag(a); ok && name == "tags" && hasVal {
		args[i] = a[:strings.IndexByte(a, '=')+1] + addTag(val, raceTag)
	} else {
		args[i] = addTag(a, raceTag)
	}
	return args
}

// hasTag reports whether the build's tag list (the command line's last
// -tags flag, or else GOFLAGS' (goflags)) holds tag.
func (inv *Invocation) hasTag(goflags, tag string) bool {
	list := ""
	if inv.tagsArg != 0 {
		list = inv.GoArgs[inv.tagsArg-1]
		if name, val, hasVal, ok := splitFlag(list); ok && name == "tags" && hasVal {
			list = val
		}
	} else {
		for _, f := range strings.Fields(goflags) {
			if name, val, hasVal, ok := splitFlag(f); ok && name == "tags" && hasVal {
				list = val
			}
		}
	}
	return slices.Contains(strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ' ' }), tag)
}

// raceTagFiles adds to overlay, for every .go or .s file in dirs whose
// build constraint names the tag race, its text (from overlay if there, or
// from the file) with race renamed raceTag. Lines keep their numbers. (An
// assembly file under !race beside a Go fallback under race would
// otherwise be compiled with it: "defined in both Go and assembly".)
func raceTagFiles(dirs []string, overlay map[string][]byte) error {
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") && !strings.HasSuffix(e.Name(), ".s") {
				continue
			}
			path := filepath.Join(dir, e.Name())
			src, ok := overlay[path]
			if !ok {
				if src, err = os.ReadFile(path); err != nil {
					return err
				}
			}
			if out, changed := renameRaceTag(src); changed {
				overlay[path] = out
			}
		}
	}
	return nil
}

// renameRaceTag renames the tag race to raceTag in the //go:build and
// // +build lines of a Go file's header, and reports whether it changed
// anything.
func renameRaceTag(src []byte) ([]byte, bool) {
	lines := bytes.SplitAfter(src, []byte("\n"))
	changed := false
	inBlock := false
	for i, line := range lines {
		text := strings.TrimSpace(string(line))
		switch {
		case inBlock:
			if j := strings.Index(text, "*/"); j >= 0 {
				inBlock = false
				if strings.TrimSpace(text[j+2:]) != "" {
					return joinLines(lines), changed
				}
			}
			continue
		case text == "":
			continue
		case strings.HasPrefix(text, "/*"):
			inBlock = !strings.Contains(text[2:], "*/")
			continue
		case !strings.HasPrefix(text, "//"):
			return joinLines(lines), changed // the header ends
		}
		var renamed string
		switch {
		case constraint.IsGoBuild(text):
			x, err := constraint.Parse(text)
			if err != nil || !renameTag(x) {
				continue
			}
			renamed = "//go:build " + x.String()
		case constraint.IsPlusBuild(text):
			renamed = renamePlusBuild(text)
			if renamed == text {
				continue
			}
		default:
			continue
		}
		nl := line[len(bytes.TrimRight(line, "\r\n")):]
		lines[i] = append([]byte(renamed), nl...)
		changed = true
	}
	return joinLines(lines), changed
}

// renameTag renames the tag race to raceTag in x, and reports whether x
// has it.
func renameTag(x constraint.Expr) bool {
	switch x := x.(type) {
	case *constraint.TagExpr:
		if x.Tag == "race" {
			x.Tag = raceTag
			return true
		}
	case *constraint.NotExpr:
		return renameTag(x.X)
	case *constraint.AndExpr:
		a, b := renameTag(x.X), renameTag(x.Y)
		return a || b
	case *constraint.OrExpr:
		a, b := renameTag(x.X), renameTag(x.Y)
		return a || b
	}
	return false
}

// renamePlusBuild renames the tag race in a // +build line: options are
// separated by spaces, terms by commas, and a term may be negated.
func renamePlusBuild(line string) string {
	fields := strings.Fields(strings.TrimSpace(strings.TrimPrefix(line, "//")))
	for i, opt := range fields[1:] { // fields[0] is "+build"
		terms := strings.Split(opt, ",")
		for j, t := range terms {
			if strings.TrimPrefix(t, "!") == "race" {
				terms[j] = strings.TrimSuffix(t, "race") + raceTag
			}
		}
		fields[i+1] = strings.Join(terms, ",")
	}
	return "// " + strings.Join(fields, " ")
}

func joinLines(lines [][]byte) []byte { return bytes.Join(lines, nil) }
