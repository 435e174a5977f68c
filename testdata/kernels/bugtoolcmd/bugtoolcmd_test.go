// Package bugtoolcmd is modelled on cilium/cilium#17916 (bugtool: fix data race
// occurring when running commands, fixes #17915): written before Go 1.22,
// the range loop had one cmd variable for the whole loop; the range clause
// wrote it each iteration while the goroutines of earlier iterations read
// it. The kernel keeps that shape with a variable declared before the
// loop; the fixed twin binds each value to a variable of its iteration.
package bugtoolcmd

import (
	"sync"
	"testing"
)

func runShared(cmds []string) {
	var wg sync.WaitGroup
	var cmd string
	for _, cmd = range cmds {
		wg.Add(1)
		go func() { defer wg.Done(); _ = len(cmd) }()
	}
	wg.Wait()
}

func run(cmds []string) int {
	var wg sync.WaitGroup
	lens := make([]int, len(cmds))
	for i, cmd := range cmds {
		wg.Add(1)
		go func() { defer wg.Done(); lens[i] = len(cmd) }()
	}
	wg.Wait()
	return lens[0] + lens[1] + lens[2]
}

func TestRaceBugtoolCommands(t *testing.T) {
	runShared([]string{"ip a", "ss -tlnp", "cilium status"})
}

func TestNoRaceBugtoolCommands(t *testing.T) {
	if n := run([]string{"ip a", "ss -tlnp", "cilium status"}); n != 25 {
		t.Fatalf("total length %d, want 25", n)
	}
}
