package mil

import (
	"context"
	"encoding/binary"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzBagMeans checks bagMeans against the correctly rounded means of
// handMeans (exact sums in math/big) on small datasets decoded from the
// fuzzer's bytes: any finite values (each a float64's bits, so the
// extremes and the subnormals come up), repeated values, views of
// repeated bags, sparse storage (zeros left out). Each mean is within
// 4 n ulps of the bag's largest magnitude of its exact value (the shifted
// sum's rounding; the halves' when the differences overflow), and a
// column equal on a bag's instances gives exactly that value.
//
// It is a test of package mil (bagMeans is not exported); .ci/fuzz fuzzes
// it with the targets in ./fuzz.
func FuzzBagMeans(f *testing.F) {
	le := func(vs ...float64) []byte {
		b := make([]byte, 0, 8*len(vs))
		for _, v := range vs {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		}
		return b
	}
	f.Add(uint8(0x21), uint8(0x12), le(0.1, 1, 0.1, 2, 0.1, 4, math.MaxFloat64, -1))
	f.Add(uint8(0x32), uint8(0x05), le(math.MaxFloat64, -math.MaxFloat64, math.MaxFloat64, 5e-324, -5e-324, 0, 3))
	// One column, bags of 1, 2, 1, 2 instances: {-Max, Max} overflows
	// the differences from the first value.
	f.Add(uint8(0x04), uint8(0), le(1, -math.MaxFloat64, math.MaxFloat64, 2, math.MaxFloat64, math.MaxFloat64/2))
	f.Add(uint8(0x04), uint8(2), le(1, -math.MaxFloat64, math.MaxFloat64, 2, math.MaxFloat64, math.MaxFloat64/2))
	f.Add(uint8(0x13), uint8(0x3f), le(1e-310, 0, 0, 1e-310, 2, 2, 2, 0, -7, 1e308, 1e308, 1e308))
	f.Fuzz(func(t *testing.T, shape, opt uint8, data []byte) {
		nf := 1 + int(shape&3)
		nv := min(len(data)/8, 64)
		n := nv / nf
		if n == 0 {
			return
		}
		x := make([]float64, n*nf)
		for i := range x {
			x[i] = math.Float64frombits(binary.LittleEndian.Uint64(data[8*i:]))
			if math.IsNaN(x[i]) || math.IsInf(x[i], 0) {
				x[i] = float64(i)
			}
		}
		// Bags of 1 to 1+(shape>>2 & 7) instances.
		bs := 1 + int(shape>>2&7)
		bp := []int{0}
		for k := 0; bp[len(bp)-1] < n; k++ {
			bp = append(bp, min(n, bp[len(bp)-1]+1+(k*7+int(shape))%bs))
		}
		nb := len(bp) - 1
		lab := make([]float64, nb)
		for k := range lab {
			lab[k] = float64(k & 1)
		}
		d, err := NewDense(x, nf, bp, lab)
		require.NoError(t, err)
		if opt&1 != 0 { // a view, bags repeated and reordered
			idx := make([]int, 1+int(opt>>2&7))
			for i := range idx {
				idx[i] = (i*int(opt>>5) + i*i) % nb
			}
			d, err = d.Subset(idx)
			require.NoError(t, err)
		}
		if opt&2 != 0 {
			d = convert(t, d, Sparse)
		}
		md, err := bagMeans(context.Background(), d)
		require.NoError(t, err)
		require.Equal(t, d.NumBags(), md.NumInstances())
		require.Equal(t, d.IsSparse(), md.IsSparse())
		ref := handMeans(t, d)
		got, want, row := make([]float64, nf), make([]float64, nf), make([]float64, nf)
		first := make([]float64, nf)
		ptr := d.BagPtr()
		for k := range d.NumBags() {
			require.NoError(t, md.Row(got, k))
			require.NoError(t, ref.Row(want, k))
			require.NoError(t, d.Row(first, ptr[k]))
			cnt := ptr[k+1] - ptr[k]
			for j := range nf {
				top, equal := 0.0, true
				for i := ptr[k]; i < ptr[k+1]; i++ {
					require.NoError(t, d.Row(row, i))
					top = max(top, math.Abs(row[j]))
					equal = equal && row[j] == first[j]
				}
				tol := 4 * float64(cnt) * (0x1p-53*top + 0x1p-1074)
				if !(math.Abs(got[j]-want[j]) <= tol) {
					t.Errorf("bag %d column %d (%d instances, sparse %v): mean %g, exact %g (tolerance %g)", k, j, cnt, d.IsSparse(), got[j], want[j], tol)
				}
				if equal && got[j] != first[j] {
					t.Errorf("bag %d column %d: equal values %g, mean %g", k, j, first[j], got[j])
				}
			}
		}
	})
}
