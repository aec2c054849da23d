//go:build gc && !purego

#include "go_asm.h"
#include "textflag.h"

// The dispatch of the amd64 build: one stub per kernel that jumps, on the
// level passed as its last argument, to that level's kernel. Every kernel
// takes the same arguments, the level included (unused), so the jump
// leaves them in place and the kernel returns straight to the caller:
// Dot(x, y) costs one call, as a direct call of the kernel would. (A Go
// switch costs a second call frame: 1.4 ns, a quarter of Dot at n = 16.)
// Which levels this CPU has, and so which level the package functions
// pass, is decided in vec_amd64.go; the table of which kernel each level
// runs is here:
//
//	            avx512                  avx2               generic
//	dot         dotAVX512 (dotAVX2 for  dotAVX2            dotGeneric
//	            4096 <= n <= 24576)
//	sumSquares  sumSquaresAVX512        sumSquaresAVX2     sumSquaresGeneric
//	axpyTo      axpyToAVX512            axpyToAVX2         axpyToGeneric
//	softThresh. softThresholdAVX512     softThresholdAVX2  softThresholdGeneric
//	mulVec4     mulVec4AVX512           mulVec4AVX2        (none: Dot per row)
//	mulTransV.4 mulTransVec4AVX512      mulTransVec4AVX2   (none: Axpy per row)
//
// GradSweep's row pipeline (sweep1AVX512) is called from Go, avx512 only.
// The generic kernels are Go functions; the toolchain gives them an ABI0
// entry for these jumps.

// func dot(x, y []float64, l level) float64
TEXT ·dot(SB), NOSPLIT, $0-64
	MOVBLZX l+48(FP), AX
	CMPQ    AX, $const_avx512
	JEQ     dot_avx512
	CMPQ    AX, $const_avx2
	JEQ     dot_avx2
	JMP     ·dotGeneric(SB)

dot_avx512:
	// Vectors in L2 but not L1 run the AVX2 kernel (see dotL2Min).
	MOVQ x_len+8(FP), CX
	CMPQ CX, $const_dotL2Min
	JB   dot_zmm
	CMPQ CX, $const_dotL2Max
	JA   dot_zmm

dot_avx2:
	JMP ·dotAVX2(SB)

dot_zmm:
	JMP ·dotAVX512(SB)

// func sumSquares(x []float64, l level) float64
TEXT ·sumSquares(SB), NOSPLIT, $0-40
	MOVBLZX l+24(FP), AX
	CMPQ    AX, $const_avx512
	JEQ     ss_avx512
	CMPQ    AX, $const_avx2
	JEQ     ss_avx2
	JMP     ·sumSquaresGeneric(SB)

ss_avx512:
	JMP ·sumSquaresAVX512(SB)

ss_avx2:
	JMP ·sumSquaresAVX2(SB)

// func axpyTo(dst []float64, alpha float64, x, y []float64, l level)
TEXT ·axpyTo(SB), NOSPLIT, $0-81
	MOVBLZX l+80(FP), AX
	CMPQ    AX, $const_avx512
	JEQ     axpy_avx512
	CMPQ    AX, $const_avx2
	JEQ     axpy_avx2
	JMP     ·axpyToGeneric(SB)

axpy_avx512:
	JMP ·axpyToAVX512(SB)

axpy_avx2:
	JMP ·axpyToAVX2(SB)

// func softThreshold(dst, x []float64, t float64, l level)
TEXT ·softThreshold(SB), NOSPLIT, $0-57
	MOVBLZX l+56(FP), AX
	CMPQ    AX, $const_avx512
	JEQ     soft_avx512
	CMPQ    AX, $const_avx2
	JEQ     soft_avx2
	JMP     ·softThresholdGeneric(SB)

soft_avx512:
	JMP ·softThresholdAVX512(SB)

soft_avx2:
	JMP ·softThresholdAVX2(SB)

// func mulVec4(dst, a []float64, cols int, x []float64, l level)
// (avx512 or avx2 only: see blocked)
TEXT ·mulVec4(SB), NOSPLIT, $0-81
	CMPB l+80(FP), $const_avx512
	JEQ  mv4_avx512
	JMP  ·mulVec4AVX2(SB)

mv4_avx512:
	JMP ·mulVec4AVX512(SB)

// func mulTransVec4(dst, a []float64, cols int, x []float64, l level)
// (avx512 or avx2 only: see blocked)
TEXT ·mulTransVec4(SB), NOSPLIT, $0-81
	CMPB l+80(FP), $const_avx512
	JEQ  mtv4_avx512
	JMP  ·mulTransVec4AVX2(SB)

mtv4_avx512:
	JMP ·mulTransVec4AVX512(SB)
