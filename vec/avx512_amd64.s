//go:build gc && !purego

#include "textflag.h"

// AVX-512F kernels (8 float64 lanes per Z register). Each routine:
//   main loop      32 or 64 elements per iteration over independent
//                  registers,
//   remainder      whole 8-lane blocks,
//   masked tail    the last 1..7 elements with an opmask (K1): masked-off
//                  lanes are neither loaded (no fault, no read of the
//                  memory past the slice) nor stored,
// so no load or store ever touches memory outside the slices, and there is
// no scalar loop. Loads are unaligned (VMOVUPD): Go slices carry no
// alignment promise, and on aligned data they cost nothing extra.
// VZEROUPPER before every RET avoids the AVX-SSE transition penalty in the
// Go code that follows; only Z0..Z15 are used, the registers it clears.
//
// Throughput: on Zen 5 (and Zen 4, Sapphire Rapids) the core issues two
// vector loads per cycle whatever their width, so one Z load moves twice
// the bytes of one Y load, and a kernel bound by loads (Dot: two per FMA)
// runs up to twice as fast as its AVX2 form while its data are in L1.
// (Zen 4 splits each 512-bit FMA into two 256-bit halves, so compute-bound
// kernels gain less there.)

// TAILMASK sets K1 to the low n bits, n = reg & 7 (reg must be CX, the
// shift count; tmp is clobbered): the lanes of the last partial block. The
// flags are those of the DECL: ZF set when n = 0, no lane left.
#define TAILMASK(reg, tmp) \
	ANDQ  $7, reg;  \
	MOVL  $1, tmp;  \
	SHLL  reg, tmp; \
	DECL  tmp;      \
	KMOVW tmp, K1

// func dotAVX512(x, y []float64, _ level) float64
//
// Registers: SI = &x[0], DI = &y[0], AX = i, DX = len(x), CX = end of the
// main loop, then elements left; Z0..Z7 = eight partial sums (8 lanes
// each), Z8..Z15 = x. Two loads per FMA make the loads the limit (one Z
// FMA per cycle); eight independent sums cover the 4-cycle FMA latency
// twice over, so the loop runs at the load limit. After the main loop at
// most 63 elements are left: one block each of 32, 16 and 8 (as the bits of
// the count say) into separate sums, so short vectors get independent FMAs
// rather than a chain, then the masked tail.
TEXT ·dotAVX512(SB), NOSPLIT, $0-64
	MOVQ   x_base+0(FP), SI
	MOVQ   x_len+8(FP), DX
	MOVQ   y_base+24(FP), DI
	XORQ   AX, AX
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	VPXORQ Z3, Z3, Z3
	MOVQ   DX, CX
	ANDQ   $-64, CX
	JZ     dot_rem

	VPXORQ Z4, Z4, Z4
	VPXORQ Z5, Z5, Z5
	VPXORQ Z6, Z6, Z6
	VPXORQ Z7, Z7, Z7

dot_loop64:
	VMOVUPD     (SI)(AX*8), Z8
	VMOVUPD     64(SI)(AX*8), Z9
	VMOVUPD     128(SI)(AX*8), Z10
	VMOVUPD     192(SI)(AX*8), Z11
	VFMADD231PD (DI)(AX*8), Z8, Z0     // Z0 += x[i:i+8] * y[i:i+8]
	VFMADD231PD 64(DI)(AX*8), Z9, Z1
	VFMADD231PD 128(DI)(AX*8), Z10, Z2
	VFMADD231PD 192(DI)(AX*8), Z11, Z3
	VMOVUPD     256(SI)(AX*8), Z12
	VMOVUPD     320(SI)(AX*8), Z13
	VMOVUPD     384(SI)(AX*8), Z14
	VMOVUPD     448(SI)(AX*8), Z15
	VFMADD231PD 256(DI)(AX*8), Z12, Z4
	VFMADD231PD 320(DI)(AX*8), Z13, Z5
	VFMADD231PD 384(DI)(AX*8), Z14, Z6
	VFMADD231PD 448(DI)(AX*8), Z15, Z7
	ADDQ        $64, AX
	CMPQ        AX, CX
	JB          dot_loop64

	VADDPD Z4, Z0, Z0
	VADDPD Z5, Z1, Z1
	VADDPD Z6, Z2, Z2
	VADDPD Z7, Z3, Z3

dot_rem:
	MOVQ  DX, CX
	SUBQ  AX, CX // 0..63 left
	TESTQ $32, CX
	JZ    dot_rem16
	VMOVUPD     (SI)(AX*8), Z8
	VMOVUPD     64(SI)(AX*8), Z9
	VMOVUPD     128(SI)(AX*8), Z10
	VMOVUPD     192(SI)(AX*8), Z11
	VFMADD231PD (DI)(AX*8), Z8, Z0
	VFMADD231PD 64(DI)(AX*8), Z9, Z1
	VFMADD231PD 128(DI)(AX*8), Z10, Z2
	VFMADD231PD 192(DI)(AX*8), Z11, Z3
	ADDQ        $32, AX

dot_rem16:
	TESTQ $16, CX
	JZ    dot_rem8
	VMOVUPD     (SI)(AX*8), Z8
	VMOVUPD     64(SI)(AX*8), Z9
	VFMADD231PD (DI)(AX*8), Z8, Z0
	VFMADD231PD 64(DI)(AX*8), Z9, Z1
	ADDQ        $16, AX

dot_rem8:
	TESTQ $8, CX
	JZ    dot_tail
	VMOVUPD     (SI)(AX*8), Z8
	VFMADD231PD (DI)(AX*8), Z8, Z2
	ADDQ        $8, AX

dot_tail:
	TAILMASK(CX, BX)
	JZ dot_fold                        // flags of DECL: no lane left
	VMOVUPD.Z   (SI)(AX*8), K1, Z8     // masked-off lanes read as 0
	VMOVUPD.Z   (DI)(AX*8), K1, Z9
	VFMADD231PD Z9, Z8, Z3

dot_fold:
	// Fold the four sums into Z0, then its eight lanes into X0's low lane.
	VADDPD        Z1, Z0, Z0
	VADDPD        Z3, Z2, Z2
	VADDPD        Z2, Z0, Z0
	VEXTRACTF64X4 $1, Z0, Y1
	VADDPD        Y1, Y0, Y0
	VEXTRACTF128  $1, Y0, X1
	VADDPD        X1, X0, X0
	VUNPCKHPD     X0, X0, X1
	VADDSD        X1, X0, X0
	VZEROUPPER
	VMOVSD        X0, ret+56(FP)
	RET

// func sumSquaresAVX512(x []float64, _ level) float64
//
// sum x[i]^2, Nrm2's fast path: Dot(x, x) with one load per FMA instead of
// two, so the FMAs (two per cycle) are the limit, twice Dot's rate on data
// in L1. Eight independent sums are exactly enough for two FMAs per cycle
// at 4 cycles of latency. Structure and registers as dotAVX512, without y.
TEXT ·sumSquaresAVX512(SB), NOSPLIT, $0-40
	MOVQ   x_base+0(FP), SI
	MOVQ   x_len+8(FP), DX
	XORQ   AX, AX
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	VPXORQ Z3, Z3, Z3
	MOVQ   DX, CX
	ANDQ   $-64, CX
	JZ     ss_rem

	VPXORQ Z4, Z4, Z4
	VPXORQ Z5, Z5, Z5
	VPXORQ Z6, Z6, Z6
	VPXORQ Z7, Z7, Z7

ss_loop64:
	VMOVUPD     (SI)(AX*8), Z8
	VMOVUPD     64(SI)(AX*8), Z9
	VMOVUPD     128(SI)(AX*8), Z10
	VMOVUPD     192(SI)(AX*8), Z11
	VMOVUPD     256(SI)(AX*8), Z12
	VMOVUPD     320(SI)(AX*8), Z13
	VMOVUPD     384(SI)(AX*8), Z14
	VMOVUPD     448(SI)(AX*8), Z15
	VFMADD231PD Z8, Z8, Z0             // Z0 += x[i:i+8]^2
	VFMADD231PD Z9, Z9, Z1
	VFMADD231PD Z10, Z10, Z2
	VFMADD231PD Z11, Z11, Z3
	VFMADD231PD Z12, Z12, Z4
	VFMADD231PD Z13, Z13, Z5
	VFMADD231PD Z14, Z14, Z6
	VFMADD231PD Z15, Z15, Z7
	ADDQ        $64, AX
	CMPQ        AX, CX
	JB          ss_loop64

	VADDPD Z4, Z0, Z0
	VADDPD Z5, Z1, Z1
	VADDPD Z6, Z2, Z2
	VADDPD Z7, Z3, Z3

ss_rem:
	MOVQ  DX, CX
	SUBQ  AX, CX // 0..63 left
	TESTQ $32, CX
	JZ    ss_rem16
	VMOVUPD     (SI)(AX*8), Z8
	VMOVUPD     64(SI)(AX*8), Z9
	VMOVUPD     128(SI)(AX*8), Z10
	VMOVUPD     192(SI)(AX*8), Z11
	VFMADD231PD Z8, Z8, Z0
	VFMADD231PD Z9, Z9, Z1
	VFMADD231PD Z10, Z10, Z2
	VFMADD231PD Z11, Z11, Z3
	ADDQ        $32, AX

ss_rem16:
	TESTQ $16, CX
	JZ    ss_rem8
	VMOVUPD     (SI)(AX*8), Z8
	VMOVUPD     64(SI)(AX*8), Z9
	VFMADD231PD Z8, Z8, Z0
	VFMADD231PD Z9, Z9, Z1
	ADDQ        $16, AX

ss_rem8:
	TESTQ $8, CX
	JZ    ss_tail
	VMOVUPD     (SI)(AX*8), Z8
	VFMADD231PD Z8, Z8, Z2
	ADDQ        $8, AX

ss_tail:
	TAILMASK(CX, BX)
	JZ ss_fold
	VMOVUPD.Z   (SI)(AX*8), K1, Z8
	VFMADD231PD Z8, Z8, Z3

ss_fold:
	VADDPD        Z1, Z0, Z0
	VADDPD        Z3, Z2, Z2
	VADDPD        Z2, Z0, Z0
	VEXTRACTF64X4 $1, Z0, Y1
	VADDPD        Y1, Y0, Y0
	VEXTRACTF128  $1, Y0, X1
	VADDPD        X1, X0, X0
	VUNPCKHPD     X0, X0, X1
	VADDSD        X1, X0, X0
	VZEROUPPER
	VMOVSD        X0, ret+32(FP)
	RET

// func axpyToAVX512(dst []float64, alpha float64, x, y []float64, _ level)
//
// dst[i] = alpha*x[i] + y[i] with one rounding (VFMADD213PD).
// Registers: DX = &dst[0], SI = &x[0], DI = &y[0], AX = i, R8 = len(dst),
// CX = end of the current loop, then elements left; Z0 = alpha in every
// lane, Z1..Z4 = x, then the results. Each 8-element chunk is loaded,
// combined and stored before the next, so dst may be y (or x) itself;
// partial overlap is not supported.
TEXT ·axpyToAVX512(SB), NOSPLIT, $0-81
	MOVQ         dst_base+0(FP), DX
	MOVQ         dst_len+8(FP), R8
	VBROADCASTSD alpha+24(FP), Z0
	MOVQ         x_base+32(FP), SI
	MOVQ         y_base+56(FP), DI
	XORQ         AX, AX
	MOVQ         R8, CX
	ANDQ         $-32, CX
	JZ           axpy_rem8

axpy_loop32:
	VMOVUPD     (SI)(AX*8), Z1
	VFMADD213PD (DI)(AX*8), Z0, Z1     // Z1 = alpha*x + y
	VMOVUPD     Z1, (DX)(AX*8)
	VMOVUPD     64(SI)(AX*8), Z2
	VFMADD213PD 64(DI)(AX*8), Z0, Z2
	VMOVUPD     Z2, 64(DX)(AX*8)
	VMOVUPD     128(SI)(AX*8), Z3
	VFMADD213PD 128(DI)(AX*8), Z0, Z3
	VMOVUPD     Z3, 128(DX)(AX*8)
	VMOVUPD     192(SI)(AX*8), Z4
	VFMADD213PD 192(DI)(AX*8), Z0, Z4
	VMOVUPD     Z4, 192(DX)(AX*8)
	ADDQ        $32, AX
	CMPQ        AX, CX
	JB          axpy_loop32

axpy_rem8:
	MOVQ R8, CX
	ANDQ $-8, CX
	CMPQ AX, CX
	JAE  axpy_tail

axpy_loop8:
	VMOVUPD     (SI)(AX*8), Z1
	VFMADD213PD (DI)(AX*8), Z0, Z1
	VMOVUPD     Z1, (DX)(AX*8)
	ADDQ        $8, AX
	CMPQ        AX, CX
	JB          axpy_loop8

axpy_tail:
	MOVQ R8, CX
	TAILMASK(CX, BX)
	JZ   axpy_done
	VMOVUPD.Z   (SI)(AX*8), K1, Z1
	VMOVUPD.Z   (DI)(AX*8), K1, Z2
	VFMADD213PD Z2, Z0, Z1
	VMOVUPD     Z1, K1, (DX)(AX*8)     // only the tail's lanes are written

axpy_done:
	VZEROUPPER
	RET

// func softThresholdAVX512(dst, x []float64, t float64, _ level)
//
// dst[i] = x[i] - c, c = min(max(x[i], -t), t), as softThresholdAVX2 (see
// there for the operand order that keeps NaN and the x - c*1 form that
// puts the subtraction on the FMA pipes): the same bits on every path.
// Registers: DI = &dst[i], SI = &x[i], CX = elements left, Z0 = t,
// Z1 = -t, Z10 = 1, Z2..Z5 = x, then the results, Z6..Z9 = c.
TEXT ·softThresholdAVX512(SB), NOSPLIT, $0-57
	MOVQ         dst_base+0(FP), DI
	MOVQ         dst_len+8(FP), CX
	MOVQ         x_base+24(FP), SI
	VBROADCASTSD t+48(FP), Z0
	VPXORQ       Z1, Z1, Z1
	VSUBPD       Z0, Z1, Z1              // Z1 = 0 - t
	MOVQ         $0x3ff0000000000000, AX // 1.0
	VPBROADCASTQ AX, Z10
	CMPQ         CX, $32
	JB           soft_rem8

soft_loop32:
	VMOVUPD      0(SI), Z2
	VMOVUPD      64(SI), Z3
	VMOVUPD      128(SI), Z4
	VMOVUPD      192(SI), Z5
	VMAXPD       Z2, Z1, Z6              // c = max(-t, x), x if NaN
	VMAXPD       Z3, Z1, Z7
	VMAXPD       Z4, Z1, Z8
	VMAXPD       Z5, Z1, Z9
	VMINPD       Z6, Z0, Z6              // c = min(t, c), c if NaN
	VMINPD       Z7, Z0, Z7
	VMINPD       Z8, Z0, Z8
	VMINPD       Z9, Z0, Z9
	VFNMADD231PD Z10, Z6, Z2             // x = x - c*1
	VFNMADD231PD Z10, Z7, Z3
	VFNMADD231PD Z10, Z8, Z4
	VFNMADD231PD Z10, Z9, Z5
	VMOVUPD      Z2, 0(DI)
	VMOVUPD      Z3, 64(DI)
	VMOVUPD      Z4, 128(DI)
	VMOVUPD      Z5, 192(DI)
	ADDQ         $256, SI
	ADDQ         $256, DI
	SUBQ         $32, CX
	CMPQ         CX, $32
	JAE          soft_loop32

soft_rem8:
	CMPQ CX, $8
	JB   soft_tail

soft_loop8:
	VMOVUPD      (SI), Z2
	VMAXPD       Z2, Z1, Z6
	VMINPD       Z6, Z0, Z6
	VFNMADD231PD Z10, Z6, Z2
	VMOVUPD      Z2, (DI)
	ADDQ         $64, SI
	ADDQ         $64, DI
	SUBQ         $8, CX
	CMPQ         CX, $8
	JAE          soft_loop8

soft_tail:
	TAILMASK(CX, BX)
	JZ           soft_done
	VMOVUPD.Z    (SI), K1, Z2
	VMAXPD       Z2, Z1, Z6
	VMINPD       Z6, Z0, Z6
	VFNMADD231PD Z10, Z6, Z2
	VMOVUPD      Z2, K1, (DI)

soft_done:
	VZEROUPPER
	RET

// func mulVec4AVX512(dst, a []float64, cols int, x []float64, _ level)
//
// dst[r] = sum_j a[r*cols+j]*x[j] for r < len(dst), a multiple of 4, and
// j < cols = len(x) > 0: four rows at a time, so each load of x serves
// four FMAs (1.25 loads per FMA instead of Dot's 2).
// Registers: DX = &dst[r], R8..R11 = &a[r*cols] .. &a[(r+3)*cols],
// R12 = 4 rows in bytes, SI = &x[0], AX = j, BX = cols, R13 = end of the
// 16-column loop, CX = end of the 8-column block, DI = row groups left,
// K1 = the lanes of the last cols%8 columns, Z0..Z3 and Z4..Z7 = two
// partial sums per row (eight chains: 1.6 FMAs per cycle at the load
// limit times 4 cycles of latency needs 6.4), Z8, Z9 = x.
TEXT ·mulVec4AVX512(SB), NOSPLIT, $0-81
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
	MOVQ BX, R13
	ANDQ $-16, R13
	MOVQ BX, CX
	TAILMASK(CX, AX)

mv_rows:
	XORQ   AX, AX
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	VPXORQ Z3, Z3, Z3
	TESTQ  R13, R13
	JZ     mv_rem8
	VPXORQ Z4, Z4, Z4
	VPXORQ Z5, Z5, Z5
	VPXORQ Z6, Z6, Z6
	VPXORQ Z7, Z7, Z7

mv_loop16:
	VMOVUPD     (SI)(AX*8), Z8
	VMOVUPD     64(SI)(AX*8), Z9
	VFMADD231PD (R8)(AX*8), Z8, Z0    // row 0 += a[0][j:j+8] * x[j:j+8]
	VFMADD231PD (R9)(AX*8), Z8, Z1
	VFMADD231PD (R10)(AX*8), Z8, Z2
	VFMADD231PD (R11)(AX*8), Z8, Z3
	VFMADD231PD 64(R8)(AX*8), Z9, Z4  // second sums, columns j+8..j+16
	VFMADD231PD 64(R9)(AX*8), Z9, Z5
	VFMADD231PD 64(R10)(AX*8), Z9, Z6
	VFMADD231PD 64(R11)(AX*8), Z9, Z7
	ADDQ        $16, AX
	CMPQ        AX, R13
	JB          mv_loop16
	VADDPD      Z4, Z0, Z0
	VADDPD      Z5, Z1, Z1
	VADDPD      Z6, Z2, Z2
	VADDPD      Z7, Z3, Z3

mv_rem8:
	MOVQ BX, CX
	ANDQ $-8, CX
	CMPQ AX, CX
	JAE  mv_tail
	VMOVUPD     (SI)(AX*8), Z8
	VFMADD231PD (R8)(AX*8), Z8, Z0
	VFMADD231PD (R9)(AX*8), Z8, Z1
	VFMADD231PD (R10)(AX*8), Z8, Z2
	VFMADD231PD (R11)(AX*8), Z8, Z3
	ADDQ        $8, AX

mv_tail:
	CMPQ AX, BX
	JAE  mv_hsum
	// The last cols%8 columns: merge-masked FMAs leave the other lanes of
	// the sums as they are and do not load them.
	VMOVUPD.Z   (SI)(AX*8), K1, Z8
	VFMADD231PD (R8)(AX*8), Z8, K1, Z0
	VFMADD231PD (R9)(AX*8), Z8, K1, Z1
	VFMADD231PD (R10)(AX*8), Z8, K1, Z2
	VFMADD231PD (R11)(AX*8), Z8, K1, Z3

mv_hsum:
	// Z0 .. Z3 = eight lanes of row 0 .. 3 to Y0 = [r0 r1 r2 r3]: halve
	// each into Y0 .. Y3, then as in mulVec4AVX2.
	VEXTRACTF64X4 $1, Z0, Y4
	VEXTRACTF64X4 $1, Z1, Y5
	VEXTRACTF64X4 $1, Z2, Y6
	VEXTRACTF64X4 $1, Z3, Y7
	VADDPD        Y4, Y0, Y0
	VADDPD        Y5, Y1, Y1
	VADDPD        Y6, Y2, Y2
	VADDPD        Y7, Y3, Y3
	VHADDPD       Y1, Y0, Y0         // [r0 r1 r0 r1]
	VHADDPD       Y3, Y2, Y2         // [r2 r3 r2 r3]
	VPERM2F128    $0x21, Y2, Y0, Y1  // high half of Y0, low half of Y2
	VBLENDPD      $12, Y2, Y0, Y0    // low half of Y0, high half of Y2
	VADDPD        Y1, Y0, Y0
	VMOVUPD       Y0, (DX)
	ADDQ          $32, DX
	ADDQ          R12, R8
	ADDQ          R12, R9
	ADDQ          R12, R10
	ADDQ          R12, R11
	DECQ          DI
	JNZ           mv_rows

mv_done:
	VZEROUPPER
	RET

// func mulTransVec4AVX512(dst, a []float64, cols int, x []float64, _ level)
//
// dst[j] += sum_i x[i]*a[i*cols+j] for j < cols = len(dst) > 0 and i <
// len(x), a multiple of 4: four rows per pass over dst, added in row order
// with one rounding each, as four Axpy calls would (so the result is the
// same as mulTransVec4AVX2's, bit for bit).
// Registers: DX = &dst[0], R8..R11 = &a[i*cols] .. &a[(i+3)*cols],
// R12 = 4 rows in bytes, SI = &x[i], AX = j, BX = cols, R13 = end of the
// 32-column loop, CX = end of the 8-column loop, DI = row groups left,
// K1 = the lanes of the last cols%8 columns, Z0..Z3 = x[i..i+3] in every
// lane, Z4..Z7 = four independent chunks of dst. Per iteration 20 loads
// feed 16 FMAs, so the loads are the limit (10 cycles); keeping them busy
// takes 6.4 chains of four dependent FMAs (16 cycles) in flight, four from
// this iteration and the rest from the next, which the out-of-order window
// overlaps (measured: twice mulTransVec4AVX2's speed on data in L1, the
// ratio of their widths, so at the load limit).
TEXT ·mulTransVec4AVX512(SB), NOSPLIT, $0-81
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
	MOVQ BX, R13
	ANDQ $-32, R13
	MOVQ BX, CX
	TAILMASK(CX, AX)

mtv_rows:
	VBROADCASTSD (SI), Z0
	VBROADCASTSD 8(SI), Z1
	VBROADCASTSD 16(SI), Z2
	VBROADCASTSD 24(SI), Z3
	XORQ         AX, AX
	TESTQ        R13, R13
	JZ           mtv_rem8

mtv_loop32:
	VMOVUPD     (DX)(AX*8), Z4
	VMOVUPD     64(DX)(AX*8), Z5
	VMOVUPD     128(DX)(AX*8), Z6
	VMOVUPD     192(DX)(AX*8), Z7
	VFMADD231PD (R8)(AX*8), Z0, Z4      // dst[j:j+8] += x[i]*a[i][j:j+8]
	VFMADD231PD 64(R8)(AX*8), Z0, Z5
	VFMADD231PD 128(R8)(AX*8), Z0, Z6
	VFMADD231PD 192(R8)(AX*8), Z0, Z7
	VFMADD231PD (R9)(AX*8), Z1, Z4
	VFMADD231PD 64(R9)(AX*8), Z1, Z5
	VFMADD231PD 128(R9)(AX*8), Z1, Z6
	VFMADD231PD 192(R9)(AX*8), Z1, Z7
	VFMADD231PD (R10)(AX*8), Z2, Z4
	VFMADD231PD 64(R10)(AX*8), Z2, Z5
	VFMADD231PD 128(R10)(AX*8), Z2, Z6
	VFMADD231PD 192(R10)(AX*8), Z2, Z7
	VFMADD231PD (R11)(AX*8), Z3, Z4
	VFMADD231PD 64(R11)(AX*8), Z3, Z5
	VFMADD231PD 128(R11)(AX*8), Z3, Z6
	VFMADD231PD 192(R11)(AX*8), Z3, Z7
	VMOVUPD     Z4, (DX)(AX*8)
	VMOVUPD     Z5, 64(DX)(AX*8)
	VMOVUPD     Z6, 128(DX)(AX*8)
	VMOVUPD     Z7, 192(DX)(AX*8)
	ADDQ        $32, AX
	CMPQ        AX, R13
	JB          mtv_loop32

mtv_rem8:
	MOVQ BX, CX
	ANDQ $-8, CX
	CMPQ AX, CX
	JAE  mtv_tail

mtv_loop8:
	VMOVUPD     (DX)(AX*8), Z4
	VFMADD231PD (R8)(AX*8), Z0, Z4
	VFMADD231PD (R9)(AX*8), Z1, Z4
	VFMADD231PD (R10)(AX*8), Z2, Z4
	VFMADD231PD (R11)(AX*8), Z3, Z4
	VMOVUPD     Z4, (DX)(AX*8)
	ADDQ        $8, AX
	CMPQ        AX, CX
	JB          mtv_loop8

mtv_tail:
	CMPQ AX, BX
	JAE  mtv_next
	VMOVUPD.Z   (DX)(AX*8), K1, Z4
	VFMADD231PD (R8)(AX*8), Z0, K1, Z4
	VFMADD231PD (R9)(AX*8), Z1, K1, Z4
	VFMADD231PD (R10)(AX*8), Z2, K1, Z4
	VFMADD231PD (R11)(AX*8), Z3, K1, Z4
	VMOVUPD     Z4, K1, (DX)(AX*8)

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


// func sweep1AVX512(g, a []float64, cols int, w float64, ax *float64, x []float64)
//
// One step of GradSweep's row pipeline on the rows a[0:cols] (near) and
// a[cols:2*cols] (far):
//   g[j] += w*near[j]    (fused: as axpyToAVX512, and as each row of
//                         mulTransVec4AVX512)
//   *ax   = far . x      (the sums and reduction of one row of
//                         mulVec4AVX512, so the same bits)
// in one pass over the columns (cols > 0). The near row was read by the
// previous step and is still in L1 (the two rows, x and g take 32*cols
// bytes: 32 KB at 1000 columns, within Zen 5's 48 KB), the far one comes
// from L3 or memory, so the arithmetic on the first overlaps the loads of
// the second. The rows after the far one, when a holds them, are
// prefetched sweepPrefetch bytes ahead of the far row's loads: the
// hardware prefetchers alone leave the loop waiting for L3 (at 1000 x 1000
// on Zen 5 GradSweep went from about 1.25x to 1.4-1.5x the speed of MulVec
// plus MulTransVec; 1, 2 and 4 KB ahead measured alike, 8 KB worse at
// 2000 columns); no prefetch reaches past the end of a.
// The step is bound by its loads: per element x, g, the near and the far
// row (and a prefetch per line), about two cycles per 8 columns, which is
// why a wider step does not pay: two rows per step (x and g loaded half as
// often) measured slower, as the near rows then no longer fit in L1 and
// come back from L2 no faster than from L3.
// Registers: SI = &x[0], DX = &g[0], R8 = &near[0], R9 = &far[0],
// R10 = R9 + the prefetch distance, AX = j, BX = cols, CX = end of the
// current loop, DI = ax, K1 = the lanes of the last cols%8 columns;
// Z0, Z1 = the two partial sums of the far row (columns j..j+8 and
// j+8..j+16 of every 16, as mulVec4AVX512), Z8 = w in every lane,
// Z2..Z5 = x, Z12..Z15 = g. Per 32 columns 16 loads feed 8 FMAs.
#define sweepPrefetch 4096

TEXT ·sweep1AVX512(SB), NOSPLIT, $0-96
	MOVQ         g_base+0(FP), DX
	MOVQ         a_base+24(FP), R8
	MOVQ         a_len+32(FP), R10
	MOVQ         cols+48(FP), BX
	VBROADCASTSD w+56(FP), Z8
	MOVQ         ax+64(FP), DI
	MOVQ         x_base+72(FP), SI
	LEAQ         (R8)(BX*8), R9
	// Prefetch distance: sweepPrefetch bytes, or what a holds after the
	// far row if that is less (R10 = len(a) - 2*cols elements, in bytes).
	SUBQ         BX, R10
	SUBQ         BX, R10
	SHLQ         $3, R10
	MOVQ         $sweepPrefetch, AX
	CMPQ         R10, AX
	CMOVQGT      AX, R10
	ADDQ         R9, R10
	MOVQ         BX, CX
	TAILMASK(CX, AX)
	XORQ         AX, AX
	VPXORQ       Z0, Z0, Z0
	MOVQ         BX, CX
	ANDQ         $-16, CX
	JZ           s1_rem8
	VPXORQ       Z1, Z1, Z1
	ANDQ         $-32, CX
	JZ           s1_rem16

s1_loop32:
	PREFETCHT0  (R10)(AX*8)
	PREFETCHT0  64(R10)(AX*8)
	PREFETCHT0  128(R10)(AX*8)
	PREFETCHT0  192(R10)(AX*8)
	VMOVUPD     (SI)(AX*8), Z2
	VMOVUPD     64(SI)(AX*8), Z3
	VMOVUPD     128(SI)(AX*8), Z4
	VMOVUPD     192(SI)(AX*8), Z5
	VFMADD231PD (R9)(AX*8), Z2, Z0      // ax sums += far[j:j+8] * x[j:j+8]
	VFMADD231PD 64(R9)(AX*8), Z3, Z1
	VFMADD231PD 128(R9)(AX*8), Z4, Z0
	VFMADD231PD 192(R9)(AX*8), Z5, Z1
	VMOVUPD     (DX)(AX*8), Z12
	VMOVUPD     64(DX)(AX*8), Z13
	VMOVUPD     128(DX)(AX*8), Z14
	VMOVUPD     192(DX)(AX*8), Z15
	VFMADD231PD (R8)(AX*8), Z8, Z12     // g[j:j+8] += w*near[j:j+8]
	VFMADD231PD 64(R8)(AX*8), Z8, Z13
	VFMADD231PD 128(R8)(AX*8), Z8, Z14
	VFMADD231PD 192(R8)(AX*8), Z8, Z15
	VMOVUPD     Z12, (DX)(AX*8)
	VMOVUPD     Z13, 64(DX)(AX*8)
	VMOVUPD     Z14, 128(DX)(AX*8)
	VMOVUPD     Z15, 192(DX)(AX*8)
	ADDQ        $32, AX
	CMPQ        AX, CX
	JB          s1_loop32

s1_rem16:
	MOVQ        BX, CX
	SUBQ        AX, CX
	CMPQ        CX, $16
	JB          s1_fold
	VMOVUPD     (SI)(AX*8), Z2
	VMOVUPD     64(SI)(AX*8), Z3
	VFMADD231PD (R9)(AX*8), Z2, Z0
	VFMADD231PD 64(R9)(AX*8), Z3, Z1
	VMOVUPD     (DX)(AX*8), Z12
	VMOVUPD     64(DX)(AX*8), Z13
	VFMADD231PD (R8)(AX*8), Z8, Z12
	VFMADD231PD 64(R8)(AX*8), Z8, Z13
	VMOVUPD     Z12, (DX)(AX*8)
	VMOVUPD     Z13, 64(DX)(AX*8)
	ADDQ        $16, AX

s1_fold:
	VADDPD Z1, Z0, Z0

s1_rem8:
	MOVQ        BX, CX
	SUBQ        AX, CX
	CMPQ        CX, $8
	JB          s1_tail
	VMOVUPD     (SI)(AX*8), Z2
	VFMADD231PD (R9)(AX*8), Z2, Z0
	VMOVUPD     (DX)(AX*8), Z12
	VFMADD231PD (R8)(AX*8), Z8, Z12
	VMOVUPD     Z12, (DX)(AX*8)
	ADDQ        $8, AX

s1_tail:
	CMPQ        AX, BX
	JAE         s1_hsum
	VMOVUPD.Z   (SI)(AX*8), K1, Z2
	VFMADD231PD (R9)(AX*8), Z2, K1, Z0
	VMOVUPD.Z   (DX)(AX*8), K1, Z12
	VFMADD231PD (R8)(AX*8), Z8, K1, Z12
	VMOVUPD     Z12, K1, (DX)(AX*8)

s1_hsum:
	// (z0+z4 + z1+z5) + (z2+z6 + z3+z7), as mulVec4AVX512 reduces a row.
	VEXTRACTF64X4 $1, Z0, Y1
	VADDPD        Y1, Y0, Y0
	VHADDPD       Y0, Y0, Y0
	VEXTRACTF128  $1, Y0, X1
	VADDSD        X1, X0, X0
	VMOVSD        X0, (DI)
	VZEROUPPER
	RET

// func sweep4AVX512(g, a []float64, cols int, w *[4]float64, ax *[4]float64, x []float64)
//
// One step of GradSweep's group pipeline on the near rows a[0:4*cols] and
// the far rows a[4*cols:8*cols]:
//   g[j]  += w[0]*near0[j], then w[1]*near1[j], ... (each fused: as one
//            pass of mulTransVec4AVX512, so the same bits)
//   ax[r]  = far_r . x   (the sums and reduction of mulVec4AVX512)
// in one pass over the columns (cols > 0). The near rows were read from
// memory by the previous step and are in L2; the far rows come from
// memory. Run one after the other (mulVec4AVX512, then mulTransVec4AVX512
// from L2) the memory stream stops while the second pass runs; here the
// L2 reads of the near rows overlap the memory reads of the far ones.
// Registers: DX = &g[0], R8..R11 = &near0..3[0], R12, R13, R14, DI =
// &far0..3[0], SI = &x[0], AX = j, BX = cols, CX = end of the 16-column
// loop, K1 = the lanes of the last cols%8 columns; Z0..Z3 and Z4..Z7 =
// the two partial sums of each far row (columns j..j+8 and j+8..j+16 of
// every 16, as mulVec4AVX512), Z8, Z9 = x, Z10..Z13 = w[0..3] in every
// lane, Z14, Z15 = g. Per 16 columns 20 loads and 2 stores feed 16 FMAs.
TEXT ·sweep4AVX512(SB), NOSPLIT, $0-96
	MOVQ         g_base+0(FP), DX
	MOVQ         a_base+24(FP), R8
	MOVQ         cols+48(FP), BX
	MOVQ         w+56(FP), AX
	VBROADCASTSD (AX), Z10
	VBROADCASTSD 8(AX), Z11
	VBROADCASTSD 16(AX), Z12
	VBROADCASTSD 24(AX), Z13
	MOVQ         x_base+72(FP), SI
	LEAQ         (R8)(BX*8), R9
	LEAQ         (R9)(BX*8), R10
	LEAQ         (R10)(BX*8), R11
	LEAQ         (R11)(BX*8), R12
	LEAQ         (R12)(BX*8), R13
	LEAQ         (R13)(BX*8), R14
	LEAQ         (R14)(BX*8), DI
	MOVQ         BX, CX
	TAILMASK(CX, AX)
	XORQ         AX, AX
	VPXORQ       Z0, Z0, Z0
	VPXORQ       Z1, Z1, Z1
	VPXORQ       Z2, Z2, Z2
	VPXORQ       Z3, Z3, Z3
	MOVQ         BX, CX
	ANDQ         $-16, CX
	JZ           s4_rem8
	VPXORQ       Z4, Z4, Z4
	VPXORQ       Z5, Z5, Z5
	VPXORQ       Z6, Z6, Z6
	VPXORQ       Z7, Z7, Z7

s4_loop16:
	VMOVUPD     (SI)(AX*8), Z8
	VMOVUPD     64(SI)(AX*8), Z9
	VFMADD231PD (R12)(AX*8), Z8, Z0     // far row 0 += far0[j:j+8] * x[j:j+8]
	VFMADD231PD (R13)(AX*8), Z8, Z1
	VFMADD231PD (R14)(AX*8), Z8, Z2
	VFMADD231PD (DI)(AX*8), Z8, Z3
	VFMADD231PD 64(R12)(AX*8), Z9, Z4   // second sums, columns j+8..j+16
	VFMADD231PD 64(R13)(AX*8), Z9, Z5
	VFMADD231PD 64(R14)(AX*8), Z9, Z6
	VFMADD231PD 64(DI)(AX*8), Z9, Z7
	VMOVUPD     (DX)(AX*8), Z14
	VMOVUPD     64(DX)(AX*8), Z15
	VFMADD231PD (R8)(AX*8), Z10, Z14    // g[j:j+8] += w[0]*near0[j:j+8], rows in order
	VFMADD231PD 64(R8)(AX*8), Z10, Z15
	VFMADD231PD (R9)(AX*8), Z11, Z14
	VFMADD231PD 64(R9)(AX*8), Z11, Z15
	VFMADD231PD (R10)(AX*8), Z12, Z14
	VFMADD231PD 64(R10)(AX*8), Z12, Z15
	VFMADD231PD (R11)(AX*8), Z13, Z14
	VFMADD231PD 64(R11)(AX*8), Z13, Z15
	VMOVUPD     Z14, (DX)(AX*8)
	VMOVUPD     Z15, 64(DX)(AX*8)
	ADDQ        $16, AX
	CMPQ        AX, CX
	JB          s4_loop16
	VADDPD      Z4, Z0, Z0
	VADDPD      Z5, Z1, Z1
	VADDPD      Z6, Z2, Z2
	VADDPD      Z7, Z3, Z3

s4_rem8:
	MOVQ        BX, CX
	ANDQ        $-8, CX
	CMPQ        AX, CX
	JAE         s4_tail
	VMOVUPD     (SI)(AX*8), Z8
	VFMADD231PD (R12)(AX*8), Z8, Z0
	VFMADD231PD (R13)(AX*8), Z8, Z1
	VFMADD231PD (R14)(AX*8), Z8, Z2
	VFMADD231PD (DI)(AX*8), Z8, Z3
	VMOVUPD     (DX)(AX*8), Z14
	VFMADD231PD (R8)(AX*8), Z10, Z14
	VFMADD231PD (R9)(AX*8), Z11, Z14
	VFMADD231PD (R10)(AX*8), Z12, Z14
	VFMADD231PD (R11)(AX*8), Z13, Z14
	VMOVUPD     Z14, (DX)(AX*8)
	ADDQ        $8, AX

s4_tail:
	CMPQ        AX, BX
	JAE         s4_hsum
	// The last cols%8 columns, masked as in mulVec4AVX512 and
	// mulTransVec4AVX512: no load or store past the rows, x or g.
	VMOVUPD.Z   (SI)(AX*8), K1, Z8
	VFMADD231PD (R12)(AX*8), Z8, K1, Z0
	VFMADD231PD (R13)(AX*8), Z8, K1, Z1
	VFMADD231PD (R14)(AX*8), Z8, K1, Z2
	VFMADD231PD (DI)(AX*8), Z8, K1, Z3
	VMOVUPD.Z   (DX)(AX*8), K1, Z14
	VFMADD231PD (R8)(AX*8), Z10, K1, Z14
	VFMADD231PD (R9)(AX*8), Z11, K1, Z14
	VFMADD231PD (R10)(AX*8), Z12, K1, Z14
	VFMADD231PD (R11)(AX*8), Z13, K1, Z14
	VMOVUPD     Z14, K1, (DX)(AX*8)

s4_hsum:
	// As mulVec4AVX512's: Z0..Z3 to [r0 r1 r2 r3].
	MOVQ          ax+64(FP), DI
	VEXTRACTF64X4 $1, Z0, Y4
	VEXTRACTF64X4 $1, Z1, Y5
	VEXTRACTF64X4 $1, Z2, Y6
	VEXTRACTF64X4 $1, Z3, Y7
	VADDPD        Y4, Y0, Y0
	VADDPD        Y5, Y1, Y1
	VADDPD        Y6, Y2, Y2
	VADDPD        Y7, Y3, Y3
	VHADDPD       Y1, Y0, Y0
	VHADDPD       Y3, Y2, Y2
	VPERM2F128    $0x21, Y2, Y0, Y1
	VBLENDPD      $12, Y2, Y0, Y0
	VADDPD        Y1, Y0, Y0
	VMOVUPD       Y0, (DI)
	VZEROUPPER
	RET
