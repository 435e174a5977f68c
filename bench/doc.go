// Package bench measures bigfoot against its baselines on a fixed set of Go
// workloads, and renders the comparison in the shape of Tables 3.1 and 3.2
// of the BigFoot paper (PLDI 2017): run-time overhead per checker, check
// ratio, and peak memory.
//
// # Running
//
// From the root of the bigfoot module:
//
//	bigfoot bench [-runs N] [-short] [-peer] [-o dir] [workloads]
//	make bench
//
// or, from Go, [Run] with [Options]. Each workload under bench/workloads is
// built once per tool:
//
//	plain       go build
//	race        go build -race
//	fasttrack   bigfoot build -mode=fasttrack (a check at every access)
//	redcard     bigfoot build -mode=redcard   (redundant checks removed)
//	slimstate   bigfoot build -mode=slimstate (dynamic array compression)
//	bigfoot     bigfoot build -mode=bigfoot   (placement, coalescing, compression)
//	racedetector  github.com/kolkov/racedetector v0.4.10, with Options.Peer
//
// and each binary is run Options.Runs times with GOMAXPROCS=2, the tools
// interleaved round-robin within each repetition so that drifts in machine
// load spread evenly over them. Every run's wall time, CPU time (user +
// system), peak resident set size, and the heap objects allocated and
// collections completed that the workload reports (package peak,
// runtime/metrics) are recorded, and its output line "checksum: ..." must equal
// the plain binary's: a mismatch, a crash or a race report on these
// race-free programs is an error in the report, not a failure of Run.
//
// The check ratio (checks performed / accesses executed) of each bigfoot
// mode comes from a separate counting build, made with -tags bigfoot_count
// and run once with BIGFOOT_OPTIONS=stats=1, whose "bigfoot stats:" line on
// standard error is parsed; counting is never part of the timed runs. If an
// instrumented build prints a line "bigfoot analysis: time=<duration>
// [functions=<n>]" (or "analysis time: <duration>"), the static analysis
// time is reported as well.
//
// Overhead is (t - t_plain) / t_plain on median wall times, as in the
// paper; the mean row of each table is a geometric mean (check ratios and
// times: arithmetic means). Run writes, into Options.OutDir:
//
//	results.md    the tables (Markdown) with the machine and settings
//	overhead.svg  a bar chart of overhead per workload and tool
//	runs.csv      one row per timed run
//	report.json   the whole Report
//
// With Options.Short, each workload runs once per tool at its -short size
// and only the checksums are verified; CI uses this. Timings of a short run
// mean nothing, and no test here asserts on timings.
//
// # Workloads
//
// Each workload is a main package of our own (bench/workloads/<name>),
// race-free and deterministic: it prints one line "checksum: <hex>" that is
// the same for any GOMAXPROCS and any schedule. Each takes -short (a tiny
// size, a few milliseconds) and -size (0: the default size, about one
// second plain with GOMAXPROCS=2 on a small machine), and most take
// -workers (default 4, independent of GOMAXPROCS so that the work
// partition, and with it the result, never depends on the machine). See
// [Workloads] for the list and the access pattern each stands for.
package bench
