//go:build gc && !purego

#include "textflag.h"

// NEON (ASIMD) kernels, two float64 lanes per register (.D2). Each routine:
//   main loop      16 (Dot) or 8 elements per iteration: multi-register
//                  VLD1.P/VST1.P with post-increment, independent registers,
//   remainder loop 2 elements (one register) per iteration,
//   scalar tail    0 or 1 element with the scalar form of the same op,
// so no load or store touches memory outside the slices.
// Go's assembler has no vector fadd/fsub/fmax/fmin/fneg/faddp for .2d; those
// are WORD-encoded, each with the instruction in a comment (checked with
// go tool objdump -gnu). VFMLA, VLD1/VST1, VDUP and VEOR are native.

// func dotNEON(x, y []float64, _ level) float64
//
// Registers: R0 = &x[i], R1 = &y[i], R2 = elements left,
// V0..V7 = eight partial sums (2 lanes each), V16..V31 = loaded x and y.
// Eight independent FMLA chains: 4 FP pipes at 4 cycles of latency would
// need 16 to stay busy, but each FMLA needs two 128-bit loads and the
// Neoverse cores load at most three per cycle, so at most 1.5 FMLAs issue
// per cycle and 6 chains keep up; 8 leave slack.
TEXT ·dotNEON(SB), NOSPLIT, $0-64
	MOVD x_base+0(FP), R0
	MOVD x_len+8(FP), R2
	MOVD y_base+24(FP), R1
	VEOR V0.B16, V0.B16, V0.B16
	CMP  $16, R2
	BLT  dot_rem2
	VEOR V1.B16, V1.B16, V1.B16
	VEOR V2.B16, V2.B16, V2.B16
	VEOR V3.B16, V3.B16, V3.B16
	VEOR V4.B16, V4.B16, V4.B16
	VEOR V5.B16, V5.B16, V5.B16
	VEOR V6.B16, V6.B16, V6.B16
	VEOR V7.B16, V7.B16, V7.B16

dot_loop16:
	VLD1.P 64(R0), [V16.D2, V17.D2, V18.D2, V19.D2]
	VLD1.P 64(R1), [V20.D2, V21.D2, V22.D2, V23.D2]
	VLD1.P 64(R0), [V24.D2, V25.D2, V26.D2, V27.D2]
	VLD1.P 64(R1), [V28.D2, V29.D2, V30.D2, V31.D2]
	VFMLA  V20.D2, V16.D2, V0.D2 // V0 += x[i:i+2] * y[i:i+2]
	VFMLA  V21.D2, V17.D2, V1.D2
	VFMLA  V22.D2, V18.D2, V2.D2
	VFMLA  V23.D2, V19.D2, V3.D2
	VFMLA  V28.D2, V24.D2, V4.D2
	VFMLA  V29.D2, V25.D2, V5.D2
	VFMLA  V30.D2, V26.D2, V6.D2
	VFMLA  V31.D2, V27.D2, V7.D2
	SUB    $16, R2
	CMP    $16, R2
	BGE    dot_loop16

	// Fold the eight partial sums into V0.
	WORD $0x4e64d400 // fadd v0.2d, v0.2d, v4.2d
	WORD $0x4e65d421 // fadd v1.2d, v1.2d, v5.2d
	WORD $0x4e66d442 // fadd v2.2d, v2.2d, v6.2d
	WORD $0x4e67d463 // fadd v3.2d, v3.2d, v7.2d
	WORD $0x4e61d400 // fadd v0.2d, v0.2d, v1.2d
	WORD $0x4e63d442 // fadd v2.2d, v2.2d, v3.2d
	WORD $0x4e62d400 // fadd v0.2d, v0.2d, v2.2d

dot_rem2:
	CMP $2, R2
	BLT dot_hsum

dot_loop2:
	VLD1.P 16(R0), [V16.D2]
	VLD1.P 16(R1), [V20.D2]
	VFMLA  V20.D2, V16.D2, V0.D2
	SUB    $2, R2
	CMP    $2, R2
	BGE    dot_loop2

dot_hsum:
	WORD $0x7e70d800 // faddp d0, v0.2d (the two lanes of V0)
	CBZ    R2, dot_done
	FMOVD  (R0), F16
	FMOVD  (R1), F17
	FMADDD F17, F0, F16, F0 // fmadd d0, d16, d17, d0: d0 += x*y

dot_done:
	FMOVD F0, ret+56(FP)
	RET

// func sumSquaresNEON(x []float64, _ level) float64
//
// sum x[i]^2, Nrm2's fast path: Dot(x, x) with one load per FMLA instead of
// two. Structure and registers as dotNEON, without y; with one load per
// FMLA the loads allow up to three FMLAs per cycle, and the eight chains
// keep two FP pipes (Neoverse N1, N2) busy at 4 cycles of latency.
TEXT ·sumSquaresNEON(SB), NOSPLIT, $0-40
	MOVD x_base+0(FP), R0
	MOVD x_len+8(FP), R2
	VEOR V0.B16, V0.B16, V0.B16
	CMP  $16, R2
	BLT  ss_rem2
	VEOR V1.B16, V1.B16, V1.B16
	VEOR V2.B16, V2.B16, V2.B16
	VEOR V3.B16, V3.B16, V3.B16
	VEOR V4.B16, V4.B16, V4.B16
	VEOR V5.B16, V5.B16, V5.B16
	VEOR V6.B16, V6.B16, V6.B16
	VEOR V7.B16, V7.B16, V7.B16

ss_loop16:
	VLD1.P 64(R0), [V16.D2, V17.D2, V18.D2, V19.D2]
	VLD1.P 64(R0), [V20.D2, V21.D2, V22.D2, V23.D2]
	VFMLA  V16.D2, V16.D2, V0.D2 // V0 += x[i:i+2]^2
	VFMLA  V17.D2, V17.D2, V1.D2
	VFMLA  V18.D2, V18.D2, V2.D2
	VFMLA  V19.D2, V19.D2, V3.D2
	VFMLA  V20.D2, V20.D2, V4.D2
	VFMLA  V21.D2, V21.D2, V5.D2
	VFMLA  V22.D2, V22.D2, V6.D2
	VFMLA  V23.D2, V23.D2, V7.D2
	SUB    $16, R2
	CMP    $16, R2
	BGE    ss_loop16

	// Fold the eight partial sums into V0.
	WORD $0x4e64d400 // fadd v0.2d, v0.2d, v4.2d
	WORD $0x4e65d421 // fadd v1.2d, v1.2d, v5.2d
	WORD $0x4e66d442 // fadd v2.2d, v2.2d, v6.2d
	WORD $0x4e67d463 // fadd v3.2d, v3.2d, v7.2d
	WORD $0x4e61d400 // fadd v0.2d, v0.2d, v1.2d
	WORD $0x4e63d442 // fadd v2.2d, v2.2d, v3.2d
	WORD $0x4e62d400 // fadd v0.2d, v0.2d, v2.2d

ss_rem2:
	CMP $2, R2
	BLT ss_hsum

ss_loop2:
	VLD1.P 16(R0), [V16.D2]
	VFMLA  V16.D2, V16.D2, V0.D2
	SUB    $2, R2
	CMP    $2, R2
	BGE    ss_loop2

ss_hsum:
	WORD $0x7e70d800 // faddp d0, v0.2d (the two lanes of V0)
	CBZ    R2, ss_done
	FMOVD  (R0), F16
	FMADDD F16, F0, F16, F0 // fmadd d0, d16, d16, d0: d0 += x*x

ss_done:
	FMOVD F0, ret+32(FP)
	RET

// func axpyToNEON(dst []float64, alpha float64, x, y []float64, _ level)
//
// dst[i] = alpha*x[i] + y[i] with one rounding (FMLA).
// Registers: R3 = &dst[i], R0 = &x[i], R1 = &y[i], R2 = elements left,
// V31 = alpha in both lanes, V16..V19 = x, V20..V23 = y, then the results.
// All loads of an iteration come before its stores, so dst may be y (or x)
// itself; partial overlap is not supported.
TEXT ·axpyToNEON(SB), NOSPLIT, $0-81
	MOVD  dst_base+0(FP), R3
	MOVD  dst_len+8(FP), R2
	FMOVD alpha+24(FP), F31
	MOVD  x_base+32(FP), R0
	MOVD  y_base+56(FP), R1
	VDUP  V31.D[0], V31.D2
	CMP   $8, R2
	BLT   axpy_rem2

axpy_loop8:
	VLD1.P 64(R0), [V16.D2, V17.D2, V18.D2, V19.D2]
	VLD1.P 64(R1), [V20.D2, V21.D2, V22.D2, V23.D2]
	VFMLA  V31.D2, V16.D2, V20.D2 // y += x*alpha
	VFMLA  V31.D2, V17.D2, V21.D2
	VFMLA  V31.D2, V18.D2, V22.D2
	VFMLA  V31.D2, V19.D2, V23.D2
	VST1.P [V20.D2, V21.D2, V22.D2, V23.D2], 64(R3)
	SUB    $8, R2
	CMP    $8, R2
	BGE    axpy_loop8

axpy_rem2:
	CMP $2, R2
	BLT axpy_tail

axpy_loop2:
	VLD1.P 16(R0), [V16.D2]
	VLD1.P 16(R1), [V20.D2]
	VFMLA  V31.D2, V16.D2, V20.D2
	VST1.P [V20.D2], 16(R3)
	SUB    $2, R2
	CMP    $2, R2
	BGE    axpy_loop2

axpy_tail:
	CBZ    R2, axpy_done
	FMOVD  (R0), F16
	FMOVD  (R1), F20
	FMADDD F31, F20, F16, F20 // fmadd d20, d16, d31, d20: y + x*alpha
	FMOVD  F20, (R3)

axpy_done:
	RET

// func softThresholdNEON(dst, x []float64, t float64, _ level)
//
// dst[i] = x[i] - c, c = min(max(x[i], -t), t): branch-free soft
// thresholding. fmax/fmin return NaN when either input is NaN (unlike
// fmaxnm/fminnm), so NaN x gives NaN c and NaN dst. For |x| <= t, c == x
// and x - c is +0 exactly, as in the generic code.
// Registers: R3 = &dst[i], R0 = &x[i], R2 = elements left, V30 = t,
// V29 = -t, V16..V19 = x, V20..V23 = c, then the results.
TEXT ·softThresholdNEON(SB), NOSPLIT, $0-57
	MOVD  dst_base+0(FP), R3
	MOVD  dst_len+8(FP), R2
	MOVD  x_base+24(FP), R0
	FMOVD t+48(FP), F30
	VDUP  V30.D[0], V30.D2
	WORD $0x6ee0fbdd // fneg v29.2d, v30.2d
	CMP   $8, R2
	BLT   soft_rem2

soft_loop8:
	VLD1.P 64(R0), [V16.D2, V17.D2, V18.D2, V19.D2]
	WORD $0x4e7df614 // fmax v20.2d, v16.2d, v29.2d (c = max(x, -t))
	WORD $0x4e7df635 // fmax v21.2d, v17.2d, v29.2d
	WORD $0x4e7df656 // fmax v22.2d, v18.2d, v29.2d
	WORD $0x4e7df677 // fmax v23.2d, v19.2d, v29.2d
	WORD $0x4efef694 // fmin v20.2d, v20.2d, v30.2d (c = min(c, t))
	WORD $0x4efef6b5 // fmin v21.2d, v21.2d, v30.2d
	WORD $0x4efef6d6 // fmin v22.2d, v22.2d, v30.2d
	WORD $0x4efef6f7 // fmin v23.2d, v23.2d, v30.2d
	WORD $0x4ef4d614 // fsub v20.2d, v16.2d, v20.2d (x - c)
	WORD $0x4ef5d635 // fsub v21.2d, v17.2d, v21.2d
	WORD $0x4ef6d656 // fsub v22.2d, v18.2d, v22.2d
	WORD $0x4ef7d677 // fsub v23.2d, v19.2d, v23.2d
	VST1.P [V20.D2, V21.D2, V22.D2, V23.D2], 64(R3)
	SUB    $8, R2
	CMP    $8, R2
	BGE    soft_loop8

soft_rem2:
	CMP $2, R2
	BLT soft_tail

soft_loop2:
	VLD1.P 16(R0), [V16.D2]
	WORD $0x4e7df614 // fmax v20.2d, v16.2d, v29.2d
	WORD $0x4efef694 // fmin v20.2d, v20.2d, v30.2d
	WORD $0x4ef4d614 // fsub v20.2d, v16.2d, v20.2d
	VST1.P [V20.D2], 16(R3)
	SUB    $2, R2
	CMP    $2, R2
	BGE    soft_loop2

soft_tail:
	CBZ   R2, soft_done
	FMOVD (R0), F16
	FMAXD F29, F16, F20 // fmax d20, d16, d29: c = max(x, -t)
	FMIND F30, F20, F20 // fmin d20, d20, d30: c = min(c, t)
	FSUBD F20, F16, F20 // fsub d20, d16, d20: x - c
	FMOVD F20, (R3)

soft_done:
	RET
