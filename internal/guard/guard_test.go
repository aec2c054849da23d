package guard

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCatchesStrayWrites checks the guard bands themselves: a write to the
// element just before or just after the vector, or anywhere in the bands,
// is reported at every offset, 0 included; writes to the vector are not;
// and offset off puts the vector 8*off bytes past a 64-byte boundary.
func TestCatchesStrayWrites(t *testing.T) {
	for _, n := range []int{0, 1, 5, 9} {
		aligns := map[uintptr]bool{}
		for off := range Offsets {
			g := Filled(n, off, 1)
			require.GreaterOrEqual(t, g.lo, Len, "n=%d off=%d: leading band", n, off)
			require.GreaterOrEqual(t, len(g.buf)-(g.lo+n), Len, "n=%d off=%d: trailing band", n, off)
			require.NoError(t, g.Check(), "n=%d off=%d: fresh buffer", n, off)
			if n > 0 {
				a := uintptrOf(g.S()) % 64
				require.Equal(t, uintptr(8*off), a, "n=%d off=%d: address modulo 64", n, off)
				aligns[a] = true
			}
			for i := range g.buf {
				if i >= g.lo && i < g.lo+n {
					continue
				}
				saved := g.buf[i]
				for _, bad := range []float64{math.Float64frombits(g.bits | 1<<51), 0, Junk, New(0, 0).sentinel()} {
					g.buf[i] = bad
					if g.Check() == nil {
						t.Errorf("n=%d off=%d: write of %#x to buf[%d] (vector at %d) not caught", n, off, math.Float64bits(bad), i, g.lo)
					}
				}
				g.buf[i] = saved
			}
			s := g.S()
			require.Len(t, s, n)
			require.Equal(t, n, cap(s), "capacity reaches the sentinels")
			for i := range s {
				s[i] = 2
			}
			require.NoError(t, g.Check(), "n=%d off=%d: writing the vector", n, off)
			require.True(t, math.IsNaN(g.Overrun()[:n+1][n]), "Overrun does not reach a sentinel")
		}
		if n > 0 && len(aligns) != Offsets {
			t.Errorf("n=%d: %d alignments modulo 64 bytes, want %d", n, len(aligns), Offsets)
		}
	}
}

// TestSentinels checks that sentinels are signalling NaNs, unique per
// buffer, and that Of copies.
func TestSentinels(t *testing.T) {
	a, b := New(1, 0), New(1, 0)
	require.NotEqual(t, a.bits, b.bits)
	for _, g := range []*Vec{a, b} {
		v := g.sentinel()
		require.True(t, math.IsNaN(v))
		require.Zero(t, g.bits&(1<<51), "sentinel is a quiet NaN")
	}
	x := []float64{1, 2, 3}
	g := Of(x, 3)
	x[0] = 7
	require.Equal(t, []float64{1, 2, 3}, g.S())
	require.True(t, g.Same(g))
	require.False(t, g.Same(a))
}

func (g *Vec) sentinel() float64 { return math.Float64frombits(g.bits) }

// TestSameBits checks that SameBits compares representations, not values:
// NaN payloads and the sign of zero count, and lengths must match.
func TestSameBits(t *testing.T) {
	nan1, nan2 := math.Float64frombits(0x7ff8000000000001), math.Float64frombits(0x7ff8000000000002)
	require.True(t, SameBits(nil, []float64{}))
	require.True(t, SameBits([]float64{1, nan1, 0}, []float64{1, nan1, 0}))
	require.False(t, SameBits([]float64{nan1}, []float64{nan2}), "NaN payloads differ")
	require.False(t, SameBits([]float64{0}, []float64{math.Copysign(0, -1)}), "signed zeros differ")
	require.False(t, SameBits([]float64{1, 2}, []float64{1, 3}), "last element differs")
	require.False(t, SameBits([]float64{1}, []float64{1, 1}), "lengths differ")
}
