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

// Reads into buffers where the standard library is not instrumented
// (-deps=main, -deps=modules). A Read or ReadAt method bigfoot did not
// instrument writes p[:n] where no check sees it; emitted code turns
// r.Read(p) into ReadInto(g, site, r, p), which calls it and checks the
// write after it returns, as Go's race runtime checks a read system call
// (syscall.Read: race.WriteRange of the bytes read). After the return is
// past the method's own synchronization, which go -race sees (it
// instruments the method) and bigfoot sees only in part (package sync's
// hooks) or not at all (channels, internal/poll's atomics): two goroutines
// reading one io.Pipe, one *os.File or one crypto/tls.Conn into one
// buffer are ordered by the reader, and the check of the first, made
// after its unlock, raced with the second. So the reads of one receiver
// are modelled as the reader serializing them, as those readers do, with
// a sync object at the receiver's address (readerKey):
//
//   - a read acquires it when it starts and releases into it after its
//     check, so that a read that starts after another's check is ordered
//     after it;
//   - a read that another read of the receiver overlapped (one whose check
//     released into the object after this one started, which this one's
//     clock does not hold) is not checked: which of the two wrote first is
//     unknown, and checking the later one's write before the earlier's
//     would report the earlier against the later, which the reader ordered
//     the other way (the object's lock makes the test, the check and the
//     release one step);
//   - a method that is instrumented checks its own writes (SelfRead, at
//     its entry), so the read is not checked again after it: through an
//     interface, or a dependency's method in -deps=modules, the second
//     check after its unlock raced with its next caller's own check.
//
// What this misses: docs/runtime.md, "Reads into buffers without the
// standard library".

// readerKeyOff separates a reader's sync object from those of a Mutex
// (its address) or an RWMutex's readers (its address+1) that the
// receiver may start with: sharing them would not report a false race,
// but the reader's own lock operations would make its reads overlap.
// The standard library's shim (driver/stdshim.go) repeats it.
const readerKeyOff = 3

// A reader is an io.Reader.
type reader interface{ Read([]byte) (int, error) }

// A readerAt is an io.ReaderAt.
type readerAt interface {
	ReadAt([]byte, int64) (int, error)
}

// ReadInto performs r.Read(p), a Read method of the standard library's
// shape that bigfoot did not instrument (or called through an interface),
// and checks the write of the n bytes it read (see above). Emitted code
// evaluates r, then p, in the original order; a pointer receiver of an
// addressable value is passed as its address, as the call takes it.
func ReadInto[R reader](g *G, site uint32, r R, p []byte) (int, error) {
	key := readerKey(r)
	saved := g.readStart(key)
	n, err := r.Read(p)
	g.readDone(key, saved, p, n, site)
	return n, err
}

// ReadAtInto is ReadInto for ReadAt methods (io.ReaderAt).
func ReadAtInto[R readerAt](g *G, site uint32, r R, p []byte, off int64) (int, error) {
	key := readerKey(r)
	saved := g.readStart(key)
	n, err := r.ReadAt(p, off)
	g.readDone(key, saved, p, n, site)
	return n, err
}

// readerKey is the address of the sync object of the reader r: r's
// pointer, or the box of an interface's value that is not a pointer
// (which the copies of the interface share).
func readerKey(r any) uintptr { return dataWord(r) + readerKeyOff }

// SelfRead is called at the entry of an instrumented method of the shape
// ReadInto calls: it checks its own writes, so that ReadInto does not.
func SelfRead(g *G) { g.selfRead = true }

// stdReadStart is readStart for the standard library's ReadInto
// (driver/stdshim.go), where the standard library is instrumented without
// package syscall's I/O hooks.
//
//lint:ignore U1000 the standard library's shim calls it through a linkname.
//go:linkname stdReadStart
func stdReadStart(g *G, key uintptr) bool {
	return stdChecks(g) && g.readStart(key)
}

// stdReadDone is readDone for the standard library's ReadInto.
//
//lint:ignore U1000 the standard library's shim calls it through a linkname.
//go:linkname stdReadDone
func stdReadDone(g *G, key uintptr, saved bool, p []byte, n int, site uint32) {
	if stdChecks(g) {
		g.readDone(key, saved, p, n, site)
	}
}

// stdSelfRead is SelfRead for the standard library's Read methods.
//
//lint:ignore U1000 the standard library's shim calls it through a linkname.
//go:linkname stdSelfRead
func stdSelfRead(g *G) {
	if stdChecks(g) {
		SelfRead(g)
	}
}

// readStart begins a ReadInto of the reader whose sync object is at key:
// it acquires the object and clears selfRead for the method to set,
// returning selfRead's value for readDone to restore (a method may call
// ReadInto itself).
func (g *G) readStart(key uintptr) (saved bool) {
	g.acquire(key)
	saved, g.selfRead = g.selfRead, false
	return saved
}

// readDone ends a ReadInto that read n bytes into p: unless the method
// checked them itself, it checks their write if no other read of the
// reader overlapped this one, and releases into the reader's object.
func (g *G) readDone(key uintptr, saved bool, p []byte, n int, site uint32) {
	self := g.selfRead
	g.selfRead = saved
	n = min(n, len(p)) // a misbehaving reader: check what exists
	if self || n <= 0 {
		return
	}
	g.yield()
	g.countSyncAs(syncRelease)
	v := g.lockSync(key, true)
	if v.knownTo(g) {
		g.WriteRange(unsafe.Pointer(&p[0]), 1, 0, n, 1, site)
	}
	v.acquireBy(g)
	v.releaseBy(g)
	v.mu.Unlock()
	g.tick()
}
