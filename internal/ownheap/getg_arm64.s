// Copyright 2026 The bigfoot Authors. All rights reserved.

//go:build !bigfoot_portable

#include "textflag.h"

// func getg() unsafe.Pointer
TEXT ·getg(SB),NOSPLIT,$0-8
	MOVD g, R0
	MOVD R0, ret+0(FP)
	RET
