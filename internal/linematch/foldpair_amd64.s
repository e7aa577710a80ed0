//go:build !purego

#include "textflag.h"

// func foldPairAVX2(b []byte, off int, c1, m1, c2, m2 byte) int
//
// The first i with b[i]|m1 == c1 and b[i+off]|m2 == c2 among the i whose
// two 32-byte loads stay inside b; when there is none, ^i where the
// caller goes on byte by byte.
TEXT ·foldPairAVX2(SB), NOSPLIT, $0-48
	MOVQ	b_base+0(FP), SI
	MOVQ	b_len+8(FP), BX
	MOVQ	off+24(FP), DX
	MOVBLZX	c1+32(FP), AX
	MOVD	AX, X1
	VPBROADCASTB	X1, Y1
	MOVBLZX	m1+33(FP), AX
	MOVD	AX, X2
	VPBROADCASTB	X2, Y2
	MOVBLZX	c2+34(FP), AX
	MOVD	AX, X3
	VPBROADCASTB	X3, Y3
	MOVBLZX	m2+35(FP), AX
	MOVD	AX, X4
	VPBROADCASTB	X4, Y4
	LEAQ	(SI)(DX*1), R8
	MOVQ	BX, CX
	SUBQ	DX, CX
	SUBQ	$32, CX
	XORQ	DI, DI

loop:
	CMPQ	DI, CX
	JGT	notfound
	VMOVDQU	(SI)(DI*1), Y5
	VMOVDQU	(R8)(DI*1), Y6
	VPOR	Y2, Y5, Y5
	VPOR	Y4, Y6, Y6
	VPCMPEQB	Y1, Y5, Y5
	VPCMPEQB	Y3, Y6, Y6
	VPAND	Y5, Y6, Y5
	VPMOVMSKB	Y5, AX
	TESTL	AX, AX
	JNZ	found
	ADDQ	$32, DI
	JMP	loop

found:
	BSFL	AX, AX
	ADDQ	DI, AX
	VZEROUPPER
	MOVQ	AX, ret+40(FP)
	RET

notfound:
	VZEROUPPER
	NOTQ	DI
	MOVQ	DI, ret+40(FP)
	RET
