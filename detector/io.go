// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import "unsafe"

// I/O as synchronization. The operating system orders a write to a file,
// socket or pipe before a read that sees the data. As in Go's race
// detector (package syscall: a Write, Pwrite or Sendfile does
// race.ReleaseMerge(&ioSync) before, a Read or Pread that succeeded
// race.Acquire(&ioSync) after), there is one process-wide sync object for
// all I/O: writes release into it, reads acquire from it. This
// over-synchronizes (every read is ordered after every earlier write,
// whatever the file): it may hide a race, never invent one. Writes only
// release, so goroutines that only print stay unordered with each other.
//
// Where the standard library is instrumented, package syscall calls
// stdIORead and stdIOWrite where go -race's announces I/O (the driver's
// splices, driver/syscallio.go). Elsewhere the instrumenter announces I/O
// at the call sites of instrumented code (IOW, IOR, ...), from a table of
// the calls that may do I/O, which orders more: an open or a stat
// acquires, a close or a remove releases.

// ioSync is the process-wide I/O sync object.
var ioSync clockBox

// stdIORead is syscall.Read and Pread's hook, after a read that succeeded.
//
//lint:ignore U1000 package syscall calls it through a linkname.
//go:linkname stdIORead
func stdIORead() {
	if g := stdCur(); g != nil {
		ioSync.acquire(g)
	}
}

// stdIOReadBytes is syscall.Read and Pread's hook, after a read that
// stored n > 0 bytes at p: it checks their write, as Go's race detector's
// package syscall does (race.WriteRange), at the hook site of race
// annotations, so that a report names syscall.Read and its callers. It
// is where a read from a file or socket is checked when the standard
// library is instrumented: a Read method written in Go checks its own
// writes, so its callers do not check them again (ReadInto), which after
// the method's return would come after its unlocks and race with the
// next reader the lock orders after it (math/rand.Read, io.PipeReader).
//
//lint:ignore U1000 package syscall calls it through a linkname.
//go:linkname stdIOReadBytes
func stdIOReadBytes(p unsafe.Pointer, n int) {
	if g := stdCur(); g != nil && n > 0 {
		stdCheck(g, p, uintptr(n), true, hookSite(hookAnnotation))
	}
}

// stdIOWriteBytes is syscall.Write and Pwrite's hook, after a write that
// sent the n > 0 bytes at p: it checks their read, as Go's race
// detector's package syscall does (race.ReadRange), at the hook site of
// race annotations: a goroutine writing a buffer that another one sends
// to a file or socket races with the send.
//
//lint:ignore U1000 package syscall calls it through a linkname.
//go:linkname stdIOWriteBytes
func stdIOWriteBytes(p unsafe.Pointer, n int) {
	if g := stdCur(); g != nil && n > 0 {
		stdCheck(g, p, uintptr(n), false, hookSite(hookAnnotation))
	}
}

// stdIOWrite is syscall.Write, Pwrite and Sendfile's hook, before the
// write.
//
//lint:ignore U1000 package syscall calls it through a linkname.
//go:linkname stdIOWrite
func stdIOWrite() {
	if g := stdCur(); g != nil {
		ioSync.release(g)
	}
}

// IOWrite is called before an operation that writes to a file, socket or
// pipe (or otherwise changes what another reader of the OS sees: create,
// rename, remove, close): it releases the goroutine's clock into the I/O
// sync object.
func IOWrite(g *G) { ioSync.release(g) }

// IORead is called after an operation that reads from a file, socket or
// pipe (open, stat, accept, ...): it acquires the I/O sync object.
func IORead(g *G) { ioSync.acquire(g) }

// IOW is IOWrite followed by returning v: emitted code wraps the last
// argument a writing call evaluates, so that the release follows the
// argument's evaluation (and its checks) and precedes the call.
func IOW[T any](g *G, v T) T {
	ioSync.release(g)
	return v
}

// IOR is IORead after a reading call with one result: IOR(g, f.Stat()).
func IOR[T any](g *G, v T) T {
	ioSync.acquire(g)
	return v
}

// IOR2 is IORead after a reading call with two results:
// IOR2(f.Read(buf)). A multi-valued call must be the only argument, so the
// goroutine state is found with Cur.
func IOR2[A, B any](a A, b B) (A, B) {
	ioSync.acquire(Cur())
	return a, b
}

// IOR3 is IOR2 for calls with three results.
func IOR3[A, B, C any](a A, b B, c C) (A, B, C) {
	ioSync.acquire(Cur())
	return a, b, c
}

// ReadInto performs read(p), a Read method of the standard library's shape
// (io.Reader), and then treats it as Go's race runtime treats a read system
// call (syscall.Read: race.WriteRange of the bytes read): the first n
// bytes of p are written by the calling goroutine. Emitted code turns
// r.Read(p), for a Read the standard library or another uninstrumented
// package implements, into __bf.ReadInto(g, site, r.Read, p), which
// evaluates the receiver and p in the original order; a read from a file or
// socket is wrapped in IOR2 as well.
func ReadInto(g *G, site uint32, read func([]byte) (int, error), p []byte) (int, error) {
	n, err := read(p)
	readBytes(g, p, n, site)
	return n, err
}

// ReadAtInto is ReadInto for ReadAt methods (io.ReaderAt).
func ReadAtInto(g *G, site uint32, readAt func([]byte, int64) (int, error), p []byte, off int64) (int, error) {
	n, err := readAt(p, off)
	readBytes(g, p, n, site)
	return n, err
}

// readBytes checks the write of p[:n] by a read into p.
func readBytes(g *G, p []byte, n int, site uint32) {
	if n > len(p) {
		n = len(p) // a misbehaving reader; check what exists
	}
	if n > 0 {
		g.WriteRange(unsafe.Pointer(&p[0]), 1, 0, n, 1, site)
	}
}
