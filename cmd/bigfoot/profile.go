package main

import (
	"fmt"
	"io"
	"os"
	"runtime/pprof"
)

// startProfiles starts the developer profiles that the environment asks
// for: BIGFOOT_CPUPROFILE=file writes a CPU profile of the bigfoot
// process (not of the go command or the program it runs), and
// BIGFOOT_MEMPROFILE=file a heap profile at exit, sampling every
// allocation's call site as the go command's -memprofile does. The
// returned function stops them; docs/build.md, "Build cost", says how
// to use them.
func startProfiles(stderr io.Writer) (stop func()) {
	cpu, mem := os.Getenv("BIGFOOT_CPUPROFILE"), os.Getenv("BIGFOOT_MEMPROFILE")
	var cpuFile *os.File
	if cpu != "" {
		f, err := os.Create(cpu)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintf(stderr, "bigfoot: BIGFOOT_CPUPROFILE: %v\n", err)
		} else {
			cpuFile = f
		}
	}
	return func() {
		if cpuFile != nil {
			pprof.StopCPUProfile()
			cpuFile.Close()
		}
		if mem != "" {
			f, err := os.Create(mem)
			if err == nil {
				err = pprof.Lookup("allocs").WriteTo(f, 0)
				f.Close()
			}
			if err != nil {
				fmt.Fprintf(stderr, "bigfoot: BIGFOOT_MEMPROFILE: %v\n", err)
			}
		}
	}
}
