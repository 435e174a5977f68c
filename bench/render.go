package bench

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Files written by WriteFiles.
const (
	MarkdownFile = "results.md"
	SVGFile      = "overhead.svg"
	CSVFile      = "runs.csv"
	JSONFile     = "report.json"
)

// WriteFiles writes the report into dir (created if need be) as
// MarkdownFile, SVGFile, CSVFile and JSONFile.
func WriteFiles(r *Report, dir string) error {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return err
	}
	for _, f := range []struct {
		name  string
		write func(io.Writer) error
	}{
		{MarkdownFile, r.Markdown},
		{SVGFile, r.SVG},
		{CSVFile, r.CSV},
		{JSONFile, r.JSON},
	} {
		var b strings.Builder
		if err := f.write(&b); err != nil {
			return fmt.Errorf("rendering %s: %w", f.name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, f.name), []byte(b.String()), 0o666); err != nil {
			return err
		}
	}
	return nil
}

// JSON writes the whole report as indented JSON.
func (r *Report) JSON(w io.Writer) error {
	b, err := json.MarshalIndent(r, "", "\t")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// CSV writes one row per timed run: workload, tool, repetition, wall
// seconds, CPU seconds, peak RSS in KiB, heap allocations, collections,
// checksum and error.
func (r *Report) CSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"workload", "tool", "rep", "seconds", "cpu_seconds", "maxrss_kib", "heap_allocs", "gc_cycles", "checksum", "error"})
	for _, wr := range r.Workloads {
		for _, tool := range r.Tools {
			tr := wr.Tool(tool)
			if tr == nil {
				continue
			}
			for _, run := range tr.Runs {
				cw.Write([]string{
					wr.Name, tool, strconv.Itoa(run.Rep),
					strconv.FormatFloat(run.Seconds, 'f', 4, 64),
					strconv.FormatFloat(run.CPUSeconds, 'f', 4, 64),
					strconv.FormatInt(run.MaxRSSKiB, 10),
					strconv.FormatUint(run.HeapAllocs, 10),
					strconv.FormatUint(run.GCCycles, 10),
					run.Checksum, run.Err,
				})
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// checked returns the tools other than plain, in report order.
func (r *Report) checked() []string {
	var ts []string
	for _, t := range r.Tools {
		if t != Plain {
			ts = append(ts, t)
		}
	}
	return ts
}

// modes returns bigfoot's modes among the tools.
func (r *Report) modes() []string {
	var ts []string
	for _, t := range r.Tools {
		if isBigfootMode(t) {
			ts = append(ts, t)
		}
	}
	return ts
}

// relTools returns the tools compared with FastTrack: those other than
// plain and FastTrack, if FastTrack was measured.
func (r *Report) relTools() []string {
	if !slices.Contains(r.Tools, FastTrack) {
		return nil
	}
	var ts []string
	for _, t := range r.checked() {
		if t != FastTrack {
			ts = append(ts, t)
		}
	}
	return ts
}

// table accumulates a Markdown table.
type table struct {
	b    *strings.Builder
	cols int
}

func newTable(b *strings.Builder, header ...string) *table {
	t := &table{b: b, cols: len(header)}
	t.row(header...)
	align := make([]string, len(header))
	for i := range align {
		align[i] = "---:"
	}
	align[0] = ":---"
	t.row(align...)
	return t
}

func (t *table) row(cells ...string) {
	t.b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
}

// Cell formats.
func num(v float64, prec int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "—"
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}

func times(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "—"
	}
	return strconv.FormatFloat(v, 'f', 2, 64) + "x"
}

func paren(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "—"
	}
	return "(" + strconv.FormatFloat(v, 'f', 2, 64) + ")"
}

func ratio(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// failed returns "fail" if tool's build failed on wr, else cell.
func failed(wr *WorkloadResult, tool, cell string) string {
	if tr := wr.Tool(tool); tr != nil && tr.Err != "" {
		return "fail"
	}
	return cell
}

// Markdown writes the report as Markdown: the settings, the time table in
// the shape of the paper's Table 3.1, the memory table in the shape of its
// Table 3.2, build times, errors and notes.
func (r *Report) Markdown(w io.Writer) error {
	var b strings.Builder
	b.WriteString("# bigfoot bench\n\n")
	fmt.Fprintf(&b, "%s %s/%s, %d CPUs, GOMAXPROCS=%d; %d timed run(s) per workload and tool, tools interleaved; started %s, took %.0f s.\n\n",
		r.GoVersion, r.GOOS, r.GOARCH, r.NumCPU, r.GOMAXPROCS, r.Runs,
		r.Started.Format("2006-01-02 15:04 MST"), r.Seconds)
	if r.Quick {
		b.WriteString("**Quick mode** (`-quick`): each workload at its quick size, about an eighth of its default work (`bench.Workload.Quick`).\n\n")
	}
	if r.Short {
		b.WriteString("**Short mode**: workloads at their -short size; only the checksums are meaningful, not the times.\n\n")
	}
	r.headline(&b)
	r.costTable(&b)
	r.timeTable(&b)
	r.memoryTable(&b)
	r.buildTable(&b)

	b.WriteString("## Workloads\n\n")
	for _, wr := range r.Workloads {
		fmt.Fprintf(&b, "- **%s**: %s", wr.Name, wr.Pattern)
		if wr.Checksum != "" {
			fmt.Fprintf(&b, " (checksum `%s`)", wr.Checksum)
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")

	var errs []string
	for _, wr := range r.Workloads {
		for _, e := range wr.Errors {
			errs = append(errs, fmt.Sprintf("- %s: %s", wr.Name, strings.ReplaceAll(firstLine(e), "|", `\|`)))
		}
	}
	if len(errs) > 0 {
		b.WriteString("## Errors\n\n" + strings.Join(errs, "\n") + "\n\nFull messages are in " + JSONFile + ".\n\n")
	}
	if len(r.Notes) > 0 {
		b.WriteString("## Notes\n\n")
		for _, n := range r.Notes {
			b.WriteString("- " + n + "\n")
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// headline writes bigfoot's default mode against go -race, workload by
// workload: slowdown (median time / plain's) and peak memory side by side,
// their ratios, and geometric means with and without the workload that
// moves the mean of the time ratio most (no flattering mean).
func (r *Report) headline(b *strings.Builder) {
	if !slices.Contains(r.Tools, Race) || !slices.Contains(r.Tools, BigFoot) || !slices.Contains(r.Tools, Plain) {
		return
	}
	main := BigFoot + "+main"
	hasMain := slices.Contains(r.Tools, main)
	b.WriteString("## bigfoot against go -race\n\n")
	header := []string{"Program", "plain (s)", "go -race", "bigfoot", "bigfoot / go -race"}
	if hasMain {
		header = append(header, "bigfoot -deps=main")
	}
	header = append(header, "go -race MiB", "bigfoot MiB", "memory bigfoot / go -race")
	t := newTable(b, header...)
	var names []string
	var timeRatios, memRatios, raceSlow, bfSlow []float64
	for _, wr := range r.Workloads {
		plain := wr.Tool(Plain).Time()
		race, bf := wr.Tool(Race).Time()/plain, wr.Tool(BigFoot).Time()/plain
		rm, bm := wr.Tool(Race).MaxRSS()/1024, wr.Tool(BigFoot).MaxRSS()/1024
		row := []string{wr.Name, num(plain, 2), times(race), times(bf), num(bf/race, 2)}
		if hasMain {
			row = append(row, times(wr.Tool(main).Time()/plain))
		}
		row = append(row, num(rm, 1), num(bm, 1), num(bm/rm, 2))
		t.row(row...)
		names = append(names, wr.Name)
		timeRatios, memRatios = append(timeRatios, bf/race), append(memRatios, bm/rm)
		raceSlow, bfSlow = append(raceSlow, race), append(bfSlow, bf)
	}
	fmt.Fprintf(b, "\nGeometric means: slowdown go -race %s, bigfoot %s; time bigfoot / go -race %s; memory bigfoot / go -race %s.\n",
		times(geoMean(raceSlow)), times(geoMean(bfSlow)), num(geoMean(timeRatios), 2), num(geoMean(memRatios), 2))
	if i := dominant(timeRatios); i >= 0 && len(timeRatios) > 2 {
		without := func(xs []float64) []float64 { return slices.Delete(slices.Clone(xs), i, i+1) }
		fmt.Fprintf(b, "Without %s, the workload that moves the time ratio's mean most: time bigfoot / go -race %s, memory %s.\n",
			names[i], num(geoMean(without(timeRatios)), 2), num(geoMean(without(memRatios)), 2))
	}
	b.WriteString("\nSlowdown: median wall time / the plain build's. Memory: median peak RSS (VmHWM). Ratios below 1 favour bigfoot; the goal is 0.5.\n\n")
}

// costTable writes bigfoot's default mode against go -race in CPU time,
// which other processes on the machine disturb less than wall time, and
// what each build does to the Go heap: objects allocated and collections,
// as the workloads report them from runtime/metrics.
func (r *Report) costTable(b *strings.Builder) {
	if !slices.Contains(r.Tools, Race) || !slices.Contains(r.Tools, BigFoot) || !slices.Contains(r.Tools, Plain) {
		return
	}
	b.WriteString("## CPU time and the Go heap\n\n")
	t := newTable(b, "Program", "plain CPU (s)", "go -race", "bigfoot", "overhead bigfoot / go -race",
		"plain allocs", "allocs go -race / plain", "allocs bigfoot / plain", "GCs plain", "GCs go -race", "GCs bigfoot")
	var overheads []float64
	for _, wr := range r.Workloads {
		p, rc, bf := wr.Tool(Plain), wr.Tool(Race), wr.Tool(BigFoot)
		plain := p.CPU()
		ratio := Overhead(bf.CPU(), plain) / Overhead(rc.CPU(), plain)
		overheads = append(overheads, ratio)
		t.row(wr.Name, num(plain, 2), times(rc.CPU()/plain), times(bf.CPU()/plain), num(ratio, 2),
			num(p.Allocs(), 0), num(rc.Allocs()/p.Allocs(), 3), num(bf.Allocs()/p.Allocs(), 3),
			num(p.GCs(), 0), num(rc.GCs(), 0), num(bf.GCs(), 0))
	}
	fmt.Fprintf(b, "\nGeometric mean of the CPU overhead ratio bigfoot / go -race: %s (the goal: at most 0.5, none above 1.0).\n", num(geoMean(overheads), 2))
	b.WriteString("\nCPU: median user + system time, and its ratio to the plain build's. Overhead: (t - plain) / plain. Allocs and GCs: medians of the heap objects allocated and the collections completed (runtime/metrics); the goal is allocations within 2% of plain's and collections within 10%.\n\n")
}

// geoMean is the plain geometric mean of the positive numbers in xs (ratios
// need no floor, unlike overheads), or NaN if there are none.
func geoMean(xs []float64) float64 {
	sum, n := 0.0, 0
	for _, x := range xs {
		if x > 0 && !math.IsInf(x, 0) {
			sum += math.Log(x)
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return math.Exp(sum / float64(n))
}

// dominant returns the index of the value whose removal changes the
// geometric mean of xs most, or -1.
func dominant(xs []float64) int {
	best, bestD := -1, 0.0
	all := math.Log(geoMean(xs))
	for i := range xs {
		d := math.Abs(math.Log(geoMean(slices.Delete(slices.Clone(xs), i, i+1))) - all)
		if d > bestD {
			best, bestD = i, d
		}
	}
	return best
}

// timeTable writes the time table (Table 3.1).
func (r *Report) timeTable(b *strings.Builder) {
	modes, checked, rel := r.modes(), r.checked(), r.relTools()
	hasBF := slices.Contains(r.Tools, BigFoot)
	hasAnalysis := false // did any build report its analysis time?
	for _, wr := range r.Workloads {
		if tr := wr.Tool(BigFoot); tr != nil && tr.AnalysisSeconds > 0 {
			hasAnalysis = true
		}
	}
	header := []string{"Program"}
	if hasBF {
		header = append(header, "BF build (s)")
	}
	if hasAnalysis {
		header = append(header, "BF analysis (s)")
	}
	for _, m := range modes {
		header = append(header, "Check ratio "+Label(m))
	}
	header = append(header, "Base time (s)")
	for _, t := range checked {
		header = append(header, Label(t))
	}
	for _, t := range rel {
		header = append(header, "("+Label(t)+"/FT)")
	}

	b.WriteString("## Time overhead (Table 3.1)\n\n")
	tb := newTable(b, header...)
	// Columns of per-workload values, for the mean row.
	var builds, analyses []float64
	ratios := make(map[string][]float64)
	overheads := make(map[string][]float64)
	rels := make(map[string][]float64)
	for _, wr := range r.Workloads {
		row := []string{wr.Name}
		if hasBF {
			tr := wr.Tool(BigFoot)
			bt, at := math.NaN(), math.NaN()
			if tr != nil && tr.Err == "" {
				bt = tr.BuildSeconds
				if tr.AnalysisSeconds > 0 {
					at = tr.AnalysisSeconds
				}
			}
			builds, analyses = append(builds, bt), append(analyses, at)
			row = append(row, failed(wr, BigFoot, num(bt, 2)))
			if hasAnalysis {
				row = append(row, failed(wr, BigFoot, num(at, 2)))
			}
		}
		for _, m := range modes {
			v := wr.Tool(m).CheckRatio()
			ratios[m] = append(ratios[m], v)
			row = append(row, failed(wr, m, ratio(v)))
		}
		row = append(row, failed(wr, Plain, num(wr.Tool(Plain).Time(), 3)))
		for _, t := range checked {
			v := wr.Overhead(t)
			overheads[t] = append(overheads[t], v)
			row = append(row, failed(wr, t, times(v)))
		}
		for _, t := range rel {
			v := wr.RelOverhead(t)
			rels[t] = append(rels[t], v)
			row = append(row, failed(wr, t, paren(v)))
		}
		tb.row(row...)
	}
	row := []string{"**Mean**"}
	if hasBF {
		row = append(row, num(Mean(builds), 2))
	}
	if hasAnalysis {
		row = append(row, num(Mean(analyses), 2))
	}
	for _, m := range modes {
		row = append(row, ratio(GeoMean(ratios[m])))
	}
	row = append(row, "")
	for _, t := range checked {
		row = append(row, times(GeoMean(overheads[t])))
	}
	for _, t := range rel {
		row = append(row, paren(GeoMean(rels[t])))
	}
	tb.row(row...)
	fmt.Fprintf(b, "\nBase time: median wall time of the plain build. Overhead: (t − base) / base on median times, "+
		"so 4.20x means 5.2 times as long. Check ratio: checks / accesses in a separate counting build "+
		"(-tags bigfoot_count). The mean row gives arithmetic means of build times "+
		"and geometric means of check ratios and overheads, with values below %.2f counted as %.2f. "+
		"Tools: %s.\n\n", GeoMeanFloor, GeoMeanFloor, r.legend())
}

// memoryTable writes the memory table (Table 3.2).
func (r *Report) memoryTable(b *strings.Builder) {
	checked, rel := r.checked(), r.relTools()
	header := []string{"Program", "Base mem (MiB)"}
	for _, t := range checked {
		header = append(header, Label(t)+"/Base")
	}
	for _, t := range rel {
		header = append(header, "("+Label(t)+"/FT)")
	}
	b.WriteString("## Peak memory (Table 3.2)\n\n")
	tb := newTable(b, header...)
	var base []float64
	vsBase := make(map[string][]float64)
	vsFT := make(map[string][]float64)
	for _, wr := range r.Workloads {
		mb := wr.Tool(Plain).MaxRSS() / 1024
		base = append(base, mb)
		row := []string{wr.Name, failed(wr, Plain, num(mb, 1))}
		for _, t := range checked {
			v := wr.Memory(t, Plain)
			vsBase[t] = append(vsBase[t], v)
			row = append(row, failed(wr, t, num(v, 2)))
		}
		for _, t := range rel {
			v := wr.Memory(t, FastTrack)
			vsFT[t] = append(vsFT[t], v)
			row = append(row, failed(wr, t, paren(v)))
		}
		tb.row(row...)
	}
	row := []string{"**Geo mean**", num(GeoMean(base), 1)}
	for _, t := range checked {
		row = append(row, num(GeoMean(vsBase[t]), 2))
	}
	for _, t := range rel {
		row = append(row, paren(GeoMean(vsFT[t])))
	}
	tb.row(row...)
	b.WriteString("\nPeak resident set size (the process's own VmHWM, which each workload prints at exit; rusage maxrss if it did not), median over runs, relative to the plain build and (in parentheses) to FastTrack.\n\n")
}

// buildTable writes the build wall times of every tool.
func (r *Report) buildTable(b *strings.Builder) {
	header := []string{"Program"}
	for _, t := range r.Tools {
		header = append(header, Label(t))
	}
	b.WriteString("## Build time (s)\n\n")
	tb := newTable(b, header...)
	for _, wr := range r.Workloads {
		row := []string{wr.Name}
		for _, t := range r.Tools {
			v := math.NaN()
			if tr := wr.Tool(t); tr != nil {
				v = tr.BuildSeconds
			}
			row = append(row, failed(wr, t, num(v, 2)))
		}
		tb.row(row...)
	}
	b.WriteString("\nWall time of each build, with the go command's build cache warm for the standard library.\n\n")
}

// legend spells out the column labels.
func (r *Report) legend() string {
	var parts []string
	for _, t := range r.Tools {
		desc := map[string]string{
			Plain:     "go build",
			Race:      "go build -race",
			FastTrack: "bigfoot -mode=fasttrack",
			RedCard:   "bigfoot -mode=redcard",
			SlimState: "bigfoot -mode=slimstate",
			BigFoot:   "bigfoot -mode=bigfoot",
			Peer:      PeerModule + " " + PeerVersion,
		}[t]
		if mode, deps := splitTool(t); isBigfootMode(t) {
			desc = "bigfoot -mode=" + mode
			if deps != "" {
				desc += " -deps=" + deps
			}
			if o := toolOptions(t); o != "" {
				desc += ", BIGFOOT_OPTIONS=" + o
			}
		}
		parts = append(parts, fmt.Sprintf("%s = %s", Label(t), desc))
	}
	return strings.Join(parts, ", ")
}
