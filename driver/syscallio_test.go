package driver

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSyscallSplices: the toolchain's package syscall takes every splice,
// each once, keeping the file's lines; a file the standard library's
// instrumentation replaced is spliced as instrumented (the text after a
// declaration's brace, such as an instrumented function's first
// statement, stays in the function's body).
func TestSyscallSplices(t *testing.T) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "src", "syscall")
	if _, err := os.Stat(filepath.Join(dir, "syscall_unix.go")); err != nil {
		t.Skip("no syscall_unix.go in this toolchain")
	}
	orig, err := os.ReadFile(filepath.Join(dir, "syscall_unix.go"))
	if err != nil {
		t.Fatal(err)
	}
	files := overlayFiles{replace: map[string][]byte{}, linked: map[string]string{}}
	if err := spliceSyscall(dir, files); err != nil {
		t.Fatal(err)
	}
	got := string(files.replace[filepath.Join(dir, "syscall_unix.go")])
	if strings.Count(got, "\n") != strings.Count(string(orig), "\n") {
		t.Errorf("spliced syscall_unix.go has %d lines, the original %d", strings.Count(got, "\n"), strings.Count(string(orig), "\n"))
	}
	if n := strings.Count(got, "__bf_ioRead()"); n != 2 {
		t.Errorf("%d read hooks, want 2 (Read, Pread)", n)
	}
	if n := strings.Count(got, "__bf_ioReadBytes(unsafe.Pointer(&p[0]), n)"); n != 2 {
		t.Errorf("%d checks of the bytes read, want 2 (Read, Pread)", n)
	}
	if n := strings.Count(got, "__bf_ioWriteBytes(unsafe.Pointer(&p[0]), n)"); n != 2 {
		t.Errorf("%d checks of the bytes written, want 2 (Write, Pwrite)", n)
	}
	if n := strings.Count(got, "__bf_ioWrite()"); n != 3 {
		t.Errorf("%d write hooks, want 3 (Write, Pwrite, Sendfile)", n)
	}
	if _, ok := files.replace[filepath.Join(dir, syscallHooksFile)]; !ok {
		t.Error("no hook declarations added")
	}

	// An instrumented copy: its first statements stay in the bodies.
	inst := strings.ReplaceAll(string(orig), "(n int, err error) {", "(n int, err error) { __bfg := 0; _ = __bfg;")
	linked := filepath.Join(t.TempDir(), "syscall_unix.go")
	if err := os.WriteFile(linked, []byte(inst), 0o666); err != nil {
		t.Fatal(err)
	}
	files = overlayFiles{replace: map[string][]byte{}, linked: map[string]string{filepath.Join(dir, "syscall_unix.go"): linked}}
	if err := spliceSyscall(dir, files); err != nil {
		t.Fatal(err)
	}
	got = string(files.replace[filepath.Join(dir, "syscall_unix.go")])
	if _, still := files.linked[filepath.Join(dir, "syscall_unix.go")]; still {
		t.Error("the instrumented file is still linked beside its spliced copy")
	}
	if !strings.Contains(got, "func __bf_read(fd int, p []byte) (n int, err error) { __bfg := 0; _ = __bfg;") {
		t.Errorf("the instrumented Read's body does not follow its splice:\n%s", got[strings.Index(got, "func Read("):][:300])
	}
}
