package fuzz

import (
	"context"
	"errors"
	"math"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"github.com/neadmm/neadmm/mil"
	"github.com/neadmm/neadmm/neadmm"
)

// The Fit targets: a dataset is fitted with small options under a short
// deadline and a memory budget. Fit must return within the deadline plus
// fitSlack (it checks its context; the slack absorbs a loaded machine);
// a late return counts only if the process also spent that much CPU time
// in it (on a machine busy with other work a Fit can wait longer than the
// slack for a core: seen at a load of 10) or if it is late by ten times
// the slack,
// allocate at most fitBudget bytes (these datasets hold at most a few
// thousand values: more means an allocation sized by something other than
// the data), and either return an error of a documented kind or a model
// whose bag scores are not NaN without an error.
const (
	fitDeadline = 200 * time.Millisecond
	fitSlack    = 2 * time.Second
	fitBudget   = 64 << 20
)

// fitLoadOptions caps the loaders far below the defaults, so that a fuzzed
// header cannot make a fit of a tiny file slow or big (the default caps
// admit a few million features, and a Gram matrix of (D+1)^2 values for up
// to 4095 features; Fit's own estimate bounds those).
var fitLoadOptions = mil.LoadOptions{MaxFeatures: 1 << 10, MaxDenseCells: 1 << 16, MaxLineBytes: 1 << 16}

// FuzzFitText fits the datasets the loaders read from fuzzed text (either
// format, through mil.Read), with options chosen by a byte.
func FuzzFitText(f *testing.F) {
	for _, s := range []string{
		"a,1,1,0.5,2\nb,1,1,3,4\nc,2,0,5,6\nd,3,0,1,1\n",
		"# features: 3\n1:p:1 1:1 3:-2\n2:p:1 2:1\n3:n:0 1:-1\n4:m:0 3:0.5\n",
		"a,1,1,1e300,2\nb,2,0,-1e300,4\n",                // huge values: scores overflow
		"a,1,1,1e-300,0\nb,2,0,-1e-300,0\n",              // tiny values
		"a,1,1,1\nb,2,1,2\n",                             // one class
		"# features: 1024\na:1:1 1024:1\nb:2:0 1:1\n",    // the loaders' cap in this target
		"# features: 1025\na:1:1 1:1\nb:2:0 1:1\n",       // beyond it
		"a:1:1 1:1.7976931348623157e308\nb:2:0 1:-1e308", // extremes
		"a,1,1,0\nb,2,0,0\n",                             // all zero
	} {
		for _, o := range []byte{0, 1, 2, 0x13, 0x25, 0xff} {
			f.Add(s, o)
		}
	}
	f.Fuzz(func(t *testing.T, text string, opt byte) {
		o := fitLoadOptions
		d, err := mil.Read(strings.NewReader(text), &o)
		if err != nil {
			if !errors.Is(err, mil.ErrBadInput) {
				t.Fatalf("Read: error %q does not match ErrBadInput", err)
			}
			return
		}
		checkFit(t, d, fitOptions(opt))
	})
}

// FuzzFitArrays fits datasets built by mil.NewDense or mil.NewSparse from
// fuzzed values (any scale, including the extremes that make bag scores
// overflow), with options chosen by a byte.
func FuzzFitArrays(f *testing.F) {
	for _, seed := range [][]byte{
		{0, 0, 6, 3, 4},
		{1, 0, 6, 3, 4},
		{0, 252, 6, 3, 4}, // values near 2^1020
		{1, 130, 6, 3, 4}, // subnormals
		{0, 0, 1, 1, 1},
		{0, 222, 20, 7, 9, 1, 2, 3},
	} {
		for _, o := range []byte{0, 1, 2, 0x13, 0x25} {
			f.Add(seed, o)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, opt byte) {
		s := newSource(data)
		sparse := s.byte()&1 == 1
		s.setScale()
		nb := 1 + int(s.byte()%12)
		cols := 1 + int(s.byte()%8)
		bagPtr := []int{0}
		labels := make([]float64, nb)
		for k := range nb {
			bagPtr = append(bagPtr, bagPtr[k]+1+int(s.byte()%4))
			labels[k] = float64((k + int(s.byte())) % 2)
		}
		n := bagPtr[nb]
		x := make([]float64, n*cols)
		for i := range x {
			if b := s.byte(); b%4 == 0 && !s.exhausted() {
				continue // a zero
			}
			x[i] = s.float()
		}
		var d *mil.Dataset
		var err error
		if sparse {
			rowptr := []int{0}
			var colidx []int32
			var values []float64
			for i := range n {
				for j, v := range x[i*cols : (i+1)*cols] {
					if v != 0 {
						colidx, values = append(colidx, int32(j)), append(values, v)
					}
				}
				rowptr = append(rowptr, len(values))
			}
			d, err = mil.NewSparse(rowptr, colidx, values, cols, bagPtr, labels)
		} else {
			d, err = mil.NewDense(x, cols, bagPtr, labels)
		}
		if err != nil {
			if !errors.Is(err, mil.ErrBadInput) {
				t.Fatalf("error %q does not match ErrBadInput", err)
			}
			return
		}
		checkFit(t, d, fitOptions(opt))
	})
}

// fitOptions decodes the option byte into small Options: 1 to 16
// iterations, 1 to 8 FISTA steps, the scaling, the beta path, the loss
// scale and the rho policy from its bits.
func fitOptions(b byte) mil.Options {
	o := mil.DefaultOptions()
	o.MaxIter = 1 + int(b%16)
	o.InnerMaxIter = 1 + int(b>>4%8)
	if b&0x10 != 0 {
		o.Scaling = mil.ScaleNone
	}
	o.Beta = [...]mil.BetaSolver{mil.BetaAuto, mil.BetaGram, mil.BetaDirect, mil.BetaAuto}[b>>5%4]
	if b&0x80 != 0 {
		o = mil.PaperOptions()
		o.MaxIter = 1 + int(b%16)
	}
	return o
}

var heapAllocs = []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}

// allocated returns the bytes allocated on the heap so far (cumulative).
func allocated() uint64 {
	metrics.Read(heapAllocs)
	return heapAllocs[0].Value.Uint64()
}

// checkFit fits d under the deadline and the budget (see fitDeadline).
func checkFit(t *testing.T, d *mil.Dataset, opt mil.Options) {
	// A soft limit makes the collector work hard past it instead of
	// letting the heap grow, as a service's limit would.
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(fitBudget * 4))
	ctx, cancel := context.WithTimeout(context.Background(), fitDeadline)
	defer cancel()
	cpu0, haveCPU := processCPU()
	start, before := time.Now(), allocated()
	m, err := mil.Fit(ctx, d, opt)
	elapsed, used := time.Since(start), allocated()-before
	cpu1, _ := processCPU()
	if late := elapsed - fitDeadline; late > fitSlack {
		if !haveCPU || cpu1-cpu0 > fitDeadline+fitSlack || late > 10*fitSlack {
			t.Errorf("Fit returned %v after its deadline of %v (%v of CPU time in it)", late, fitDeadline, cpu1-cpu0)
		}
	}
	if used > fitBudget {
		t.Errorf("Fit allocated %d bytes on %d x %d (%d bags)", used, d.NumInstances(), d.NumFeatures(), d.NumBags())
	}
	if err != nil {
		if m != nil {
			t.Errorf("Fit: error %v with a model", err)
		}
		switch {
		case errors.Is(err, mil.ErrBadInput), errors.Is(err, mil.ErrOneClass),
			errors.Is(err, context.DeadlineExceeded), errors.Is(err, neadmm.ErrNotFinite):
		default:
			t.Errorf("Fit: error %q (%T) of no documented kind", err, err)
		}
		return
	}
	scores, err := m.BagScores(d)
	if err != nil {
		return
	}
	for k, s := range scores {
		if math.IsNaN(s) {
			t.Fatalf("bag %d: score NaN without an error", k)
		}
	}
}
