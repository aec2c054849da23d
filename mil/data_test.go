package mil

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// convert is Convert for tests: it fails tb on an error.
func convert(tb testing.TB, d *Dataset, s Storage) *Dataset {
	tb.Helper()
	c, err := d.Convert(s)
	require.NoError(tb, err)
	return c
}

// noPanic runs f and fails t if it panics, so that a regression shows as
// a test failure naming the case rather than a crashed test binary.
func noPanic(t *testing.T, name string, f func()) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("%s: panic: %v", name, r)
		}
	}()
	f()
}

// hugeInt is an int far beyond every cap (half of math.MaxInt: 1<<62 - 1
// on 64-bit platforms, 1<<30 - 1 on 32-bit ones, where the tests build
// too), for options and sizes that must be refused before anything is
// allocated.
const hugeInt = math.MaxInt >> 1

// requireBadInput checks that err matches ErrBadInput (and ErrTooLarge
// exactly when tooLarge) and that its message contains msg.
func requireBadInput(t *testing.T, err error, tooLarge bool, msg string) {
	t.Helper()
	require.ErrorIs(t, err, ErrBadInput)
	assert.Equal(t, tooLarge, errors.Is(err, ErrTooLarge), "ErrTooLarge in %q", err)
	assert.Contains(t, err.Error(), msg)
}

func TestBuilderMixedModesAndGrouping(t *testing.T) {
	for _, sparseFirst := range []bool{false, true} {
		b := NewBuilder(0) // dimension from the data
		add := []func() error{
			func() error { return b.AddSparse("B", "i1", 1, []int{0, 2}, []float64{1, 3}) },
			func() error { return b.AddDense("A", "i2", 0, []float64{0, 5, 0, 0}) },
			func() error { return b.AddSparse("B", "i3", 1, []int{3}, []float64{-2}) },
			func() error { return b.AddDense("C", "i4", 0, []float64{7, 0, 0, 0}) },
			func() error { return b.AddSparse("A", "i5", 0, []int{1, 2}, []float64{0, 4}) }, // explicit zero
		}
		if !sparseFirst {
			add[0] = func() error { return b.AddDense("B", "i1", 1, []float64{1, 0, 3, 0}) }
		}
		for i, f := range add {
			require.NoError(t, f(), "add %d", i)
		}
		require.Equal(t, 5, b.NumInstances())
		for _, s := range []Storage{Dense, Sparse} {
			// Build resets the builder, so rebuild from a copy of the calls.
			b2 := *b
			d, err := b2.Build(&LoadOptions{Storage: s})
			require.NoError(t, err)
			want := []string{"B/i1/1 0 3 0/1", "B/i3/0 0 0 -2/1", "A/i2/0 5 0 0/0", "A/i5/0 0 4 0/0", "C/i4/7 0 0 0/0"}
			assert.Equal(t, want, dump(d), "sparse first %v, %v", sparseFirst, s)
			assert.Equal(t, s == Sparse, d.IsSparse())
			assert.Equal(t, 6, d.NNZ())
		}
	}
}

// A Builder accumulating dense switches to sparse at its dense cap, so a
// dense-mode Builder fed sparse rows of a huge dimension holds only their
// non-zeros; Build's result is the same either way.
func TestBuilderDenseCapSwitchesToSparse(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const cols = 9
	type row struct {
		bag string
		x   []float64
	}
	var rows []row
	for i := range 40 {
		x := make([]float64, cols)
		for j := range x {
			if rng.Float64() < 0.3 {
				x[j] = rng.NormFloat64()
			}
		}
		rows = append(rows, row{bag: string(rune('a' + i%7)), x: x})
	}
	build := func(denseCap int, opt *LoadOptions) (*Dataset, *Builder) {
		b := NewBuilder(cols)
		b.denseCap = denseCap
		for i, r := range rows {
			var err error
			if i%3 == 2 {
				var idx []int
				var val []float64
				for j, v := range r.x {
					if v != 0 {
						idx, val = append(idx, j), append(val, v)
					}
				}
				err = b.AddSparse(r.bag, "", float64(r.bag[0]%2), idx, val)
			} else {
				err = b.AddDense(r.bag, "", float64(r.bag[0]%2), r.x)
			}
			require.NoError(t, err)
		}
		acc := *b
		d, err := b.Build(opt)
		require.NoError(t, err)
		return d, &acc
	}
	want, acc := build(DefaultMaxDenseCells, &LoadOptions{Storage: Sparse})
	require.False(t, acc.sparse, "reference builder switched to sparse")
	for _, capCells := range []int{1, cols, 10 * cols, 10*cols + 1} {
		for _, s := range []Storage{Dense, Sparse} {
			got, acc := build(capCells, &LoadOptions{Storage: s})
			assert.Equal(t, dump(want), dump(got), "cap %d, %v", capCells, s)
			assert.True(t, acc.sparse, "cap %d: still dense", capCells)
			assert.LessOrEqual(t, len(acc.dense), capCells)
		}
	}
}

func TestBuilderErrorsLeaveItUnchanged(t *testing.T) {
	b := NewBuilder(3)
	require.NoError(t, b.AddDense("a", "1", 1, []float64{1, 2, 3}))
	nan := math.NaN()
	for _, c := range []struct {
		name string
		err  error
		msg  string
	}{
		{"wrong length", b.AddDense("a", "2", 1, []float64{1, 2}), "2 features, want 3"},
		{"NaN", b.AddDense("a", "2", 1, []float64{1, nan, 3}), "feature 1 is NaN"},
		{"Inf", b.AddSparse("a", "2", 1, []int{1}, []float64{math.Inf(-1)}), "feature 1 is -Inf"},
		{"label 2", b.AddDense("a", "2", 2, []float64{1, 2, 3}), "label 2, want 0 or 1"},
		{"label -1", b.AddSparse("z", "2", -1, nil, nil), "label -1, want 0 or 1"},
		{"empty bag", b.AddDense("", "2", 1, []float64{1, 2, 3}), "empty bag id"},
		{"conflict", b.AddDense("a", "2", 0, []float64{1, 2, 3}), `bag "a" has label 0 here but 1 on its first instance`},
		{"index range", b.AddSparse("a", "2", 1, []int{3}, []float64{1}), "index 3 out of range"},
		{"negative index", b.AddSparse("a", "2", 1, []int{-1}, []float64{1}), "index -1 out of range"},
		{"not increasing", b.AddSparse("a", "2", 1, []int{2, 1}, []float64{1, 1}), "index 1 not greater than previous index 2"},
		{"lengths", b.AddSparse("a", "2", 1, []int{2}, nil), "len(index) = 1 != len(value) = 0"},
	} {
		t.Run(c.name, func(t *testing.T) { requireBadInput(t, c.err, false, c.msg) })
	}
	var lc *LabelConflictError
	require.ErrorAs(t, b.AddDense("a", "2", 0, []float64{1, 2, 3}), &lc)
	assert.Equal(t, "a", lc.Bag)
	assert.Equal(t, 0, lc.FirstInstance)

	// Invalid options and caps leave the Builder as it was.
	_, err := b.Build(&LoadOptions{Storage: 7})
	requireBadInput(t, err, false, "Storage = Storage(7)")
	_, err = b.Build(&LoadOptions{MaxFeatures: 2})
	requireBadInput(t, err, true, "3 features exceed the cap of 2")
	_, err = b.Build(&LoadOptions{Storage: Dense, MaxDenseCells: 2})
	requireBadInput(t, err, true, "dense storage of 1 x 3 values exceeds the cap of 2")

	d, err := b.Build(nil)
	require.NoError(t, err)
	assert.Equal(t, 1, d.NumInstances())
	assert.Equal(t, 1, d.NumBags())
	// Build reset it: empty now, dimension kept.
	_, err = b.Build(nil)
	require.ErrorIs(t, err, ErrNoInstances)
	require.ErrorIs(t, err, ErrBadInput)
	require.Error(t, b.AddDense("x", "1", 0, []float64{1, 2}), "dimension not kept after Build")

	// Unknown dimension: a dense row after sparse rows must cover them.
	b = NewBuilder(0)
	require.NoError(t, b.AddSparse("a", "1", 1, []int{4}, []float64{1}))
	requireBadInput(t, b.AddDense("a", "2", 1, []float64{1, 2, 3}), false, "index 4 was added")
	requireBadInput(t, b.AddDense("a", "2", 1, nil), false, "no features")
	b = NewBuilder(0)
	require.NoError(t, b.AddSparse("a", "1", 1, nil, nil))
	_, err = b.Build(nil)
	requireBadInput(t, err, false, "unknown")
	// An index at the int32 limit is refused when added; one above the
	// default cap when built, unless the options raise the cap.
	b = NewBuilder(0)
	requireBadInput(t, b.AddSparse("a", "1", 1, []int{MaxFeaturesLimit}, []float64{1}), false, "out of range")
	require.NoError(t, b.AddSparse("a", "1", 1, []int{DefaultMaxFeatures}, []float64{1}))
	_, err = b.Build(nil)
	requireBadInput(t, err, true, "exceed the cap of 1048576 (LoadOptions.MaxFeatures")
	d, err = b.Build(&LoadOptions{MaxFeatures: DefaultMaxFeatures + 1})
	require.NoError(t, err)
	assert.Equal(t, DefaultMaxFeatures+1, d.NumFeatures())
}

func TestNewDenseSparseErrors(t *testing.T) {
	x := []float64{1, 2, 3, 4}
	one := []float64{1}
	for _, c := range []struct {
		name     string
		f        func() (*Dataset, error)
		tooLarge bool
		msg      string
	}{
		{"cols 0", func() (*Dataset, error) { return NewDense(x, 0, []int{0, 1}, one) }, false, "numFeatures = 0"},
		{"cols beyond int32", func() (*Dataset, error) { return NewDense(x, MaxFeaturesLimit+1, []int{0, 1}, one) }, false, "numFeatures = 2147483647"},
		{"not multiple", func() (*Dataset, error) { return NewDense(x, 3, []int{0, 1}, one) }, false, "not a multiple"},
		{"NaN", func() (*Dataset, error) { return NewDense([]float64{1, math.NaN()}, 1, []int{0, 2}, one) }, false, "instance 1 feature 0 is NaN"},
		{"no bags", func() (*Dataset, error) { return NewDense(x, 2, []int{0}, nil) }, false, "no bags"},
		{"no rows", func() (*Dataset, error) { return NewDense(nil, 2, []int{0, 0}, one) }, false, "bag 0 has no instances"},
		{"bagPtr length", func() (*Dataset, error) { return NewDense(x, 2, []int{0, 2}, []float64{1, 0}) }, false, "len(bagPtr) = 2"},
		{"bagPtr nil", func() (*Dataset, error) { return NewDense(x, 2, nil, one) }, false, "len(bagPtr) = 0"},
		{"bagPtr end", func() (*Dataset, error) { return NewDense(x, 2, []int{0, 1}, one) }, false, "run from 0 to the number of instances 2"},
		{"bagPtr start", func() (*Dataset, error) { return NewDense(x, 2, []int{1, 2}, one) }, false, "run from 0"},
		{"bagPtr overshoots", func() (*Dataset, error) { return NewDense(x, 1, []int{0, 9, 4}, []float64{1, 0}) }, false, "bag 1 has no instances (bagPtr 9 to 4)"},
		{"empty bag", func() (*Dataset, error) { return NewDense(x, 2, []int{0, 0, 2}, []float64{1, 0}) }, false, "bag 0 has no instances"},
		{"label", func() (*Dataset, error) { return NewDense(x, 2, []int{0, 2}, []float64{0.5}) }, false, "label 0.5"},
		{"label NaN", func() (*Dataset, error) { return NewDense(x, 2, []int{0, 2}, []float64{math.NaN()}) }, false, "label NaN"},
		{"sparse cols", func() (*Dataset, error) { return NewSparse([]int{0}, nil, nil, 0, []int{0}, nil) }, false, "numFeatures = 0"},
		{"sparse cols cap", func() (*Dataset, error) {
			return NewSparse([]int{0, 1}, []int32{0}, one, DefaultMaxFeatures+1, []int{0, 1}, one)
		}, true, "numFeatures = 1048577 exceeds DefaultMaxFeatures"},
		{"rowptr empty", func() (*Dataset, error) { return NewSparse(nil, nil, nil, 2, []int{0, 1}, one) }, false, "rowptr must start with 0"},
		{"rowptr start", func() (*Dataset, error) {
			return NewSparse([]int{1, 1}, []int32{0}, one, 2, []int{0, 1}, one)
		}, false, "rowptr must start with 0"},
		{"rowptr end", func() (*Dataset, error) {
			return NewSparse([]int{0, 0}, []int32{0}, one, 2, []int{0, 1}, one)
		}, false, "rowptr ends at 0, want len(values) = 1"},
		{"rowptr beyond values", func() (*Dataset, error) { // an error, not an index panic
			return NewSparse([]int{0, 5, 1}, []int32{0}, one, 2, []int{0, 2}, one)
		}, false, "rowptr[1] = 5 exceeds len(values) = 1"},
		{"rowptr huge", func() (*Dataset, error) {
			return NewSparse([]int{0, math.MaxInt, 1}, []int32{0}, one, 2, []int{0, 2}, one)
		}, false, "exceeds len(values)"},
		{"rowptr negative", func() (*Dataset, error) {
			return NewSparse([]int{0, -3, 1}, []int32{0}, one, 2, []int{0, 2}, one)
		}, false, "rowptr decreases at row 0"},
		{"lengths", func() (*Dataset, error) {
			return NewSparse([]int{0, 1}, []int32{0, 1}, one, 2, []int{0, 1}, one)
		}, false, "len(colidx) = 2 != len(values) = 1"},
		{"rowptr past values", func() (*Dataset, error) {
			return NewSparse([]int{0, 2}, []int32{0}, one, 2, []int{0, 1}, one)
		}, false, "rowptr[1] = 2 exceeds len(values) = 1"},
		{"decreasing", func() (*Dataset, error) {
			return NewSparse([]int{0, 2, 1, 2}, []int32{0, 1}, []float64{1, 1}, 2, []int{0, 3}, one)
		}, false, "rowptr decreases at row 1"},
		{"column range", func() (*Dataset, error) {
			return NewSparse([]int{0, 1}, []int32{2}, one, 2, []int{0, 1}, one)
		}, false, "row 0: column 2 out of range [0,2)"},
		{"column negative", func() (*Dataset, error) {
			return NewSparse([]int{0, 1}, []int32{-1}, one, 2, []int{0, 1}, one)
		}, false, "row 0: column -1 out of range"},
		{"column order", func() (*Dataset, error) {
			return NewSparse([]int{0, 2}, []int32{1, 1}, []float64{1, 1}, 2, []int{0, 1}, one)
		}, false, "column 1 not greater than previous column 1"},
		{"sparse Inf", func() (*Dataset, error) {
			return NewSparse([]int{0, 1}, []int32{0}, []float64{math.Inf(1)}, 2, []int{0, 1}, one)
		}, false, "is +Inf"},
		{"sparse bags", func() (*Dataset, error) {
			return NewSparse([]int{0, 1}, []int32{0}, one, 2, []int{0, 2}, one)
		}, false, "bagPtr must run from 0 to the number of instances 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var d *Dataset
			var err error
			noPanic(t, c.name, func() { d, err = c.f() })
			assert.Nil(t, d)
			requireBadInput(t, err, c.tooLarge, c.msg)
		})
	}
	// Valid ones, with generated ids.
	d, err := NewSparse([]int{0, 1, 1, 3}, []int32{1, 0, 1}, []float64{2, 3, 4}, 2, []int{0, 1, 3}, []float64{0, 1})
	require.NoError(t, err)
	assert.Equal(t, []string{"1/1/0 2/0", "2/2/0 0/1", "2/3/3 4/1"}, dump(d))
	sub, err := d.Subset([]int{1})
	require.NoError(t, err)
	assert.Equal(t, "3", sub.InstanceID(1))
	assert.Equal(t, "3", sub.Materialize().InstanceID(1))
	assert.Equal(t, 1, sub.Positives())
}

func TestParseErrorUnwrap(t *testing.T) {
	_, err := ReadCSV(strings.NewReader("a,b,1,1\nc,b,0,1\n"), nil)
	var lc *LabelConflictError
	require.ErrorAs(t, err, &lc)
	assert.Equal(t, "b", lc.Bag)
	assert.Equal(t, 1.0, lc.Prev)
	assert.Equal(t, 0.0, lc.Label)
	require.ErrorIs(t, err, ErrBadInput)
	assert.NotErrorIs(t, err, ErrTooLarge)
}

func TestStorageString(t *testing.T) {
	for s, want := range map[Storage]string{Auto: "auto", Dense: "dense", Sparse: "sparse", 7: "Storage(7)"} {
		assert.Equal(t, want, s.String())
	}
}

func TestConvertAuto(t *testing.T) {
	d, err := NewDense([]float64{0, 0, 0, 1, 0, 0, 0, 0, 0, 0}, 10, []int{0, 1}, []float64{1}) // density 0.1
	require.NoError(t, err)
	assert.True(t, convert(t, d, Auto).IsSparse(), "Convert(Auto) on density 0.1 should give sparse")
	assert.Same(t, d, convert(t, d, Dense), "Convert(Dense) on dense data should return it")
	assert.InDelta(t, 0.1, d.Density(), 0)
	// The threshold from the options.
	c, err := d.ConvertWith(&LoadOptions{SparseDensity: 0.05})
	require.NoError(t, err)
	assert.Same(t, d, c)
}

// TestConvertValidates: Convert refuses an unknown storage with an error
// (no index panic) and refuses dense storage beyond its cap before
// allocating (a large dimension would take 32 GiB).
func TestConvertValidates(t *testing.T) {
	d, err := ReadSparse(strings.NewReader("# features: 1048576\na:1:1 1:1\nb:2:0 1048576:2\n"), nil)
	require.NoError(t, err)
	for _, s := range []Storage{9, -1, 3} {
		var c *Dataset
		noPanic(t, s.String(), func() { c, err = d.Convert(s) })
		assert.Nil(t, c)
		requireBadInput(t, err, false, "mil: Convert: storage "+s.String()+", want Auto, Dense or Sparse")
		c, err = d.ConvertWith(&LoadOptions{Storage: s})
		assert.Nil(t, c)
		requireBadInput(t, err, false, "mil: LoadOptions.Storage = "+s.String()+", want Auto, Dense or Sparse")
	}
	for _, o := range []LoadOptions{{SparseDensity: math.NaN()}, {SparseDensity: -1}, {SparseDensity: math.Inf(1)},
		{MaxDenseCells: -1}, {MaxFeatures: -1}, {MaxFeatures: MaxFeaturesLimit + 1}, {MaxLineBytes: -5}} {
		_, err := d.ConvertWith(&o)
		requireBadInput(t, err, false, "LoadOptions.")
		requireBadInput(t, o.Validate(), false, "LoadOptions.")
	}
	require.NoError(t, (*LoadOptions)(nil).Validate())

	// 2 x 1048576 dense is 2Mi cells: within the default cap, refused
	// below a lowered one, before allocating.
	_, err = d.ConvertWith(&LoadOptions{Storage: Dense, MaxDenseCells: 1 << 20})
	requireBadInput(t, err, true, "dense storage of 2 x 1048576 values exceeds the cap of 1048576")
	dd := convert(t, d, Dense)
	assert.False(t, dd.IsSparse())
	assert.Equal(t, 2, dd.NNZ())
	assert.Same(t, d, convert(t, d, Auto), "Auto keeps a density of 2.4e-7 sparse")

	var nilD *Dataset
	_, err = nilD.Convert(Sparse)
	requireBadInput(t, err, false, "nil dataset")
}

// A bag may repeat in a subset (a bootstrap), but repeats cannot make a
// subset whose copy exceeds twice its parent and DefaultMaxDenseCells: a
// short list of bag indices must not size a huge Materialize or Apply.
func TestSubsetCaps(t *testing.T) {
	// One dense bag of 1000 x 1000 cells (8 MB) and a small one.
	x := make([]float64, 1001*1000)
	x[0] = 1
	d, err := NewDense(x, 1000, []int{0, 1000, 1001}, []float64{1, 0})
	require.NoError(t, err)
	for _, c := range []struct {
		name   string
		repeat int
		ok     bool
	}{
		{"the dataset", 1, true},
		{"a bootstrap twice its size", 2, true},
		{"the cap", DefaultMaxDenseCells / 1_000_000, true},
		{"beyond the cap", DefaultMaxDenseCells/1_000_000 + 1, false},
		{"far beyond", 1 << 20, false},
	} {
		bags := make([]int, c.repeat)
		var s *Dataset
		noPanic(t, c.name, func() { s, err = d.Subset(bags) })
		if c.ok {
			require.NoError(t, err, c.name)
			assert.Equal(t, 1000*c.repeat, s.NumInstances())
			continue
		}
		assert.Nil(t, s)
		requireBadInput(t, err, true, "exceed the cap of 268435456 (twice the dataset, at least DefaultMaxDenseCells)")
	}
	// Sparse: stored entries plus instances. 2^20 empty instances in one
	// bag: repeats beyond 2^28 values are refused.
	n := 1 << 20
	sp, err := NewSparse(make([]int, n+1), nil, nil, 3, []int{0, n}, []float64{1})
	require.NoError(t, err)
	_, err = sp.Subset(make([]int, 256))
	require.NoError(t, err)
	_, err = sp.Subset(make([]int, 257))
	requireBadInput(t, err, true, "257 bags holding 269484032 stored values")

	for _, bags := range [][]int{nil, {}, {2}, {-1}, {0, 7}} {
		s, err := d.Subset(bags)
		assert.Nil(t, s)
		requireBadInput(t, err, false, "Subset: ")
	}
	var nilD *Dataset
	_, err = nilD.Subset([]int{0})
	requireBadInput(t, err, false, "nil dataset")
}

func TestRowErrors(t *testing.T) {
	d, err := NewDense([]float64{1, 2, 3, 4}, 2, []int{0, 2}, []float64{1})
	require.NoError(t, err)
	row := []float64{7, 7}
	requireBadInput(t, d.Row(row[:1], 0), false, "len(dst) = 1, want NumFeatures() = 2")
	requireBadInput(t, d.Row(row, 2), false, "instance 2 out of range [0,2)")
	requireBadInput(t, d.Row(row, -1), false, "instance -1 out of range")
	assert.Equal(t, []float64{7, 7}, row, "dst changed by a failed Row")
	require.NoError(t, d.Row(row, 1))
	assert.Equal(t, []float64{3, 4}, row)
}

// The size accessors behind the caps.
func TestSizeAccessors(t *testing.T) {
	d, err := NewSparse([]int{0, 2, 2, 3}, []int32{0, 4, 1}, []float64{1, 2, 3}, 5, []int{0, 2, 3}, []float64{1, 0})
	require.NoError(t, err)
	assert.Equal(t, 6.0, d.storedValues()) // 3 entries + 3 row pointers
	sub, err := d.Subset([]int{1, 0, 1})
	require.NoError(t, err)
	assert.Equal(t, 2+4+2.0, sub.storedValues()) // bag 1 (1 entry, 1 row), bag 0 (2, 2), bag 1
	dd := convert(t, d, Dense)
	assert.Equal(t, 15.0, dd.storedValues())
	// No overflow for a dimension product beyond int (32 or 64 bits).
	huge := &Dataset{m: &storage{rows: math.MaxInt, cols: math.MaxInt32, dense: []float64{}}, bagPtr: []int{0, math.MaxInt}, bagSrc: []int{0}, labels: []float64{1}}
	assert.Equal(t, float64(math.MaxInt)*math.MaxInt32, huge.storedValues())
}

func TestDatasetAccessorsSliceOrder(t *testing.T) {
	d, err := ReadCSV(strings.NewReader("a,x,1,1\nb,y,0,2\nc,x,1,3\n"), nil)
	require.NoError(t, err)
	assert.Equal(t, []int{0, 2, 3}, d.BagPtr())
	assert.True(t, slices.Equal(d.Labels(), []float64{1, 0}))
}

// The zero Dataset (var d mil.Dataset) is refused like a nil one by every
// method that returns an error.
func TestZeroDataset(t *testing.T) {
	ctx := context.Background()
	var zero Dataset
	for name, f := range map[string]func() error{
		"Subset":    func() error { _, err := zero.Subset([]int{0}); return err },
		"Convert":   func() error { _, err := zero.Convert(Dense); return err },
		"Row":       func() error { return zero.Row(nil, 0) },
		"FitScaler": func() error { _, err := FitScaler(ctx, &zero); return err },
		"Apply":     func() error { _, err := (&Scaler{}).Apply(ctx, &zero); return err },
	} {
		var err error
		noPanic(t, name, func() { err = f() })
		requireBadInput(t, err, false, "zero Dataset")
	}
}

// tinyDense returns n one-feature instances of value x in n bags
// (labels alternating from 1).
func tinyDense(t *testing.T, x float64, n int) *Dataset {
	t.Helper()
	xs, ptr, y := make([]float64, n), make([]int, n+1), make([]float64, n)
	for i := range xs {
		xs[i], ptr[i+1], y[i] = x, i+1, float64((i+1)%2)
	}
	d, err := NewDense(xs, 1, ptr, y)
	require.NoError(t, err)
	return d
}

// TestMaterializePrefixSubset: a subset of the first bags is one run from
// storage row 0 but its storage holds more rows than its instances, so
// Materialize copies it (its storage then holds exactly its instances);
// the whole dataset is returned as is.
func TestMaterializePrefixSubset(t *testing.T) {
	d := tinyDense(t, 1, 3)
	assert.Same(t, d, d.Materialize())
	sub, err := d.Subset([]int{0, 1})
	require.NoError(t, err)
	m := sub.Materialize()
	assert.NotSame(t, sub, m)
	assert.Equal(t, 2, m.m.rows)
	assert.Equal(t, sub.NumInstances(), m.NumInstances())
}
