//go:build gc && !purego

#include "textflag.h"

// AVX2 + FMA kernels. Each routine has the same structure:
//   main loop      16 or 32 elements per iteration, unrolled over
//                  independent registers,
//   remainder loop 4 elements (one ymm) per iteration,
//   scalar tail    0..3 elements with the VEX scalar form of the same op,
// so no load or store ever touches memory outside the slices. Unaligned
// loads (VMOVUPD) are used throughout: on current cores they cost nothing
// extra on aligned data, and Go slices carry no alignment promise.
// VZEROUPPER before every RET avoids the AVX-SSE transition penalty in the
// Go code that follows.
//

// func dotAVX2(x, y []float64, _ level) float64
//
// Registers: SI = &x[0], DI = &y[0], AX = i, DX = len(x), CX = end of the
// current loop, Y0..Y7 = eight partial sums (4 lanes each), Y8..Y11 = x.
// Two loads per FMA make the loads the limit: Zen 4 and 5 (and recent
// Intel cores) issue two vector loads per cycle, so this loop does one FMA
// per cycle and runs as fast as one that only loads. (The limit counts
// loads, not bytes: Zen 5's two loads per cycle may be 512 bits wide, which
// is why dotAVX512 is up to twice as fast there.) Eight independent sums
// cover the 4-cycle FMA latency with room to spare. Loads
// and FMAs go in groups of four, which measured best once the data no
// longer fits in L1. A 16-element block with four sums serves the
// remainder and short vectors, so n = 16 is four independent FMAs rather
// than a chain of four.
TEXT ·dotAVX2(SB), NOSPLIT, $0-64
	MOVQ   x_base+0(FP), SI
	MOVQ   x_len+8(FP), DX
	MOVQ   y_base+24(FP), DI
	XORQ   AX, AX
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	MOVQ   DX, CX
	ANDQ   $-32, CX
	JZ     dot_rem16

	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7

dot_loop32:
	VMOVUPD     (SI)(AX*8), Y8
	VMOVUPD     32(SI)(AX*8), Y9
	VMOVUPD     64(SI)(AX*8), Y10
	VMOVUPD     96(SI)(AX*8), Y11
	VFMADD231PD (DI)(AX*8), Y8, Y0     // Y0 += x[i:i+4] * y[i:i+4]
	VFMADD231PD 32(DI)(AX*8), Y9, Y1
	VFMADD231PD 64(DI)(AX*8), Y10, Y2
	VFMADD231PD 96(DI)(AX*8), Y11, Y3
	VMOVUPD     128(SI)(AX*8), Y8
	VMOVUPD     160(SI)(AX*8), Y9
	VMOVUPD     192(SI)(AX*8), Y10
	VMOVUPD     224(SI)(AX*8), Y11
	VFMADD231PD 128(DI)(AX*8), Y8, Y4
	VFMADD231PD 160(DI)(AX*8), Y9, Y5
	VFMADD231PD 192(DI)(AX*8), Y10, Y6
	VFMADD231PD 224(DI)(AX*8), Y11, Y7
	ADDQ        $32, AX
	CMPQ        AX, CX
	JB          dot_loop32

	VADDPD Y4, Y0, Y0
	VADDPD Y5, Y1, Y1
	VADDPD Y6, Y2, Y2
	VADDPD Y7, Y3, Y3

dot_rem16:
	MOVQ DX, CX
	SUBQ AX, CX
	CMPQ CX, $16
	JB   dot_fold
	VMOVUPD     (SI)(AX*8), Y8
	VMOVUPD     32(SI)(AX*8), Y9
	VMOVUPD     64(SI)(AX*8), Y10
	VMOVUPD     96(SI)(AX*8), Y11
	VFMADD231PD (DI)(AX*8), Y8, Y0
	VFMADD231PD 32(DI)(AX*8), Y9, Y1
	VFMADD231PD 64(DI)(AX*8), Y10, Y2
	VFMADD231PD 96(DI)(AX*8), Y11, Y3
	ADDQ        $16, AX

dot_fold:
	// Fold the four partial sums into Y0.
	VADDPD Y1, Y0, Y0
	VADDPD Y3, Y2, Y2
	VADDPD Y2, Y0, Y0
	MOVQ   DX, CX
	ANDQ   $-4, CX
	CMPQ   AX, CX
	JAE    dot_hsum

dot_loop4:
	VMOVUPD     (SI)(AX*8), Y8
	VFMADD231PD (DI)(AX*8), Y8, Y0
	ADDQ        $4, AX
	CMPQ        AX, CX
	JB          dot_loop4

dot_hsum:
	// Horizontal sum of the four lanes of Y0 into X0's low lane.
	VEXTRACTF128 $1, Y0, X1
	VADDPD       X1, X0, X0
	VUNPCKHPD    X0, X0, X1
	VADDSD       X1, X0, X0
	CMPQ         AX, DX
	JAE          dot_done

dot_tail:
	VMOVSD      (SI)(AX*8), X8
	VFMADD231SD (DI)(AX*8), X8, X0
	INCQ        AX
	CMPQ        AX, DX
	JB          dot_tail

dot_done:
	VZEROUPPER
	VMOVSD X0, ret+56(FP)
	RET

// func sumSquaresAVX2(x []float64, _ level) float64
//
// sum x[i]^2, Nrm2's fast path: Dot(x, x) with one load per FMA instead of
// two, so the FMAs (two per cycle) are the limit rather than the loads:
// twice Dot's rate on data in L1. Eight independent sums are exactly
// enough for two FMAs per cycle at 4 cycles of latency. Structure and
// registers as dotAVX2, without y.
TEXT ·sumSquaresAVX2(SB), NOSPLIT, $0-40
	MOVQ   x_base+0(FP), SI
	MOVQ   x_len+8(FP), DX
	XORQ   AX, AX
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	MOVQ   DX, CX
	ANDQ   $-32, CX
	JZ     ss_rem16

	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7

ss_loop32:
	VMOVUPD     (SI)(AX*8), Y8
	VMOVUPD     32(SI)(AX*8), Y9
	VMOVUPD     64(SI)(AX*8), Y10
	VMOVUPD     96(SI)(AX*8), Y11
	VMOVUPD     128(SI)(AX*8), Y12
	VMOVUPD     160(SI)(AX*8), Y13
	VMOVUPD     192(SI)(AX*8), Y14
	VMOVUPD     224(SI)(AX*8), Y15
	VFMADD231PD Y8, Y8, Y0             // Y0 += x[i:i+4]^2
	VFMADD231PD Y9, Y9, Y1
	VFMADD231PD Y10, Y10, Y2
	VFMADD231PD Y11, Y11, Y3
	VFMADD231PD Y12, Y12, Y4
	VFMADD231PD Y13, Y13, Y5
	VFMADD231PD Y14, Y14, Y6
	VFMADD231PD Y15, Y15, Y7
	ADDQ        $32, AX
	CMPQ        AX, CX
	JB          ss_loop32

	VADDPD Y4, Y0, Y0
	VADDPD Y5, Y1, Y1
	VADDPD Y6, Y2, Y2
	VADDPD Y7, Y3, Y3

ss_rem16:
	MOVQ DX, CX
	SUBQ AX, CX
	CMPQ CX, $16
	JB   ss_fold
	VMOVUPD     (SI)(AX*8), Y8
	VMOVUPD     32(SI)(AX*8), Y9
	VMOVUPD     64(SI)(AX*8), Y10
	VMOVUPD     96(SI)(AX*8), Y11
	VFMADD231PD Y8, Y8, Y0
	VFMADD231PD Y9, Y9, Y1
	VFMADD231PD Y10, Y10, Y2
	VFMADD231PD Y11, Y11, Y3
	ADDQ        $16, AX

ss_fold:
	VADDPD Y1, Y0, Y0
	VADDPD Y3, Y2, Y2
	VADDPD Y2, Y0, Y0
	MOVQ   DX, CX
	ANDQ   $-4, CX
	CMPQ   AX, CX
	JAE    ss_hsum

ss_loop4:
	VMOVUPD     (SI)(AX*8), Y8
	VFMADD231PD Y8, Y8, Y0
	ADDQ        $4, AX
	CMPQ        AX, CX
	JB          ss_loop4

ss_hsum:
	VEXTRACTF128 $1, Y0, X1
	VADDPD       X1, X0, X0
	VUNPCKHPD    X0, X0, X1
	VADDSD       X1, X0, X0
	CMPQ         AX, DX
	JAE          ss_done

ss_tail:
	VMOVSD      (SI)(AX*8), X8
	VFMADD231SD X8, X8, X0
	INCQ        AX
	CMPQ        AX, DX
	JB          ss_tail

ss_done:
	VZEROUPPER
	VMOVSD X0, ret+32(FP)
	RET

// func axpyToAVX2(dst []float64, alpha float64, x, y []float64, _ level)
//
// dst[i] = alpha*x[i] + y[i] with one rounding (VFMADD213PD).
// Registers: DX = &dst[0], SI = &x[0], DI = &y[0], AX = i, BX = len(dst),
// CX = end of the current loop, Y0 = alpha in every lane, Y1..Y8 = x, then
// the results. Each 4-element chunk is loaded, combined and stored before
// the next (measured 1.15x faster at n = 1024 on Zen 5 than loading the
// whole iteration first). Every element is still loaded before it is
// stored, so dst may be y (or x) itself; partial overlap is not supported.
TEXT ·axpyToAVX2(SB), NOSPLIT, $0-81
	MOVQ         dst_base+0(FP), DX
	MOVQ         dst_len+8(FP), BX
	VBROADCASTSD alpha+24(FP), Y0
	MOVQ         x_base+32(FP), SI
	MOVQ         y_base+56(FP), DI
	XORQ         AX, AX
	MOVQ         BX, CX
	ANDQ         $-32, CX
	JZ           axpy_rem4

axpy_loop32:
	VMOVUPD     0(SI)(AX*8), Y1
	VFMADD213PD 0(DI)(AX*8), Y0, Y1     // Y = alpha*x + y
	VMOVUPD     Y1, 0(DX)(AX*8)
	VMOVUPD     32(SI)(AX*8), Y2
	VFMADD213PD 32(DI)(AX*8), Y0, Y2
	VMOVUPD     Y2, 32(DX)(AX*8)
	VMOVUPD     64(SI)(AX*8), Y3
	VFMADD213PD 64(DI)(AX*8), Y0, Y3
	VMOVUPD     Y3, 64(DX)(AX*8)
	VMOVUPD     96(SI)(AX*8), Y4
	VFMADD213PD 96(DI)(AX*8), Y0, Y4
	VMOVUPD     Y4, 96(DX)(AX*8)
	VMOVUPD     128(SI)(AX*8), Y5
	VFMADD213PD 128(DI)(AX*8), Y0, Y5
	VMOVUPD     Y5, 128(DX)(AX*8)
	VMOVUPD     160(SI)(AX*8), Y6
	VFMADD213PD 160(DI)(AX*8), Y0, Y6
	VMOVUPD     Y6, 160(DX)(AX*8)
	VMOVUPD     192(SI)(AX*8), Y7
	VFMADD213PD 192(DI)(AX*8), Y0, Y7
	VMOVUPD     Y7, 192(DX)(AX*8)
	VMOVUPD     224(SI)(AX*8), Y8
	VFMADD213PD 224(DI)(AX*8), Y0, Y8
	VMOVUPD     Y8, 224(DX)(AX*8)
	ADDQ        $32, AX
	CMPQ        AX, CX
	JB          axpy_loop32

axpy_rem4:
	MOVQ BX, CX
	ANDQ $-4, CX
	CMPQ AX, CX
	JAE  axpy_tail

axpy_loop4:
	VMOVUPD     (SI)(AX*8), Y1
	VFMADD213PD (DI)(AX*8), Y0, Y1
	VMOVUPD     Y1, (DX)(AX*8)
	ADDQ        $4, AX
	CMPQ        AX, CX
	JB          axpy_loop4

axpy_tail:
	CMPQ AX, BX
	JAE  axpy_done

axpy_tail1:
	VMOVSD      (SI)(AX*8), X1
	VFMADD213SD (DI)(AX*8), X0, X1
	VMOVSD      X1, (DX)(AX*8)
	INCQ        AX
	CMPQ        AX, BX
	JB          axpy_tail1

axpy_done:
	VZEROUPPER
	RET

// func softThresholdAVX2(dst, x []float64, t float64, _ level)
//
// dst[i] = x[i] - c, c = min(max(x[i], -t), t): branch-free soft
// thresholding. VMAXPD/VMINPD return their second source operand (the first
// operand in Go's order) when either input is NaN, so x is that operand of
// VMAXPD and c that of VMINPD: c stays NaN for NaN x. (x - c would be NaN
// anyway, because x is; the order makes the clamp itself NaN-safe.)
// For |x| <= t, c == x and x - c is +0 exactly, as in the generic code.
// The subtraction is done as VFNMADD231PD, x - c*1: the product is exact,
// so the result is bit for bit that of VSUBPD, but it runs on the FMA
// pipes, leaving the add pipes to VMAXPD/VMINPD (1.4x faster measured).
// Registers: DI = &dst[i], SI = &x[i], CX = elements left, Y0 = t,
// Y1 = -t, Y10 = 1, Y2..Y5 = x, then the results, Y6..Y9 = c.
TEXT ·softThresholdAVX2(SB), NOSPLIT, $0-57
	MOVQ         dst_base+0(FP), DI
	MOVQ         dst_len+8(FP), CX
	MOVQ         x_base+24(FP), SI
	VBROADCASTSD t+48(FP), Y0
	VXORPD       Y1, Y1, Y1
	VSUBPD       Y0, Y1, Y1              // Y1 = 0 - t
	MOVQ         $0x3ff0000000000000, AX // 1.0
	VMOVQ        AX, X10                // VEX: no SSE/AVX transition with Y0, Y1 live
	VBROADCASTSD X10, Y10
	CMPQ         CX, $16
	JB           soft_rem4

soft_loop16:
	VMOVUPD      0(SI), Y2
	VMOVUPD      32(SI), Y3
	VMOVUPD      64(SI), Y4
	VMOVUPD      96(SI), Y5
	VMAXPD       Y2, Y1, Y6              // c = max(-t, x), x if NaN
	VMAXPD       Y3, Y1, Y7
	VMAXPD       Y4, Y1, Y8
	VMAXPD       Y5, Y1, Y9
	VMINPD       Y6, Y0, Y6              // c = min(t, c), c if NaN
	VMINPD       Y7, Y0, Y7
	VMINPD       Y8, Y0, Y8
	VMINPD       Y9, Y0, Y9
	VFNMADD231PD Y10, Y6, Y2             // x = x - c*1
	VFNMADD231PD Y10, Y7, Y3
	VFNMADD231PD Y10, Y8, Y4
	VFNMADD231PD Y10, Y9, Y5
	VMOVUPD      Y2, 0(DI)
	VMOVUPD      Y3, 32(DI)
	VMOVUPD      Y4, 64(DI)
	VMOVUPD      Y5, 96(DI)
	ADDQ         $128, SI
	ADDQ         $128, DI
	SUBQ         $16, CX
	CMPQ         CX, $16
	JAE          soft_loop16

soft_rem4:
	CMPQ CX, $4
	JB   soft_tail

soft_loop4:
	VMOVUPD      (SI), Y2
	VMAXPD       Y2, Y1, Y6
	VMINPD       Y6, Y0, Y6
	VFNMADD231PD Y10, Y6, Y2
	VMOVUPD      Y2, (DI)
	ADDQ         $32, SI
	ADDQ         $32, DI
	SUBQ         $4, CX
	CMPQ         CX, $4
	JAE          soft_loop4

soft_tail:
	TESTQ CX, CX
	JZ    soft_done

soft_tail1:
	VMOVSD       (SI), X2
	VMAXSD       X2, X1, X6
	VMINSD       X6, X0, X6
	VFNMADD231SD X10, X6, X2
	VMOVSD       X2, (DI)
	ADDQ         $8, SI
	ADDQ         $8, DI
	DECQ         CX
	JNZ          soft_tail1

soft_done:
	VZEROUPPER
	RET

// func mulVec4AVX2(dst, a []float64, cols int, x []float64, _ level)
//
// dst[r] = sum_j a[r*cols+j]*x[j] for r < len(dst), a multiple of 4, and
// j < cols = len(x) > 0: four rows at a time, so each load of x serves
// four FMAs (1.25 loads per FMA instead of Dot's 2) and there is one call
// for the whole matrix instead of one per row.
// Registers: DX = &dst[r], R8..R11 = &a[r*cols] .. &a[(r+3)*cols],
// R12 = 4 rows in bytes, SI = &x[0], AX = j, BX = cols, CX = end of the
// current column loop, DI = row groups left, Y0..Y3 and Y4..Y7 = two
// partial sums per row, Y8, Y9 = x, Y10 = a gathered column.
TEXT ·mulVec4AVX2(SB), NOSPLIT, $0-81
	MOVQ dst_base+0(FP), DX
	MOVQ dst_len+8(FP), DI
	MOVQ a_base+24(FP), R8
	MOVQ cols+48(FP), BX
	MOVQ x_base+56(FP), SI
	SHRQ $2, DI
	JZ   mv_done
	LEAQ (R8)(BX*8), R9
	LEAQ (R9)(BX*8), R10
	LEAQ (R10)(BX*8), R11
	MOVQ BX, R12
	SHLQ $5, R12         // 4 rows * 8 bytes * cols

mv_rows:
	XORQ   AX, AX
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	MOVQ   BX, CX
	ANDQ   $-8, CX
	JZ     mv_rem4
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7

mv_loop8:
	VMOVUPD     (SI)(AX*8), Y8
	VMOVUPD     32(SI)(AX*8), Y9
	VFMADD231PD (R8)(AX*8), Y8, Y0    // row 0 += a[0][j:j+4] * x[j:j+4]
	VFMADD231PD (R9)(AX*8), Y8, Y1
	VFMADD231PD (R10)(AX*8), Y8, Y2
	VFMADD231PD (R11)(AX*8), Y8, Y3
	VFMADD231PD 32(R8)(AX*8), Y9, Y4  // second sums, columns j+4..j+8
	VFMADD231PD 32(R9)(AX*8), Y9, Y5
	VFMADD231PD 32(R10)(AX*8), Y9, Y6
	VFMADD231PD 32(R11)(AX*8), Y9, Y7
	ADDQ        $8, AX
	CMPQ        AX, CX
	JB          mv_loop8
	VADDPD      Y4, Y0, Y0
	VADDPD      Y5, Y1, Y1
	VADDPD      Y6, Y2, Y2
	VADDPD      Y7, Y3, Y3

mv_rem4:
	MOVQ BX, CX
	ANDQ $-4, CX
	CMPQ AX, CX
	JAE  mv_hsum
	VMOVUPD     (SI)(AX*8), Y8
	VFMADD231PD (R8)(AX*8), Y8, Y0
	VFMADD231PD (R9)(AX*8), Y8, Y1
	VFMADD231PD (R10)(AX*8), Y8, Y2
	VFMADD231PD (R11)(AX*8), Y8, Y3
	ADDQ        $4, AX

mv_hsum:
	// Y0 = [r0 r0 r0 r0] ... Y3 = [r3 r3 r3 r3] partial sums to
	// Y0 = [r0 r1 r2 r3].
	VHADDPD    Y1, Y0, Y0     // [r0 r1 r0 r1]
	VHADDPD    Y3, Y2, Y2     // [r2 r3 r2 r3]
	VPERM2F128 $0x21, Y2, Y0, Y1 // high half of Y0, low half of Y2
	VBLENDPD   $12, Y2, Y0, Y0   // low half of Y0, high half of Y2
	VADDPD     Y1, Y0, Y0
	CMPQ       AX, BX
	JAE        mv_store

mv_tail:
	// One column of the four rows, gathered, times x[j] in every lane.
	VBROADCASTSD (SI)(AX*8), Y8
	VMOVSD       (R8)(AX*8), X10
	VMOVHPD      (R9)(AX*8), X10, X10
	VMOVSD       (R10)(AX*8), X9
	VMOVHPD      (R11)(AX*8), X9, X9
	VINSERTF128  $1, X9, Y10, Y10
	VFMADD231PD  Y10, Y8, Y0
	INCQ         AX
	CMPQ         AX, BX
	JB           mv_tail

mv_store:
	VMOVUPD Y0, (DX)
	ADDQ    $32, DX
	ADDQ    R12, R8
	ADDQ    R12, R9
	ADDQ    R12, R10
	ADDQ    R12, R11
	DECQ    DI
	JNZ     mv_rows

mv_done:
	VZEROUPPER
	RET

// func mulTransVec4AVX2(dst, a []float64, cols int, x []float64, _ level)
//
// dst[j] += sum_i x[i]*a[i*cols+j] for j < cols = len(dst) > 0 and i <
// len(x), a multiple of 4: four rows per pass over dst, so dst is loaded
// and stored once per four FMAs instead of once per FMA. The four products
// are added in row order, as four Axpy calls would.
// Each chunk of 4 columns of dst is a chain of four dependent FMAs (16
// cycles), and each chunk costs five loads (dst and four rows): at two
// loads per cycle 2.5 cycles, so 16/2.5 = 6.4 chunks must be in flight to
// keep the loads busy. The main loop has eight (32 columns), so it runs at
// the load limit by itself. (On Zen 5 the two-chunk loop it replaced ran
// as fast: the out-of-order window overlapped its iterations. Cores with
// smaller windows need the chains in the code.) The remainder runs 8, then
// 4 columns at a time, then one.
// Registers: DX = &dst[0], R8..R11 = &a[i*cols] .. &a[(i+3)*cols],
// R12 = 4 rows in bytes, SI = &x[i], AX = j, BX = cols, CX = end of the
// current loop, DI = row groups left, Y0..Y3 = x[i..i+3] in every lane,
// Y4..Y11 = eight chunks of dst.
TEXT ·mulTransVec4AVX2(SB), NOSPLIT, $0-81
	MOVQ dst_base+0(FP), DX
	MOVQ dst_len+8(FP), BX
	MOVQ a_base+24(FP), R8
	MOVQ x_base+56(FP), SI
	MOVQ x_len+64(FP), DI
	SHRQ $2, DI
	JZ   mtv_done
	LEAQ (R8)(BX*8), R9
	LEAQ (R9)(BX*8), R10
	LEAQ (R10)(BX*8), R11
	MOVQ BX, R12
	SHLQ $5, R12

mtv_rows:
	VBROADCASTSD (SI), Y0
	VBROADCASTSD 8(SI), Y1
	VBROADCASTSD 16(SI), Y2
	VBROADCASTSD 24(SI), Y3
	XORQ         AX, AX
	MOVQ         BX, CX
	ANDQ         $-32, CX
	JZ           mtv_rem8

mtv_loop32:
	VMOVUPD     (DX)(AX*8), Y4
	VMOVUPD     32(DX)(AX*8), Y5
	VMOVUPD     64(DX)(AX*8), Y6
	VMOVUPD     96(DX)(AX*8), Y7
	VMOVUPD     128(DX)(AX*8), Y8
	VMOVUPD     160(DX)(AX*8), Y9
	VMOVUPD     192(DX)(AX*8), Y10
	VMOVUPD     224(DX)(AX*8), Y11
	VFMADD231PD (R8)(AX*8), Y0, Y4     // dst[j:j+4] += x[i]*a[i][j:j+4]
	VFMADD231PD 32(R8)(AX*8), Y0, Y5
	VFMADD231PD 64(R8)(AX*8), Y0, Y6
	VFMADD231PD 96(R8)(AX*8), Y0, Y7
	VFMADD231PD 128(R8)(AX*8), Y0, Y8
	VFMADD231PD 160(R8)(AX*8), Y0, Y9
	VFMADD231PD 192(R8)(AX*8), Y0, Y10
	VFMADD231PD 224(R8)(AX*8), Y0, Y11
	VFMADD231PD (R9)(AX*8), Y1, Y4
	VFMADD231PD 32(R9)(AX*8), Y1, Y5
	VFMADD231PD 64(R9)(AX*8), Y1, Y6
	VFMADD231PD 96(R9)(AX*8), Y1, Y7
	VFMADD231PD 128(R9)(AX*8), Y1, Y8
	VFMADD231PD 160(R9)(AX*8), Y1, Y9
	VFMADD231PD 192(R9)(AX*8), Y1, Y10
	VFMADD231PD 224(R9)(AX*8), Y1, Y11
	VFMADD231PD (R10)(AX*8), Y2, Y4
	VFMADD231PD 32(R10)(AX*8), Y2, Y5
	VFMADD231PD 64(R10)(AX*8), Y2, Y6
	VFMADD231PD 96(R10)(AX*8), Y2, Y7
	VFMADD231PD 128(R10)(AX*8), Y2, Y8
	VFMADD231PD 160(R10)(AX*8), Y2, Y9
	VFMADD231PD 192(R10)(AX*8), Y2, Y10
	VFMADD231PD 224(R10)(AX*8), Y2, Y11
	VFMADD231PD (R11)(AX*8), Y3, Y4
	VFMADD231PD 32(R11)(AX*8), Y3, Y5
	VFMADD231PD 64(R11)(AX*8), Y3, Y6
	VFMADD231PD 96(R11)(AX*8), Y3, Y7
	VFMADD231PD 128(R11)(AX*8), Y3, Y8
	VFMADD231PD 160(R11)(AX*8), Y3, Y9
	VFMADD231PD 192(R11)(AX*8), Y3, Y10
	VFMADD231PD 224(R11)(AX*8), Y3, Y11
	VMOVUPD     Y4, (DX)(AX*8)
	VMOVUPD     Y5, 32(DX)(AX*8)
	VMOVUPD     Y6, 64(DX)(AX*8)
	VMOVUPD     Y7, 96(DX)(AX*8)
	VMOVUPD     Y8, 128(DX)(AX*8)
	VMOVUPD     Y9, 160(DX)(AX*8)
	VMOVUPD     Y10, 192(DX)(AX*8)
	VMOVUPD     Y11, 224(DX)(AX*8)
	ADDQ        $32, AX
	CMPQ        AX, CX
	JB          mtv_loop32

mtv_rem8:
	MOVQ BX, CX
	ANDQ $-8, CX
	CMPQ AX, CX
	JAE  mtv_rem4

mtv_loop8:
	VMOVUPD     (DX)(AX*8), Y4
	VMOVUPD     32(DX)(AX*8), Y5
	VFMADD231PD (R8)(AX*8), Y0, Y4
	VFMADD231PD 32(R8)(AX*8), Y0, Y5
	VFMADD231PD (R9)(AX*8), Y1, Y4
	VFMADD231PD 32(R9)(AX*8), Y1, Y5
	VFMADD231PD (R10)(AX*8), Y2, Y4
	VFMADD231PD 32(R10)(AX*8), Y2, Y5
	VFMADD231PD (R11)(AX*8), Y3, Y4
	VFMADD231PD 32(R11)(AX*8), Y3, Y5
	VMOVUPD     Y4, (DX)(AX*8)
	VMOVUPD     Y5, 32(DX)(AX*8)
	ADDQ        $8, AX
	CMPQ        AX, CX
	JB          mtv_loop8

mtv_rem4:
	MOVQ BX, CX
	ANDQ $-4, CX
	CMPQ AX, CX
	JAE  mtv_tail
	VMOVUPD     (DX)(AX*8), Y4
	VFMADD231PD (R8)(AX*8), Y0, Y4
	VFMADD231PD (R9)(AX*8), Y1, Y4
	VFMADD231PD (R10)(AX*8), Y2, Y4
	VFMADD231PD (R11)(AX*8), Y3, Y4
	VMOVUPD     Y4, (DX)(AX*8)
	ADDQ        $4, AX

mtv_tail:
	CMPQ AX, BX
	JAE  mtv_next

mtv_tail1:
	VMOVSD      (DX)(AX*8), X4
	VFMADD231SD (R8)(AX*8), X0, X4
	VFMADD231SD (R9)(AX*8), X1, X4
	VFMADD231SD (R10)(AX*8), X2, X4
	VFMADD231SD (R11)(AX*8), X3, X4
	VMOVSD      X4, (DX)(AX*8)
	INCQ        AX
	CMPQ        AX, BX
	JB          mtv_tail1

mtv_next:
	ADDQ $32, SI
	ADDQ R12, R8
	ADDQ R12, R9
	ADDQ R12, R10
	ADDQ R12, R11
	DECQ DI
	JNZ  mtv_rows

mtv_done:
	VZEROUPPER
	RET
