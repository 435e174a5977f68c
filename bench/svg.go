package bench

import (
	"io"
	"math"
	"strconv"
	"text/template"
)

// Chart geometry, in SVG user units.
const (
	svgLeft   = 64  // room for the y axis labels
	svgTop    = 56  // room for the title and legend
	svgPlot   = 280 // height of the plot area
	svgBottom = 96  // room for the rotated workload names
	svgBarW   = 11  // width of one bar
	svgGap    = 18  // space between groups
)

// palette colours the tools other than plain, in report order.
var palette = []string{"#8c8c8c", "#d62728", "#ff7f0e", "#9467bd", "#2ca02c", "#1f77b4", "#17becf"}

type svgBar struct {
	X, Y, W, H float64
	Fill       string
	Title      string
}

type svgTick struct {
	Y     float64
	Label string
}

type svgLabel struct {
	X, Y float64
	Text string
}

type svgLegend struct {
	X    float64
	Fill string
	Text string
}

type svgData struct {
	Width, Height            float64
	Left, Top, Right, Bottom float64
	Title                    string
	Bars                     []svgBar
	Ticks                    []svgTick
	Labels                   []svgLabel
	Legend                   []svgLegend
}

var svgTemplate = template.Must(template.New("svg").Parse(`<svg xmlns="http://www.w3.org/2000/svg" width="{{.Width}}" height="{{.Height}}" viewBox="0 0 {{.Width}} {{.Height}}" font-family="sans-serif" font-size="11">
<title>{{html .Title}}</title>
<rect x="0" y="0" width="{{.Width}}" height="{{.Height}}" fill="white"/>
<text x="{{.Left}}" y="16" font-size="13" font-weight="bold">{{html .Title}}</text>
{{- range .Legend}}
<rect x="{{.X}}" y="28" width="10" height="10" fill="{{.Fill}}"/><text x="{{printf "%.1f" .X}}" dx="14" y="37">{{html .Text}}</text>
{{- end}}
{{- range .Ticks}}
<line x1="{{$.Left}}" x2="{{$.Right}}" y1="{{printf "%.1f" .Y}}" y2="{{printf "%.1f" .Y}}" stroke="#dddddd"/><text x="{{$.Left}}" dx="-6" y="{{printf "%.1f" .Y}}" dy="4" text-anchor="end">{{html .Label}}</text>
{{- end}}
{{- range .Bars}}
<rect x="{{printf "%.1f" .X}}" y="{{printf "%.1f" .Y}}" width="{{printf "%.1f" .W}}" height="{{printf "%.1f" .H}}" fill="{{.Fill}}"><title>{{html .Title}}</title></rect>
{{- end}}
<line x1="{{.Left}}" x2="{{.Right}}" y1="{{.Bottom}}" y2="{{.Bottom}}" stroke="black"/>
<line x1="{{.Left}}" x2="{{.Left}}" y1="{{.Top}}" y2="{{.Bottom}}" stroke="black"/>
{{- range .Labels}}
<text transform="translate({{printf "%.1f" .X}},{{printf "%.1f" .Y}}) rotate(-40)" text-anchor="end">{{html .Text}}</text>
{{- end}}
<text transform="translate(14,{{printf "%.1f" .Top}}) rotate(-90)" text-anchor="end">overhead (log scale)</text>
</svg>
`))

// SVG writes a bar chart of the overhead of each tool on each workload,
// and their geometric means, on a logarithmic scale.
func (r *Report) SVG(w io.Writer) error {
	tools := r.checked()
	groups := len(r.Workloads) + 1 // and the geometric mean
	groupW := float64(max(len(tools), 1)*svgBarW + svgGap)
	d := svgData{
		Title:  "Overhead over plain go build (median wall time)",
		Left:   svgLeft,
		Top:    svgTop,
		Bottom: svgTop + svgPlot,
	}
	d.Right = d.Left + float64(groups)*groupW + svgGap/2
	d.Width = max(d.Right+16, svgLeft+float64(len(tools))*110+16)
	d.Height = d.Bottom + svgBottom

	// values[g][i] is the overhead of tools[i] in group g.
	values := make([][]float64, groups)
	lo, hi := 0.0, 1.0 // decades: the scale covers at least 1x..10x
	for g := range values {
		values[g] = make([]float64, len(tools))
		for i, t := range tools {
			var v float64
			if g < len(r.Workloads) {
				v = r.Workloads[g].Overhead(t)
			} else {
				var col []float64
				for _, wr := range r.Workloads {
					col = append(col, wr.Overhead(t))
				}
				v = GeoMean(col)
			}
			values[g][i] = v
			if !math.IsNaN(v) {
				e := math.Log10(max(v, GeoMeanFloor))
				lo, hi = min(lo, math.Floor(e)), max(hi, math.Ceil(e))
			}
		}
	}
	y := func(v float64) float64 {
		e := math.Log10(max(v, GeoMeanFloor))
		return d.Top + svgPlot*(hi-e)/(hi-lo)
	}
	for e := lo; e <= hi; e++ {
		d.Ticks = append(d.Ticks, svgTick{Y: y(math.Pow(10, e)), Label: strconv.FormatFloat(math.Pow(10, e), 'g', -1, 64) + "x"})
	}
	for i, t := range tools {
		text := t
		if l := Label(t); l != t {
			text = l + " (" + t + ")"
		}
		d.Legend = append(d.Legend, svgLegend{X: svgLeft + float64(i)*110, Fill: palette[i%len(palette)], Text: text})
	}
	for g, vs := range values {
		x0 := d.Left + svgGap/2 + float64(g)*groupW
		name := "geo mean"
		if g < len(r.Workloads) {
			name = r.Workloads[g].Name
		}
		for i, v := range vs {
			if math.IsNaN(v) {
				continue
			}
			top := y(v)
			d.Bars = append(d.Bars, svgBar{
				X: x0 + float64(i*svgBarW), Y: top, W: svgBarW - 1, H: d.Bottom - top,
				Fill:  palette[i%len(palette)],
				Title: name + ", " + tools[i] + ": " + times(v),
			})
		}
		d.Labels = append(d.Labels, svgLabel{X: x0 + groupW/2, Y: d.Bottom + 14, Text: name})
	}
	return svgTemplate.Execute(w, d)
}
