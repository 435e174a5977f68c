package peak

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseStatus(t *testing.T) {
	const status = "Name:\tcrypt\nVmPeak:\t  812345 kB\nVmHWM:\t   43210 kB\nVmRSS:\t   40000 kB\n"
	got, err := parseStatus(strings.NewReader(status))
	if err != nil || got != 43210 {
		t.Fatalf("parseStatus = %d, %v; want 43210", got, err)
	}
	for _, bad := range []string{"VmRSS:\t1 kB\n", "VmHWM:\t12\n", "VmHWM:\tx kB\n"} {
		if _, err := parseStatus(strings.NewReader(bad)); err == nil {
			t.Errorf("parseStatus(%q): no error", bad)
		}
	}
}

func TestVmHWM(t *testing.T) {
	kib, err := vmHWM()
	if err != nil {
		t.Skipf("no /proc/self/status: %v", err)
	}
	if kib <= 0 {
		t.Fatalf("VmHWM = %d KiB", kib)
	}
}

// TestAllocProfile: the profile written is a gzipped pprof profile.
func TestAllocProfile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "allocs.pb.gz")
	if err := writeAllocProfile(path); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
		t.Fatalf("%s is not gzipped (% x...)", path, data[:min(len(data), 4)])
	}
}
