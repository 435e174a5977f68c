package main

import (
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// html writes dir/index.html: every analyzed file's source, each line with
// the accesses on it (fasttrack would check each) and the checks bigfoot
// places there, in the manner of go tool cover -html.
func (r *analysisResult) html(dir string) error {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return fmt.Errorf("writing HTML: %w", err)
	}
	notes := r.lineNotes()
	var page htmlPage
	for _, p := range r.pkgs {
		s := p.sum
		page.Packages = append(page.Packages, fmt.Sprintf("%s: %d functions, static checks fasttrack=%d redcard=%d bigfoot=%d",
			s.Pkg, len(s.Funcs), s.Accesses, s.RedCardChecks, s.Checks))
		files := append([]string(nil), p.files...)
		sort.Strings(files)
		for _, f := range files {
			src, err := readSource(f)
			if err != nil {
				return fmt.Errorf("writing HTML: %w", err)
			}
			hf := htmlFile{Name: f, ID: fmt.Sprintf("file%d", len(page.Files))}
			for i, text := range src {
				l := htmlLine{N: i + 1, Text: text}
				if n := notes[f][i+1]; n != nil {
					l.Accesses = strings.Join(n.accesses, "; ")
					l.Checks = n.checks
				}
				hf.Lines = append(hf.Lines, l)
			}
			page.Files = append(page.Files, hf)
		}
	}
	out, err := os.Create(filepath.Join(dir, "index.html"))
	if err != nil {
		return fmt.Errorf("writing HTML: %w", err)
	}
	if err := htmlTemplate.Execute(out, page); err != nil {
		out.Close()
		return fmt.Errorf("writing HTML: %w", err)
	}
	return out.Close()
}

type htmlPage struct {
	Packages []string
	Files    []htmlFile
}

type htmlFile struct {
	Name, ID string
	Lines    []htmlLine
}

type htmlLine struct {
	N        int
	Text     string
	Accesses string
	Checks   []string
}

var htmlTemplate = template.Must(template.New("analyze").Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>bigfoot analyze</title>
<style>
body { font-family: sans-serif; margin: 1em; }
pre { margin: 0; font-family: monospace; }
table.src { border-collapse: collapse; }
td.n { color: #888; text-align: right; padding-right: 1em; font-family: monospace; vertical-align: top; }
td.t { font-family: monospace; white-space: pre; vertical-align: top; }
tr.acc td.t { background: #fff3cd; }
td.c { font-family: monospace; color: #155724; background: #d4edda; padding-left: 1em; white-space: pre; }
.legend span { padding: 0 .5em; }
</style></head><body>
<h1>bigfoot analyze</h1>
<p class="legend"><span style="background:#fff3cd">line with accesses (fasttrack checks each; hover for the list)</span>
<span style="background:#d4edda">check placed by bigfoot mode</span></p>
<ul>{{range .Packages}}<li>{{.}}</li>{{end}}</ul>
<select onchange="for (const d of document.querySelectorAll('div.file')) d.style.display = d.id == this.value ? 'block' : 'none'">
{{range .Files}}<option value="{{.ID}}">{{.Name}}</option>{{end}}
</select>
{{range $i, $f := .Files}}<div class="file" id="{{$f.ID}}" style="display:{{if eq $i 0}}block{{else}}none{{end}}">
<h2>{{$f.Name}}</h2><table class="src">
{{range $f.Lines}}{{range .Checks}}<tr><td class="n"></td><td class="c">✓ {{.}}</td></tr>
{{end}}<tr{{if .Accesses}} class="acc" title="{{.Accesses}}"{{end}}><td class="n">{{.N}}</td><td class="t">{{.Text}}</td></tr>
{{end}}</table></div>
{{end}}</body></html>
`))
