// Copyright 2026 The bigfoot Authors. All rights reserved.

// Package detector is bigfoot's race-detection runtime: the FastTrack
// detector (vector clocks and epochs per goroutine, the synchronization
// model, reports in the format of Go's race detector) that every
// instrumented binary links, with its shadow state in package shadow. It
// imports the standard library only, so that adding it to a user's
// workspace changes no module version (docs/api.md).
//
// # What emitted code may call
//
// Instrumented files import the package as __bf; the code the
// instrumenter emits names only the exported identifiers below, in the
// manner of the compiler's race instrumentation (raceread, racewrite,
// raceacquire, racerelease). docs/api.md gives each signature and the
// code it is emitted in.
//
//   - Goroutine state: Cur, Start and the methods Fork, Exit of G; Go,
//     Go1, Go2 and Go3 start a goroutine running a function of up to
//     three arguments.
//   - Sites: RegisterSites, once per file.
//   - Accesses: R, W, MapRead and MapWrite check one access in place; RG,
//     WG and FG a field group; A announces an access whose check was
//     placed elsewhere (counting and verifying builds), and the method
//     Count of G counts accesses left unchecked (an append to an
//     unpublished slice).
//   - Footprints (deferred checks): the methods Footprint and
//     PopFootprints of G, F, OpenRange, OpenRangeAt, Load, LoadGrow,
//     LoopOf, LoopNext and LoopVar.
//   - Synchronization: a hook per synchronizing function or method of
//     the standard library (Lock, Unlock, the Atomic... functions, the
//     Ctx... functions of package context, SetFinalizer, AfterFunc, ...),
//     and the channel operations (Chan, ChanVar, Recv, Recv2, Close,
//     SelectPre, SelectPost).
//   - Program and test boundaries: Main, TestMainStart, TestMainEnd,
//     MRunStart, MRunEnd, TestStart, Run.
//   - I/O, cgo, reflection: IORead, IOWrite, IOR, IOR2, IOR3, IOW, the
//     Cgo... functions and the Reflect... functions.
//   - Helpers of emitted code: Copy, CopyString, Append, AppendString,
//     ReadAll, WriteAll, Async, MV, MV1, MVR, MV1R, GroupFn, GroupWait,
//     TimerAcquire, TimerRelease, SleepPre.
//   - The functions of Go's runtime that exist only in race builds
//     (RaceRead, RaceAcquire, ...): a call of runtime.RaceXxx in a file
//     built only with -race calls the one here.
//
// The types these take or return (G, Child, Footprint, Sender, Appender,
// the MV...Hook types, TB, Range) are exported for their methods. The
// instrumenter's test TestRuntimeAPI collects every name it can emit from
// its source and checks that each is exported here with the kind its use
// needs, as cmd/compile's test of its table of runtime functions does.
//
// Besides these, the methods Read, Write, ReadRange and WriteRange of G
// check a byte range (the standard library's shim calls the last two),
// and Send, SendPre, SendPost, RecvPre, RecvPost, RecvPostOK and
// RecvPostValue perform a channel operation's steps one by one, which only
// this package's tests do: emitted code calls Chan, Recv and Recv2.
// Everything else is unexported. The instrumented standard library, which
// cannot import a module, reaches its hooks (std*, in std.go and
// stdsync.go) through //go:linkname, and the files bigfoot's driver adds
// to packages runtime, internal/race and testing set variables of this
// package (exitHook, raceErrors, testingAcquire, ...) through linknames
// pushed from their side.
package detector
