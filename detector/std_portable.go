// Copyright 2026 The bigfoot Authors. All rights reserved.

//go:build !(amd64 || arm64) || bigfoot_portable

package detector

// stdHooksOn: without getg, curKey parses runtime.Stack with bytes and
// strconv, which may be instrumented; the standard library's hooks stay
// off so that they cannot recurse into it.
const stdHooksOn = false
