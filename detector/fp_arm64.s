// Copyright 2026 The bigfoot Authors. All rights reserved.

//go:build !bigfoot_portable

#include "textflag.h"

// func framePointer() unsafe.Pointer
TEXT ·framePointer(SB),NOSPLIT,$0-8
	MOVD R29, R0
	MOVD R0, ret+0(FP)
	RET
