//go:build gc && !purego

#include "go_asm.h"
#include "textflag.h"

// The dispatch of the arm64 build, as dispatch_amd64.s: one stub per
// kernel jumps, on the level passed as its last argument, to the NEON
// kernel or the generic Go one, with the arguments in place. Which levels
// this CPU has is decided in vec_arm64.go.
//
//	            neon                generic
//	dot         dotNEON             dotGeneric
//	sumSquares  sumSquaresNEON      sumSquaresGeneric
//	axpyTo      axpyToNEON          axpyToGeneric
//	softThresh. softThresholdNEON   softThresholdGeneric
//
// MulVec, MulTransVec and GradSweep run these on each row.

// func dot(x, y []float64, l level) float64
TEXT ·dot(SB), NOSPLIT, $0-64
	MOVBU l+48(FP), R4
	CMP   $const_neon, R4
	BEQ   dot_neon
	JMP   ·dotGeneric(SB)

dot_neon:
	JMP ·dotNEON(SB)

// func sumSquares(x []float64, l level) float64
TEXT ·sumSquares(SB), NOSPLIT, $0-40
	MOVBU l+24(FP), R4
	CMP   $const_neon, R4
	BEQ   ss_neon
	JMP   ·sumSquaresGeneric(SB)

ss_neon:
	JMP ·sumSquaresNEON(SB)

// func axpyTo(dst []float64, alpha float64, x, y []float64, l level)
TEXT ·axpyTo(SB), NOSPLIT, $0-81
	MOVBU l+80(FP), R4
	CMP   $const_neon, R4
	BEQ   axpy_neon
	JMP   ·axpyToGeneric(SB)

axpy_neon:
	JMP ·axpyToNEON(SB)

// func softThreshold(dst, x []float64, t float64, l level)
TEXT ·softThreshold(SB), NOSPLIT, $0-57
	MOVBU l+56(FP), R4
	CMP   $const_neon, R4
	BEQ   soft_neon
	JMP   ·softThresholdGeneric(SB)

soft_neon:
	JMP ·softThresholdNEON(SB)
