// Package driver is bigfoot's build driver: it turns bigfoot build, test
// and run into go build, test and run of instrumented sources, without
// writing into the user's module.
//
// The route (docs/build.md) is an overlay plus a temporary workspace:
//
//   - the runtime sources embedded in the bigfoot binary are written once,
//     as module github.com/bigfoot-go/bigfoot with no requirements, into a
//     directory named by their hash in the user cache directory;
//   - a temporary go.work uses the user's module (and the modules of the
//     user's own go.work) and the runtime module;
//   - an Instrumenter (the CLI passes instrument.Run) returns instrumented
//     contents for the user's files, which the driver writes into the
//     temporary directory together with an -overlay file;
//   - the go command runs with -overlay and GOWORK set, every user flag
//     passed through verbatim, and its exit status becomes bigfoot's.
//
// ParseArgs splits a command line into bigfoot's flags, the go command's
// flags and the package patterns; Run carries it out.
package driver
