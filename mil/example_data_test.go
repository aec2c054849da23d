package mil_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/neadmm/neadmm/mil"
)

// Input is untrusted: a 43-byte file declaring two billion features is
// refused before anything is sized by it, with an error naming the line
// and the cap; the caps are raised (or lowered) through LoadOptions.
func ExampleLoadOptions() {
	file := "# features: 2147483646\na:1:1 1:1\nb:2:0 2:1\n"
	_, err := mil.ReadSparse(strings.NewReader(file), nil)
	fmt.Println(err)
	fmt.Println(errors.Is(err, mil.ErrBadInput), errors.Is(err, mil.ErrTooLarge))

	// A service expecting at most 1000 features lowers the cap; one
	// expecting hashed features of 2^24 buckets raises it.
	_, err = mil.ReadSparse(strings.NewReader("# features: 5000\na:1:1 1:1\n"), &mil.LoadOptions{MaxFeatures: 1000})
	fmt.Println(err)
	d, err := mil.ReadSparse(strings.NewReader("a:1:1 16777216:1\nb:2:0 2:1\n"), &mil.LoadOptions{MaxFeatures: 1 << 24})
	fmt.Println(d.NumFeatures(), d.IsSparse(), err)

	// Options are checked before the input is read.
	_, err = mil.ReadCSV(strings.NewReader("a,b,1,1\n"), &mil.LoadOptions{Storage: 7})
	fmt.Println(err)
	// Output:
	// mil: line 1: # features: 2147483646 exceeds the cap of 1048576 (LoadOptions.MaxFeatures, default DefaultMaxFeatures)
	// true true
	// mil: line 1: # features: 5000 exceeds the cap of 1000 (LoadOptions.MaxFeatures, default DefaultMaxFeatures)
	// 16777216 true <nil>
	// mil: LoadOptions.Storage = Storage(7), want Auto, Dense or Sparse
}

// FitScaler standardizes each column with statistics computed on values
// scaled by a power of two, so columns at any magnitude give the same
// standardized values: here one near 1e-200 and one near 1e200.
func ExampleFitScaler() {
	x := []float64{
		1e-200, 3e200,
		2e-200, 1e200,
		3e-200, 2e200,
		6e-200, 2e200,
	}
	d, err := mil.NewDense(x, 2, []int{0, 2, 4}, []float64{1, 0})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	s, err := mil.FitScaler(ctx, d)
	if err != nil {
		panic(err)
	}
	fmt.Printf("mean %.3g, scale %.3g\n", s.Mean, s.Scale)
	z, err := s.Apply(ctx, d)
	if err != nil {
		panic(err)
	}
	row := make([]float64, 2)
	for i := range z.NumInstances() {
		if err := z.Row(row, i); err != nil {
			panic(err)
		}
		fmt.Printf("%+.3f\n", row)
	}
	// Output:
	// mean [3e-200 2e+200], scale [1.87e-200 7.07e+199]
	// [-1.069 +1.414]
	// [-0.535 -1.414]
	// [+0.000 +0.000]
	// [+1.604 +0.000]
}
