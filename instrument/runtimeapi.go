package instrument

import (
	"go/types"

	"github.com/bigfoot-go/bigfoot/placement"
)

// The runtime API that emitted code names.
//
// Instrumented files import the runtime, package detector, as __bf
// (docs/api.md; the package's doc lists what emitted code may call). The
// instrumenter names the runtime's identifiers in two ways only:
//
//   - literally, in a string constant: __bf.Name for a function or type,
//     __bfg.Name for a method of the goroutine state (*detector.G);
//   - by an rtName, a hook chosen at instrumentation time (the hook of a
//     synchronizing call, an I/O call, a goroutine start, a range load),
//     spliced into the text by its ref method.
//
// TestRuntimeAPI collects both from this package's source, with every
// hook of the table of synchronizing calls (placement.SyncCalls) and of
// this toolchain's sync/atomic (placement.AtomicHook), and checks
// that each is exported by the runtime with the kind its use needs, as
// cmd/compile's test of its table of runtime functions does. The helper
// templates (string constants declaring functions and types) also use
// methods and fields of the runtime's types: TestRuntimeAPITemplates
// type-checks them against the runtime.

// An rtName names a function of the runtime package: a hook. Every rtName
// the instrumenter emits is a constant of this type in its source, or
// comes from syncHook.
type rtName string

// ref returns the emitted reference to the hook.
func (n rtName) ref() string { return "__bf." + string(n) }

// syncHook returns the hook that performs a call of fn, a synchronizing
// function or method of the standard library (placement.SyncCallOf), or
// "" if it has none.
func syncHook(fn *types.Func) rtName {
	c, _ := placement.SyncCallOf(fn)
	return rtName(c.Hook)
}
