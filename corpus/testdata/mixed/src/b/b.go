//go:build !foo
// +build !foo

package b

func F() int { return 1 }
