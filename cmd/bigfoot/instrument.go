package main

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/bigfoot-go/bigfoot/driver"
	"github.com/bigfoot-go/bigfoot/instrument"
)

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
