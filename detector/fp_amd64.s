// Copyright 2026 The bigfoot Authors. All rights reserved.

//go:build !bigfoot_portable

#include "textflag.h"

// func framePointer() unsafe.Pointer
TEXT ·framePointer(SB),NOSPLIT,$0-8
	MOVQ BP, AX
	MOVQ AX, ret+0(FP)
	RET
