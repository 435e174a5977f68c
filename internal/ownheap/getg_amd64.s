// Copyright 2026 The bigfoot Authors. All rights reserved.

//go:build !bigfoot_portable

#include "textflag.h"

// func getg() unsafe.Pointer
TEXT ·getg(SB),NOSPLIT,$0-8
	MOVQ (TLS), AX
	MOVQ AX, ret+0(FP)
	RET
