package mil

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

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
			if err := f(); err != nil {
				t.Fatalf("add %d: %v", i, err)
			}
		}
		if b.NumInstances() != 5 {
			t.Fatalf("NumInstances = %d", b.NumInstances())
		}
		for _, s := range []Storage{Dense, Sparse} {
			// Build resets the builder, so rebuild from a copy of the calls.
			b2 := *b
			d, err := b2.Build(&LoadOptions{Storage: s})
			if err != nil {
				t.Fatal(err)
			}
			want := []string{"B/i1/1 0 3 0/1", "B/i3/0 0 0 -2/1", "A/i2/0 5 0 0/0", "A/i5/0 0 4 0/0", "C/i4/7 0 0 0/0"}
			if got := dump(d); !slices.Equal(got, want) || d.IsSparse() != (s == Sparse) || d.NNZ() != 6 {
				t.Errorf("sparse first %v, %v: got %q (sparse %v nnz %d)", sparseFirst, s, got, d.IsSparse(), d.NNZ())
			}
		}
	}
}

func TestBuilderErrorsLeaveItUnchanged(t *testing.T) {
	b := NewBuilder(3)
	if err := b.AddDense("a", "1", 1, []float64{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
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
		{"lengths", b.AddSparse("a", "2", 1, []int{2}, nil), "len(index) != len(value)"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.msg) {
			t.Errorf("%s: got %v, want %q", c.name, c.err, c.msg)
		}
	}
	var lc *LabelConflictError
	if err := b.AddDense("a", "2", 0, []float64{1, 2, 3}); !errors.As(err, &lc) || lc.Bag != "a" || lc.FirstInstance != 0 {
		t.Errorf("conflict error %v", err)
	}
	d, err := b.Build(nil)
	if err != nil || d.NumInstances() != 1 || d.NumBags() != 1 {
		t.Fatalf("after failed adds: %v, %d instances", err, d.NumInstances())
	}
	// Build reset it: empty now, dimension kept.
	if _, err := b.Build(nil); !errors.Is(err, ErrNoInstances) {
		t.Errorf("second Build: %v", err)
	}
	if err := b.AddDense("x", "1", 0, []float64{1, 2}); err == nil {
		t.Error("dimension not kept after Build")
	}

	// Unknown dimension: a dense row after sparse rows must cover them.
	b = NewBuilder(0)
	_ = b.AddSparse("a", "1", 1, []int{4}, []float64{1})
	if err := b.AddDense("a", "2", 1, []float64{1, 2, 3}); err == nil || !strings.Contains(err.Error(), "index 4 was added") {
		t.Errorf("got %v", err)
	}
	if err := b.AddDense("a", "2", 1, nil); err == nil {
		t.Error("empty dense row accepted")
	}
	b = NewBuilder(0)
	_ = b.AddSparse("a", "1", 1, nil, nil)
	if _, err := b.Build(nil); err == nil || !strings.Contains(err.Error(), "unknown") {
		t.Errorf("no dimension: %v", err)
	}
}

func TestNewDenseSparseErrors(t *testing.T) {
	x := []float64{1, 2, 3, 4}
	for _, c := range []struct {
		name string
		f    func() (*Dataset, error)
		msg  string
	}{
		{"cols 0", func() (*Dataset, error) { return NewDense(x, 0, []int{0, 1}, []float64{1}) }, "numFeatures = 0"},
		{"not multiple", func() (*Dataset, error) { return NewDense(x, 3, []int{0, 1}, []float64{1}) }, "not a multiple"},
		{"NaN", func() (*Dataset, error) { return NewDense([]float64{1, math.NaN()}, 1, []int{0, 2}, []float64{1}) }, "instance 1 feature 0 is NaN"},
		{"no bags", func() (*Dataset, error) { return NewDense(x, 2, []int{0}, nil) }, "no bags"},
		{"bagPtr length", func() (*Dataset, error) { return NewDense(x, 2, []int{0, 2}, []float64{1, 0}) }, "len(bagPtr) = 2"},
		{"bagPtr end", func() (*Dataset, error) { return NewDense(x, 2, []int{0, 1}, []float64{1}) }, "run from 0 to the number of instances 2"},
		{"empty bag", func() (*Dataset, error) { return NewDense(x, 2, []int{0, 0, 2}, []float64{1, 0}) }, "bag 0 has no instances"},
		{"label", func() (*Dataset, error) { return NewDense(x, 2, []int{0, 2}, []float64{0.5}) }, "label 0.5"},
		{"sparse cols", func() (*Dataset, error) { return NewSparse([]int{0}, nil, nil, 0, []int{0}, nil) }, "numFeatures = 0"},
		{"rowptr", func() (*Dataset, error) {
			return NewSparse([]int{0, 2}, []int32{0}, []float64{1}, 2, []int{0, 1}, []float64{1})
		}, "rowptr must run"},
		{"decreasing", func() (*Dataset, error) {
			return NewSparse([]int{0, 2, 1, 2}, []int32{0, 1}, []float64{1, 1}, 2, []int{0, 3}, []float64{1})
		}, "rowptr decreases at row 1"},
		{"column range", func() (*Dataset, error) {
			return NewSparse([]int{0, 1}, []int32{2}, []float64{1}, 2, []int{0, 1}, []float64{1})
		}, "column 2 out of range"},
		{"column order", func() (*Dataset, error) {
			return NewSparse([]int{0, 2}, []int32{1, 1}, []float64{1, 1}, 2, []int{0, 1}, []float64{1})
		}, "column 1 out of range or not increasing"},
		{"sparse Inf", func() (*Dataset, error) {
			return NewSparse([]int{0, 1}, []int32{0}, []float64{math.Inf(1)}, 2, []int{0, 1}, []float64{1})
		}, "is +Inf"},
	} {
		d, err := c.f()
		if d != nil || err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.msg)
		}
	}
	// Valid ones, with generated ids.
	d, err := NewSparse([]int{0, 1, 1, 3}, []int32{1, 0, 1}, []float64{2, 3, 4}, 2, []int{0, 1, 3}, []float64{0, 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := dump(d); !slices.Equal(got, []string{"1/1/0 2/0", "2/2/0 0/1", "2/3/3 4/1"}) {
		t.Errorf("got %q", got)
	}
	sub, _ := d.Subset([]int{1})
	if sub.InstanceID(1) != "3" || sub.Materialize().InstanceID(1) != "3" || sub.Positives() != 1 {
		t.Error("generated ids not carried through a subset")
	}
}

func TestParseErrorUnwrap(t *testing.T) {
	_, err := ReadCSV(strings.NewReader("a,b,1,1\nc,b,0,1\n"), nil)
	var lc *LabelConflictError
	if !errors.As(err, &lc) || lc.Bag != "b" || lc.Prev != 1 || lc.Label != 0 {
		t.Errorf("got %v", err)
	}
}

func TestStorageString(t *testing.T) {
	for s, want := range map[Storage]string{Auto: "auto", Dense: "dense", Sparse: "sparse", 7: "Storage(7)"} {
		if s.String() != want {
			t.Errorf("%d: %q", int(s), s.String())
		}
	}
}

func TestConvertAuto(t *testing.T) {
	d, _ := NewDense([]float64{0, 0, 0, 1, 0, 0, 0, 0, 0, 0}, 10, []int{0, 1}, []float64{1}) // density 0.1
	if !d.Convert(Auto).IsSparse() || d.Convert(Dense) != d {
		t.Error("Convert(Auto) on density 0.1 should give sparse; Convert(Dense) on dense data itself")
	}
	if !near(d.Density(), 0.1, 0) {
		t.Errorf("Density %v", d.Density())
	}
}
