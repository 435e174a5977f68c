package placement

import (
	"go/types"
	"maps"
)

// Which calls synchronize.
//
// The standard library's functions and methods that synchronize, as the
// detector models them, are one table: the kill sets take the effects of
// package sync's and sync/atomic's calls from it (syncFunc), and the
// instrumenter renders each entry at the call: the runtime hook that
// performs it, the I/O ordering around it, or the callback it runs on a
// goroutine of the library's (docs/runtime.md, "Synchronization" and
// "I/O"). Neither decides which calls synchronize on its own.

// An IOKind says how a call orders I/O (docs/runtime.md, "I/O"): the
// operating system orders a write to a file, socket or pipe before a read
// that sees it.
type IOKind uint8

const (
	IOWrite IOKind = 1 << iota // the call releases before it runs
	IORead                     // the call acquires after it returns
	IOBoth  = IOWrite | IORead
)

// A SyncCall is what a call of one standard-library function or method
// does for synchronization.
type SyncCall struct {
	// Hook names the runtime function (package detector) that performs
	// the call in instrumented code, or is "".
	Hook string
	// IO is the call's I/O ordering, or 0.
	IO IOKind
	// Async says the function runs its argument Arg, a callback, on a
	// goroutine the library starts.
	Async bool
	Arg   int
	// Effects are the call's effects on the kill sets, if the table
	// states them (package sync's methods); see syncFunc.
	Effects Effects
}

// SyncCallOf returns what a call of fn does for synchronization and
// whether it does anything. Methods are keyed by their receiver's named
// type (the interface that declares them, for an interface's); a method
// of an interface whose Read or Write has io.Reader's or io.Writer's
// signature is I/O (the dynamic type may be a bytes.Buffer, and then the
// call over-synchronizes, which may hide a race but never invents one);
// every exported function and method of sync/atomic has the hook
// AtomicHook names.
func SyncCallOf(fn *types.Func) (SyncCall, bool) {
	if fn == nil || fn.Pkg() == nil {
		return SyncCall{}, false
	}
	path := fn.Pkg().Path()
	recv := fn.Type().(*types.Signature).Recv()
	if recv == nil {
		if c, ok := syncCalls[path+"."+fn.Name()]; ok {
			return c, true
		}
		if path == "sync/atomic" && fn.Exported() {
			return SyncCall{Hook: AtomicHook("", fn.Name()), Effects: Both}, true
		}
		return SyncCall{}, false
	}
	rt := recv.Type()
	if p, ok := rt.(*types.Pointer); ok {
		rt = p.Elem()
	}
	named, ok := types.Unalias(rt).(*types.Named)
	if !ok {
		if _, iface := rt.Underlying().(*types.Interface); iface {
			return ioInterfaceMethod(fn)
		}
		return SyncCall{}, false
	}
	if c, ok := syncCalls[path+"."+named.Obj().Name()+"."+fn.Name()]; ok {
		return c, true
	}
	if path == "sync/atomic" && fn.Exported() {
		return SyncCall{Hook: AtomicHook(named.Obj().Name(), fn.Name()), Effects: Both}, true
	}
	if _, iface := named.Underlying().(*types.Interface); iface {
		return ioInterfaceMethod(fn)
	}
	return SyncCall{}, false
}

// AtomicHook returns the hook of sync/atomic's function fn, or of the
// method fn of its type typ if typ is not "". The detector makes every
// atomic operation an acquire and a release of the variable's clock
// (detector/atomic.go), so that atomics never race with each other.
func AtomicHook(typ, fn string) string { return "Atomic" + typ + fn }

// SyncCalls returns a copy of the table, keyed by "pkgpath.Func" and
// "pkgpath.Type.Method", sync/atomic's derived entries aside
// (AtomicHook): for the tests that check its hooks against the runtime's
// exports and its package sync entries against the splices of a build
// that instruments the standard library.
func SyncCalls() map[string]SyncCall { return maps.Clone(syncCalls) }

// ioInterfaceMethod classifies a method of an interface: Read and Write
// with the signatures of io.Reader's and io.Writer's.
func ioInterfaceMethod(fn *types.Func) (SyncCall, bool) {
	sig := fn.Type().(*types.Signature)
	if sig.Params().Len() != 1 || sig.Results().Len() != 2 || sig.Variadic() {
		return SyncCall{}, false
	}
	s, ok := sig.Params().At(0).Type().Underlying().(*types.Slice)
	if !ok {
		return SyncCall{}, false
	}
	if b, ok := s.Elem().Underlying().(*types.Basic); !ok || b.Kind() != types.Byte {
		return SyncCall{}, false
	}
	switch fn.Name() {
	case "Read":
		return SyncCall{IO: IORead}, true
	case "Write":
		return SyncCall{IO: IOWrite}, true
	}
	return SyncCall{}, false
}

// syncCalls maps "pkgpath.Func" and "pkgpath.Type.Method" to what a call
// does. A hook takes the goroutine state, then a pointer to the receiver
// (for interfaces, the interface value), then the call's arguments.
var syncCalls = map[string]SyncCall{
	// Package sync. Lock acquires what the last Unlock released; Done is
	// Add(-1), and what a goroutine did before it happens before Wait
	// returns; Signal and Broadcast happen before the Waits they wake.
	"sync.Mutex.Lock":           {Hook: "Lock", Effects: Acquire},
	"sync.Mutex.Unlock":         {Hook: "Unlock", Effects: Release},
	"sync.Mutex.TryLock":        {Hook: "TryLock", Effects: Acquire},
	"sync.RWMutex.Lock":         {Hook: "RWLock", Effects: Acquire},
	"sync.RWMutex.Unlock":       {Hook: "RWUnlock", Effects: Release},
	"sync.RWMutex.RLock":        {Hook: "RWRLock", Effects: Acquire},
	"sync.RWMutex.RUnlock":      {Hook: "RWRUnlock", Effects: Release},
	"sync.RWMutex.TryLock":      {Hook: "RWTryLock", Effects: Acquire},
	"sync.RWMutex.TryRLock":     {Hook: "RWTryRLock", Effects: Acquire},
	"sync.Locker.Lock":          {Hook: "LockerLock"},
	"sync.Locker.Unlock":        {Hook: "LockerUnlock"},
	"sync.WaitGroup.Add":        {Hook: "WaitGroupAdd", Effects: Release},
	"sync.WaitGroup.Done":       {Hook: "WaitGroupDone", Effects: Release},
	"sync.WaitGroup.Wait":       {Hook: "WaitGroupWait", Effects: Acquire},
	"sync.WaitGroup.Go":         {Hook: "WaitGroupGo"},
	"sync.Once.Do":              {Hook: "OnceDo"},
	"sync.Cond.Wait":            {Hook: "CondWait"},
	"sync.Pool.Get":             {Hook: "PoolGet"},
	"sync.Pool.Put":             {Hook: "PoolPut"},
	"sync.Map.Load":             {Hook: "SyncMapLoad"},
	"sync.Map.Store":            {Hook: "SyncMapStore"},
	"sync.Map.LoadOrStore":      {Hook: "SyncMapLoadOrStore"},
	"sync.Map.LoadAndDelete":    {Hook: "SyncMapLoadAndDelete"},
	"sync.Map.Delete":           {Hook: "SyncMapDelete"},
	"sync.Map.Swap":             {Hook: "SyncMapSwap"},
	"sync.Map.CompareAndSwap":   {Hook: "SyncMapCompareAndSwap"},
	"sync.Map.CompareAndDelete": {Hook: "SyncMapCompareAndDelete"},
	"sync.Map.Range":            {Hook: "SyncMapRange"},
	"sync.Map.Clear":            {Hook: "SyncMapClear"},
	"sync.OnceFunc":             {Hook: "OnceFunc"},
	"sync.OnceValue":            {Hook: "OnceValue"},
	"sync.OnceValues":           {Hook: "OnceValues"},

	// Subtests, contexts, iterators, the collector and the process.
	"testing.T.Run":              {Hook: "Run"},
	"testing.B.Run":              {Hook: "Run"},
	"context.Context.Err":        {Hook: "CtxErr"},
	"context.WithCancel":         {Hook: "CtxWithCancel"},
	"context.WithCancelCause":    {Hook: "CtxWithCancelCause"},
	"context.WithTimeout":        {Hook: "CtxWithTimeout"},
	"context.WithTimeoutCause":   {Hook: "CtxWithTimeoutCause"},
	"context.WithDeadline":       {Hook: "CtxWithDeadline"},
	"context.WithDeadlineCause":  {Hook: "CtxWithDeadlineCause"},
	"context.Cause":              {Hook: "CtxCause"},
	"context.AfterFunc":          {Hook: "CtxAfterFunc"},
	"testing/synctest.Test":      {Hook: "SynctestTest"},
	"testing/synctest.Wait":      {Hook: "SynctestWait"},
	"iter.Pull":                  {Hook: "IterPull"},
	"iter.Pull2":                 {Hook: "IterPull2"},
	"runtime.SetFinalizer":       {Hook: "SetFinalizer"},
	"runtime.AddCleanup":         {Hook: "AddCleanup"},
	"runtime.GC":                 {Hook: "GC"},
	"runtime/debug.FreeOSMemory": {Hook: "FreeOSMemory"},
	"os.Exit":                    {Hook: "Exit"},

	// A callback on a goroutine the library starts.
	"time.AfterFunc": {Async: true, Arg: 1},

	// I/O. Creating, renaming, removing files is a write (another
	// goroutine can see it through Open or Stat); opening or inspecting
	// them is a read.
	"os.WriteFile":  {IO: IOWrite},
	"os.Create":     {IO: IOBoth},
	"os.OpenFile":   {IO: IOBoth},
	"os.CreateTemp": {IO: IOBoth},
	"os.MkdirTemp":  {IO: IOBoth},
	"os.Mkdir":      {IO: IOWrite},
	"os.MkdirAll":   {IO: IOWrite},
	"os.Rename":     {IO: IOWrite},
	"os.Remove":     {IO: IOWrite},
	"os.RemoveAll":  {IO: IOWrite},
	"os.Symlink":    {IO: IOWrite},
	"os.Link":       {IO: IOWrite},
	"os.Chmod":      {IO: IOWrite},
	"os.Chtimes":    {IO: IOWrite},
	"os.Truncate":   {IO: IOWrite},
	"os.Open":       {IO: IORead},
	"os.ReadFile":   {IO: IORead},
	"os.ReadDir":    {IO: IORead},
	"os.Stat":       {IO: IORead},
	"os.Lstat":      {IO: IORead},
	"os.Readlink":   {IO: IORead},

	"io.Copy":        {IO: IOBoth},
	"io.CopyN":       {IO: IOBoth},
	"io.CopyBuffer":  {IO: IOBoth},
	"io.ReadAll":     {IO: IORead},
	"io.ReadFull":    {IO: IORead},
	"io.ReadAtLeast": {IO: IORead},
	"io.WriteString": {IO: IOWrite},

	// Printing only releases: goroutines that print are not ordered with
	// each other (as in Go, where an fd write only release-merges).
	"fmt.Print":    {IO: IOWrite},
	"fmt.Printf":   {IO: IOWrite},
	"fmt.Println":  {IO: IOWrite},
	"fmt.Fprint":   {IO: IOWrite},
	"fmt.Fprintf":  {IO: IOWrite},
	"fmt.Fprintln": {IO: IOWrite},
	"fmt.Scan":     {IO: IORead},
	"fmt.Scanf":    {IO: IORead},
	"fmt.Scanln":   {IO: IORead},
	"fmt.Fscan":    {IO: IORead},
	"fmt.Fscanf":   {IO: IORead},
	"fmt.Fscanln":  {IO: IORead},
	"log.Print":    {IO: IOWrite},
	"log.Printf":   {IO: IOWrite},
	"log.Println":  {IO: IOWrite},

	"net.Listen":       {IO: IORead},
	"net.ListenTCP":    {IO: IORead},
	"net.ListenUDP":    {IO: IORead},
	"net.ListenUnix":   {IO: IORead},
	"net.ListenPacket": {IO: IORead},
	"net.Dial":         {IO: IOBoth},
	"net.DialTimeout":  {IO: IOBoth},
	"net.DialTCP":      {IO: IOBoth},
	"net.DialUDP":      {IO: IOBoth},
	"net.DialUnix":     {IO: IOBoth},

	"net/http.Get":      {IO: IOBoth},
	"net/http.Head":     {IO: IOBoth},
	"net/http.Post":     {IO: IOBoth},
	"net/http.PostForm": {IO: IOBoth},

	// A server's handlers run on goroutines net/http starts, which Go's
	// race runtime orders after the call that starts serving (a go
	// statement inside Serve): the call releases, as an I/O write, what
	// the handlers' read acquires.
	"net/http.ListenAndServe":    {IO: IOBoth},
	"net/http.ListenAndServeTLS": {IO: IOBoth},
	"net/http.Serve":             {IO: IOBoth},
	"net/http.ServeTLS":          {IO: IOBoth},
}

func init() {
	add := func(typ string, kind IOKind, methods ...string) {
		for _, m := range methods {
			syncCalls[typ+"."+m] = SyncCall{IO: kind}
		}
	}
	add("os.File", IOWrite, "Write", "WriteString", "WriteAt", "Close", "Sync", "Truncate", "Chmod", "Chown")
	add("os.File", IOBoth, "ReadFrom", "WriteTo")
	add("os.File", IORead, "Read", "ReadAt", "ReadDir", "Readdir", "Readdirnames", "Stat")
	for _, t := range []string{"net.conn", "net.TCPConn", "net.UDPConn", "net.UnixConn", "net.IPConn", "net.Conn", "net.PacketConn"} {
		add(t, IOWrite, "Write", "WriteTo", "WriteToUDP", "WriteToUDPAddrPort", "WriteMsgUDP", "WriteToUnix", "WriteMsgUnix", "WriteToIP", "Close", "CloseWrite", "CloseRead")
		add(t, IORead, "Read", "ReadFrom", "ReadFromUDP", "ReadFromUDPAddrPort", "ReadMsgUDP", "ReadFromUnix", "ReadMsgUnix", "ReadFromIP")
	}
	add("net.TCPConn", IOBoth, "ReadFrom", "WriteTo") // io.ReaderFrom / io.WriterTo: splice
	for _, t := range []string{"net.Listener", "net.TCPListener", "net.UnixListener"} {
		add(t, IORead, "Accept", "AcceptTCP", "AcceptUnix")
		add(t, IOWrite, "Close")
	}
	add("net.Dialer", IOBoth, "Dial", "DialContext")
	add("net.ListenConfig", IORead, "Listen", "ListenPacket")
	add("io.Closer", IOWrite, "Close")
	add("io.ReaderFrom", IOBoth, "ReadFrom")
	add("io.WriterTo", IOBoth, "WriteTo")
	add("io.PipeReader", IORead, "Read")
	add("io.PipeReader", IOWrite, "Close", "CloseWithError")
	add("io.PipeWriter", IOWrite, "Write", "Close", "CloseWithError")
	add("bufio.Reader", IORead, "Read", "ReadByte", "ReadBytes", "ReadLine", "ReadRune", "ReadSlice", "ReadString", "Peek", "Discard")
	add("bufio.Reader", IOBoth, "WriteTo")
	add("bufio.Scanner", IORead, "Scan")
	add("bufio.Writer", IOWrite, "Write", "WriteByte", "WriteRune", "WriteString", "Flush")
	add("bufio.Writer", IOBoth, "ReadFrom")
	add("log.Logger", IOWrite, "Print", "Printf", "Println")
	add("net/http.Client", IOBoth, "Do", "Get", "Head", "Post", "PostForm")
	add("net/http.Transport", IOBoth, "RoundTrip")
	add("net/http.RoundTripper", IOBoth, "RoundTrip")
	add("net/http.Server", IOBoth, "Serve", "ServeTLS", "ListenAndServe", "ListenAndServeTLS") // handlers after the call; return after Shutdown/Close
	add("net/http.Flusher", IOWrite, "Flush")
	add("os/exec.Cmd", IOWrite, "Start")
	add("os/exec.Cmd", IOBoth, "Run", "Output", "CombinedOutput")
	add("os/exec.Cmd", IORead, "Wait")
}
