//go:build linux
// +build linux

package main

func platform() string { return "linux" }
