package num

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestFinite(t *testing.T) {
	for _, v := range []float64{0, math.Copysign(0, -1), 1, -1, math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64} {
		assert.True(t, Finite(v), "Finite(%g)", v)
	}
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		assert.False(t, Finite(v), "Finite(%g)", v)
	}
}

func TestAllFinite(t *testing.T) {
	assert.True(t, AllFinite(nil))
	assert.True(t, AllFinite([]float64{1, -math.MaxFloat64, 0}))
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		for at := 0; at < 3; at++ {
			x := []float64{1, 2, 3}
			x[at] = bad
			assert.False(t, AllFinite(x), "AllFinite(%v)", x)
		}
	}
}
