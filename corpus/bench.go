package corpus

import "io"

// BenchMarkdown writes the suites' measurements as `bigfoot bench
// -suites` reports them: per module the median wall time, CPU time and
// peak RSS under plain go test, go test -race and bigfoot test, and
// bigfoot's overhead over go -race's, (bigfoot - plain) / (race - plain),
// with their geometric means. Overheads need the plain runs; a ratio that
// cannot be formed is "–".
func (rep *Report) BenchMarkdown(w io.Writer) error {
	p := &printer{w: w}
	p.printf("Suites: %d modules, %d interleaved run(s) per tool (medians), %s, %s/%s, %d CPUs, %s.\n",
		len(rep.Modules), rep.Runs, rep.GoVersion, rep.GOOS, rep.GOARCH, rep.NumCPU, rep.Started.Format("2006-01-02 15:04 UTC"))
	p.printf("Each suite is built once per tool before the timed runs; times include the go command's cached build and link steps. RSS is the largest process's peak. " +
		"ovh ×: bigfoot's overhead over plain go test divided by go -race's.\n\n")
	p.printf("| module | wall plain | wall race | wall bigfoot | wall ovh × | CPU plain | CPU race | CPU bigfoot | CPU ovh × | RSS race MiB | RSS bigfoot MiB | RSS × | verdict |\n")
	p.printf("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|\n")
	var wall, cpu, rss []float64
	for _, res := range rep.Modules {
		pl, rs, bs := res.Tools[ToolPlain], res.Tools[ToolRace], res.Tools[ToolBigfoot]
		if rs == nil || bs == nil {
			p.printf("| %s | – | – | – | – | – | – | – | – | – | – | – | %s |\n", res.Module.Path, verdict(res))
			continue
		}
		pw, pc := 0.0, 0.0
		if pl != nil {
			pw, pc = pl.Wall, pl.CPU
		}
		wo, co := overheadRatio(bs.Wall, rs.Wall, pw), overheadRatio(bs.CPU, rs.CPU, pc)
		wall, cpu, rss = append(wall, wo), append(cpu, co), append(rss, res.RSSRatio)
		p.printf("| %s | %.1f | %.1f | %.1f | %s | %.1f | %.1f | %.1f | %s | %d | %d | %s | %s |\n",
			res.Module.Path, pw, rs.Wall, bs.Wall, times(wo), pc, rs.CPU, bs.CPU, times(co),
			rs.PeakRSSKiB>>10, bs.PeakRSSKiB>>10, times(res.RSSRatio), verdict(res))
	}
	p.printf("\nGeometric means: wall overhead %sx, CPU overhead %sx, peak RSS %sx go -race's.\n",
		times(geoMean(wall)), times(geoMean(cpu)), times(geoMean(rss)))
	return p.err
}

// overheadRatio returns bigfoot's overhead over plain divided by go
// -race's, at least 0.01 (bigfoot within noise of plain), or 0 without a
// plain time or with no go -race overhead.
func overheadRatio(bigfoot, race, plain float64) float64 {
	if plain <= 0 || race <= plain {
		return 0
	}
	return max((bigfoot-plain)/(race-plain), 0.01)
}
