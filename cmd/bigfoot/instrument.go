package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/bigfoot-go/bigfoot/driver"
	"github.com/bigfoot-go/bigfoot/instrument"
	"golang.org/x/tools/go/packages"
)

// listDriver returns the path of bigfoot's executable, which serves the
// instrumenter's loads (instrument.ServeListDriver), or "" if it is not
// known.
func listDriver() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	return exe
}

// serveListDriver answers go/packages' request and exits if this process
// runs as the instrumenter's driver (listDriver: go/packages runs it with
// the patterns as arguments); otherwise it returns.
func serveListDriver() {
	if _, ok := os.LookupEnv(instrument.ListDriverEnv); !ok {
		return
	}
	if err := instrument.ServeListDriver(context.Background(), os.Args[1:], os.Stdin, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "bigfoot: %v\n", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// graphOf converts the driver's listed graph to the instrumenter's.
func graphOf(graph []driver.GraphPackage) []instrument.ListedPackage {
	if graph == nil {
		return nil
	}
	out := make([]instrument.ListedPackage, len(graph))
	for i, p := range graph {
		out[i] = instrument.ListedPackage{ID: p.ID, Root: p.Root}
		if m := p.Module; m != nil {
			out[i].Module = &packages.Module{Path: m.Path, Version: m.Version, Dir: m.Dir, GoVersion: m.GoVersion, Main: m.Main}
		}
	}
	return out
}

// instrumentFiles adapts instrument.Run to the driver's Instrumenter.
func instrumentFiles(ctx context.Context, req driver.Request) (*driver.Files, error) {
	res, err := instrument.Run(ctx, instrument.Config{
		Dir:          req.Dir,
		Patterns:     req.Patterns,
		Tests:        req.Tests,
		BuildFlags:   req.BuildFlags,
		Env:          req.Env,
		Mode:         req.Mode,
		Std:          req.Std,
		Facts:        req.Facts,
		RuntimeHooks: req.RuntimeHooks,
		SyncOnce:     req.SyncOnce,
		SyscallIO:    req.SyscallIO,
		ListDriver:   listDriver(),
		Graph:        graphOf(req.Graph),
	})
	var lerr *instrument.LoadError
	if errors.As(err, &lerr) {
		return nil, &driver.LoadError{Errors: lerr.Errors}
	}
	if err != nil {
		return nil, err
	}
	plan, err := json.Marshal(res.Plan)
	if err != nil {
		return nil, err
	}
	return &driver.Files{Replace: res.Replace, Add: res.Add, Notes: res.Notes, Broken: res.Broken, Facts: res.Facts, PointerChecksPass: res.PointerChecksPass, Plan: plan}, nil
}
