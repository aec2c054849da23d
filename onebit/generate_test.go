package onebit_test

import (
	"encoding/binary"
	"errors"
	"hash/fnv"
	"math"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/neadmm/neadmm/onebit"
	"github.com/neadmm/neadmm/vec"
)

func TestGenerate(t *testing.T) {
	o := onebit.GenOptions{M: 300, N: 400, K: 12, Seed: 11}
	a, err := onebit.Generate(o)
	require.NoError(t, err)
	b, _ := onebit.Generate(o)
	if !equal(a.Phi, b.Phi) || !equal(a.X, b.X) || !equal(a.Y, b.Y) {
		t.Error("same options, different instances")
	}
	o.Seed++
	if c, _ := onebit.Generate(o); equal(a.Phi, c.Phi) {
		t.Error("the seed is ignored")
	}
	if math.Abs(vec.Nrm2(a.X)-1) > 1e-15 || nonzeros(a.X) != 12 || len(a.Support) != 12 {
		t.Errorf("X: norm %v, %d non-zeros, support %v", vec.Nrm2(a.X), nonzeros(a.X), a.Support)
	}
	seen := map[int]bool{}
	for _, j := range a.Support {
		if seen[j] || a.X[j] == 0 || j < 0 || j >= 400 {
			t.Errorf("support %v: bad or repeated index %d", a.Support, j)
		}
		seen[j] = true
	}
	// y = sign(Phi x) exactly: the truth is consistent with every sign.
	if h := mustProblem(t, a).Hamming(a.X); h != 0 || a.Flipped != 0 {
		t.Errorf("truth Hamming %g, flipped %d", h, a.Flipped)
	}
	// N(0, 1) entries: with 120000 samples the mean is within 5 standard
	// errors (5/sqrt(n) = 0.014) of 0 and the variance within 5*sqrt(2/n)
	// = 0.02 of 1.
	mean, sq := 0.0, 0.0
	for _, v := range a.Phi {
		mean += v
		sq += v * v
	}
	n := float64(len(a.Phi))
	mean /= n
	if v := sq/n - mean*mean; math.Abs(mean) > 0.015 || math.Abs(v-1) > 0.021 {
		t.Errorf("Phi mean %g variance %g", mean, v)
	}
}

func TestGenerateFlips(t *testing.T) {
	all, err := onebit.Generate(onebit.GenOptions{M: 50, N: 10, K: 2, Flip: 1, Seed: 1})
	require.NoError(t, err)
	if h := mustProblem(t, all).Hamming(all.X); h != 1 || all.Flipped != 50 {
		t.Errorf("Flip = 1: Hamming %g, flipped %d", h, all.Flipped)
	}
	in, err := onebit.Generate(onebit.GenOptions{M: 10000, N: 5, K: 2, Flip: 0.1, Seed: 2})
	require.NoError(t, err)
	// Binomial(10000, 0.1): mean 1000, sd 30; allow 5 sd.
	h := mustProblem(t, in).Hamming(in.X)
	if in.Flipped < 850 || in.Flipped > 1150 || h != float64(in.Flipped)/10000 {
		t.Errorf("Flip = 0.1: %d flipped, Hamming %g", in.Flipped, h)
	}
}

func TestGenerateErrors(t *testing.T) {
	for _, o := range []onebit.GenOptions{
		{M: 0, N: 5, K: 1}, {M: 5, N: 0, K: 1}, {M: 5, N: 5, K: 0}, {M: 5, N: 5, K: 6},
		{M: 5, N: 5, K: 1, Flip: -0.1}, {M: 5, N: 5, K: 1, Flip: 1.5}, {M: 5, N: 5, K: 1, Flip: math.NaN()},
		{M: math.MaxInt / 2, N: 4, K: 1},
	} {
		if _, err := onebit.Generate(o); !errors.Is(err, onebit.ErrBadInput) {
			t.Errorf("%+v: %v", o, err)
		}
	}
}

// TestGenerateReproducible pins a digest of every bit of one instance
// (Phi, X, y, the support) per architecture. CI runs it under purego and
// GODEBUG=cpu.all=off too, so it fails if an instance ever depends on the
// CPU's features or on which vec kernel ran. The digests differ between
// amd64 and arm64 because math/rand/v2's NormFloat64 does: its rare tail
// branch calls math.Log, which is assembly on amd64 and Go compiled with
// fused multiply-adds on arm64; here one of the 60000 entries of Phi
// comes out 1 ulp apart.
func TestGenerateReproducible(t *testing.T) {
	want, ok := map[string]uint64{
		"amd64": 0xc93579decf7567a0,
		"arm64": 0x4f69dceddaeb1c1b,
	}[runtime.GOARCH]
	if !ok {
		t.Skipf("no digest recorded for GOARCH=%s", runtime.GOARCH)
	}
	in, err := onebit.Generate(onebit.GenOptions{M: 300, N: 200, K: 7, Flip: 0.05, Seed: 42})
	require.NoError(t, err)
	h := fnv.New64a()
	var b [8]byte
	put := func(v uint64) {
		binary.LittleEndian.PutUint64(b[:], v)
		h.Write(b[:])
	}
	for _, s := range [][]float64{in.Phi, in.X, in.Y} {
		for _, v := range s {
			put(math.Float64bits(v))
		}
	}
	for _, j := range in.Support {
		put(uint64(j))
	}
	put(uint64(in.Flipped))
	if got := h.Sum64(); got != want {
		t.Errorf("instance digest %#x, want %#x", got, want)
	}
}

func TestGenerateCap(t *testing.T) {
	// 2^40 entries would be 8 TiB: refused before any allocation.
	t0 := time.Now()
	_, err := onebit.Generate(onebit.GenOptions{M: 1 << 20, N: 1 << 20, K: 10})
	require.ErrorIs(t, err, onebit.ErrBadInput)
	// (M*N overflows an int on 32-bit platforms, refused as such.)
	assert.Regexp(t, "MaxEntries|M\\*N = 1048576\\*1048576 overflows", err.Error())
	assert.Less(t, time.Since(t0), time.Second)
	// Just above the default cap, and the cap raised by the caller.
	_, err = onebit.Generate(onebit.GenOptions{M: onebit.DefaultMaxEntries/4 + 1, N: 4, K: 1})
	require.ErrorIs(t, err, onebit.ErrBadInput)
	_, err = onebit.Generate(onebit.GenOptions{M: 30, N: 10, K: 2, MaxEntries: 299})
	require.ErrorIs(t, err, onebit.ErrBadInput)
	_, err = onebit.Generate(onebit.GenOptions{M: 30, N: 10, K: 2, MaxEntries: 300})
	require.NoError(t, err)
	_, err = onebit.Generate(onebit.GenOptions{M: 30, N: 10, K: 2, MaxEntries: -1})
	require.ErrorIs(t, err, onebit.ErrBadInput)
}

// TestGenerateOverflowBoundary checks onebit.Generate's overflow test at its
// boundary: M = MaxInt/3 rows of 3 fit in an int (the cap refuses them),
// one more row overflows.
func TestGenerateOverflowBoundary(t *testing.T) {
	_, err := onebit.Generate(onebit.GenOptions{M: math.MaxInt / 3, N: 3, K: 1})
	require.ErrorIs(t, err, onebit.ErrBadInput)
	require.ErrorContains(t, err, "above the cap")
	_, err = onebit.Generate(onebit.GenOptions{M: math.MaxInt/3 + 1, N: 3, K: 1})
	require.ErrorIs(t, err, onebit.ErrBadInput)
	require.ErrorContains(t, err, "overflows")
}
