// Copyright 2026 The bigfoot Authors. All rights reserved.

//go:build !bigfoot_portable

#include "textflag.h"

// func joinAVX2(dst, src *uint64, n int)
//
// dst[i] = max(dst[i], src[i]) for i < n, n a positive multiple of 4, as
// signed 64-bit integers (clock entries are below 2^63): four entries a
// compare and a blend.
TEXT ·joinAVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
loop:
	VMOVDQU (SI), Y0
	VMOVDQU (DI), Y1
	VPCMPGTQ Y1, Y0, Y2      // Y2 = src > dst, per entry
	VPBLENDVB Y2, Y0, Y1, Y3 // Y3 = Y2 ? src : dst
	VMOVDQU Y3, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $4, CX
	JNZ  loop
	VZEROUPPER
	RET

// func cpuid(leaf, sub uint32) (eax, ebx, ecx uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-20
	MOVL leaf+0(FP), AX
	MOVL sub+4(FP), CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL BX, ebx+12(FP)
	MOVL CX, ecx+16(FP)
	RET

// func xcr0() uint32
TEXT ·xcr0(SB), NOSPLIT, $0-4
	MOVL $0, CX
	XGETBV
	MOVL AX, ret+0(FP)
	RET
