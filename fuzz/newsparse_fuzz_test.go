package fuzz

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/neadmm/neadmm/internal/guard"
	"github.com/neadmm/neadmm/mil"
)

// FuzzNewSparse feeds mil.NewSparse index arrays decoded from the fuzzer's
// bytes (mostly valid CSR with a few corruptions, so that both the accept
// and the reject paths are exercised), checks acceptance against the
// rules of its doc comment, and runs the data layer (Row, Convert, Subset,
// FitScaler, Apply) over what it accepts.
func FuzzNewSparse(f *testing.F) {
	for _, seed := range [][]byte{
		{},
		{3, 4, 2, 0, 1, 2, 1, 0, 1, 0, 0, 0},          // small valid-ish arrays
		{3, 4, 2, 0x80, 1, 2, 1, 0, 1, 0, 0, 0},       // a huge rowptr entry
		{3, 4, 2, 0, 0xff, 2, 1, 0, 1, 0, 0, 0},       // a decreasing rowptr
		{1, 0, 0, 0, 0, 0, 0},                         // numFeatures 0
		{2, 0xfe, 5, 1, 1, 1, 1, 1, 7, 1, 1, 3, 2, 1}, // huge numFeatures
		{5, 9, 3, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9},
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		in := decodeCSR(newSource(data))
		d, err := mil.NewSparse(in.rowptr, in.colidx, in.values, in.cols, in.bagPtr, in.labels)
		want, tooLarge := in.valid()
		if err != nil {
			if d != nil {
				t.Errorf("error %v with a dataset", err)
			}
			if !errors.Is(err, mil.ErrBadInput) {
				t.Errorf("error %q does not match ErrBadInput", err)
			}
			if errors.Is(err, mil.ErrTooLarge) != tooLarge {
				t.Errorf("error %q: ErrTooLarge %v, want %v (numFeatures %d)", err, !tooLarge, tooLarge, in.cols)
			}
			if want == "" {
				t.Errorf("rejected with %q, but the arrays are valid: %+v", err, in)
			}
			return
		}
		if want != "" {
			t.Fatalf("accepted, but %s: %+v", want, in)
		}
		if cells(d.NumInstances(), d.NumFeatures()) > 1<<16 {
			// numFeatures near the cap: Row, Convert(Dense) and the scaler
			// cost O(rows*cols) each; check the shape only.
			if d.NumInstances() != len(in.rowptr)-1 || d.NumFeatures() != in.cols || d.NNZ() != len(in.values) {
				t.Fatalf("shape %d x %d, %d stored; want %d x %d, %d", d.NumInstances(), d.NumFeatures(), d.NNZ(), len(in.rowptr)-1, in.cols, len(in.values))
			}
			return
		}
		if e := in.compare(d); e != nil {
			t.Fatal(e)
		}
		if e := exerciseDataset(d); e != nil {
			t.Fatal(e)
		}
	})
}

// csr holds NewSparse's arguments.
type csr struct {
	rowptr []int
	colidx []int32
	values []float64
	cols   int
	bagPtr []int
	labels []float64
}

// hugeInts are the values a 0x80 byte selects for an index entry.
var hugeInts = [...]int{math.MaxInt, math.MinInt, math.MaxInt32, 1 << 30, -1}

// decodeCSR reads the arrays: a byte for the number of rows (0..15), one
// for the columns (0..31, or a huge count for 0xfe and a negative one for
// 0xff), one for the entries; then each row pointer as the previous plus a
// signed byte (0x80: an entry of hugeInts), the column indices (signed
// bytes; 0x80: int32 extremes), the values, and the bags: a byte for their
// count, a signed delta each (like the row pointers) and a label byte each
// (mostly 0 or 1).
func decodeCSR(s *source) csr {
	var c csr
	rows := int(s.byte() % 16)
	switch b := s.byte(); b {
	case 0xfe:
		c.cols = [...]int{mil.DefaultMaxFeatures, mil.DefaultMaxFeatures + 1, mil.MaxFeaturesLimit, math.MaxInt}[s.byte()%4]
	case 0xff:
		c.cols = -int(s.byte())
	default:
		c.cols = int(b % 32)
	}
	nnz := int(s.byte() % 64)
	c.rowptr = make([]int, rows+1)
	for i := 1; i <= rows; i++ {
		c.rowptr[i] = c.rowptr[i-1] + int(int8(s.byte()))%8
		if s.exhausted() {
			c.rowptr[i] = c.rowptr[i-1] + (nnz-c.rowptr[i-1])/(rows-i+1)
		}
	}
	if b := s.byte(); b&0x80 != 0 && rows > 0 {
		c.rowptr[int(b)%(rows+1)] = hugeInts[int(b>>4)%len(hugeInts)]
	}
	if b := s.byte(); b < 0x80 || s.exhausted() {
		nnz = max(c.rowptr[rows], 0) % 64 // usually consistent
	}
	c.colidx = make([]int32, nnz)
	for p := range c.colidx {
		b := s.byte()
		switch {
		case b == 0x80:
			c.colidx[p] = math.MaxInt32
		case s.exhausted():
			c.colidx[p] = int32(p % max(c.cols, 1)) // increasing within short rows
		default:
			c.colidx[p] = int32(int8(b))
		}
	}
	c.values = make([]float64, nnz)
	for p := range c.values {
		c.values[p] = s.float()
	}
	if b := s.byte(); b == 1 && nnz > 0 {
		c.colidx = c.colidx[:nnz-1] // a length mismatch
	}
	nb := int(s.byte() % 8)
	c.bagPtr = make([]int, nb+1)
	c.labels = make([]float64, nb)
	for k := 1; k <= nb; k++ {
		c.bagPtr[k] = c.bagPtr[k-1] + int(int8(s.byte()))%6
		if s.exhausted() {
			c.bagPtr[k] = c.bagPtr[k-1] + (rows-c.bagPtr[k-1])/(nb-k+1)
		}
		c.labels[k-1] = [...]float64{0, 1, 0, 1, 0, 1, -1, 0.5, math.NaN(), 2}[s.byte()%10]
	}
	if b := s.byte(); b == 2 && nb > 0 {
		c.bagPtr = c.bagPtr[:nb] // a length mismatch
	}
	return c
}

// valid applies NewSparse's documented rules: it returns why the arrays are
// invalid ("" if they are valid), and whether the reason is the cap on the
// number of features.
func (c csr) valid() (reason string, tooLarge bool) {
	switch {
	case c.cols < 1:
		return "numFeatures < 1", false
	case c.cols > mil.DefaultMaxFeatures:
		return "numFeatures beyond DefaultMaxFeatures", true
	case len(c.colidx) != len(c.values):
		return "len(colidx) != len(values)", false
	case len(c.rowptr) == 0 || c.rowptr[0] != 0:
		return "rowptr does not start at 0", false
	case c.rowptr[len(c.rowptr)-1] != len(c.values):
		return "rowptr does not end at len(values)", false
	}
	for i := 1; i < len(c.rowptr); i++ {
		if c.rowptr[i] < c.rowptr[i-1] {
			return "rowptr decreases", false
		}
	}
	for i := 1; i < len(c.rowptr); i++ {
		for p := c.rowptr[i-1]; p < c.rowptr[i]; p++ {
			if c.colidx[p] < 0 || int(c.colidx[p]) >= c.cols || p > c.rowptr[i-1] && c.colidx[p] <= c.colidx[p-1] {
				return "column out of range or not increasing", false
			}
			if math.IsNaN(c.values[p]) || math.IsInf(c.values[p], 0) {
				return "non-finite value", false
			}
		}
	}
	rows := len(c.rowptr) - 1
	switch {
	case len(c.labels) == 0:
		return "no bags", false
	case len(c.bagPtr) != len(c.labels)+1:
		return "len(bagPtr) != len(labels)+1", false
	case c.bagPtr[0] != 0 || c.bagPtr[len(c.labels)] != rows:
		return "bagPtr does not run from 0 to the rows", false
	}
	for k, y := range c.labels {
		if c.bagPtr[k+1] <= c.bagPtr[k] {
			return "empty bag", false
		}
		if y != 0 && y != 1 {
			return "label not 0 or 1", false
		}
	}
	return "", false
}

// compare checks that d holds the arrays: shape, bags, labels, rows and
// the stored entries (NNZ counts explicit zeros for NewSparse).
func (c csr) compare(d *mil.Dataset) error {
	rows := len(c.rowptr) - 1
	if d.NumInstances() != rows || d.NumFeatures() != c.cols || d.NumBags() != len(c.labels) || !d.IsSparse() {
		return fmt.Errorf("shape %d x %d, %d bags, sparse %v; want %d x %d, %d bags", d.NumInstances(), d.NumFeatures(), d.NumBags(), d.IsSparse(), rows, c.cols, len(c.labels))
	}
	if d.NNZ() != len(c.values) {
		return fmt.Errorf("NNZ %d, want %d stored entries", d.NNZ(), len(c.values))
	}
	for k := range c.labels {
		if s, e := d.BagRange(k); s != c.bagPtr[k] || e != c.bagPtr[k+1] || d.Labels()[k] != c.labels[k] {
			return fmt.Errorf("bag %d: range %d..%d label %v, want %d..%d %v", k, s, e, d.Labels()[k], c.bagPtr[k], c.bagPtr[k+1], c.labels[k])
		}
	}
	row := make([]float64, c.cols)
	for i := range rows {
		if err := d.Row(row, i); err != nil {
			return err
		}
		want := make([]float64, c.cols)
		for p := c.rowptr[i]; p < c.rowptr[i+1]; p++ {
			want[c.colidx[p]] = c.values[p]
		}
		if !guard.SameBits(row, want) {
			return fmt.Errorf("row %d: %v, want %v", i, row, want)
		}
	}
	return nil
}

// exerciseDataset runs the rest of the data layer over a valid dataset:
// conversions both ways (equal rows), a subset with a repeated bag, the
// scaler; any error must match ErrBadInput (the dense conversions are
// within the caps here), and the scaled data must be finite.
func exerciseDataset(d *mil.Dataset) error {
	ctx := context.Background()
	dd, err := d.Convert(mil.Dense)
	if err != nil {
		return fmt.Errorf("Convert(Dense): %w", err)
	}
	ds, err := dd.Convert(mil.Sparse)
	if err != nil {
		return fmt.Errorf("Convert(Sparse): %w", err)
	}
	a, b := make([]float64, d.NumFeatures()), make([]float64, d.NumFeatures())
	for i := range d.NumInstances() {
		_ = d.Row(a, i)
		_ = ds.Row(b, i)
		for j := range a {
			if a[j] != b[j] {
				return fmt.Errorf("row %d feature %d: %v, after Dense and back %v", i, j, a[j], b[j])
			}
		}
	}
	last := d.NumBags() - 1
	sub, err := d.Subset([]int{last, 0, last})
	if err != nil {
		return fmt.Errorf("Subset: %w", err)
	}
	for _, x := range []*mil.Dataset{d, dd, sub, sub.Materialize()} {
		s, err := mil.FitScaler(ctx, x)
		if err != nil {
			if !errors.Is(err, mil.ErrBadInput) {
				return fmt.Errorf("FitScaler: %w", err)
			}
			continue
		}
		for j := range s.Scale {
			if !(s.Scale[j] > 0) || math.IsInf(s.Scale[j], 0) || math.IsNaN(s.Mean[j]) || math.IsInf(s.Mean[j], 0) {
				return fmt.Errorf("FitScaler: column %d: mean %v, scale %v", j, s.Mean[j], s.Scale[j])
			}
		}
		y, err := s.Apply(ctx, x)
		if err != nil {
			if !errors.Is(err, mil.ErrBadInput) {
				return fmt.Errorf("Apply: %w", err)
			}
			continue
		}
		row := make([]float64, y.NumFeatures())
		for i := range y.NumInstances() {
			_ = y.Row(row, i)
			for j, v := range row {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return fmt.Errorf("Apply: instance %d feature %d is %v", i, j, v)
				}
			}
		}
	}
	return nil
}
