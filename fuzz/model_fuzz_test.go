package fuzz

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/neadmm/neadmm/mil"
)

// The model reader target feeds arbitrary bytes to mil.ReadModel, as a
// model file from disk or the network would be. It must not panic; it
// returns either an error wrapping mil.ErrBadInput or a model that
// json.Unmarshal reads alike, that saves to bytes which read back to a
// model saving to the same bytes, and whose copy scores bags (through a
// dataset and as raw arrays) with the same bits.

// modelLoadOptions caps the features far below the default, so that a
// fuzzed file cannot make the scoring checks slow.
var modelLoadOptions = mil.LoadOptions{MaxFeatures: 1 << 12}

// modelSeeds returns valid model files: a model of every pooling fitted to
// tiny synthetic bags, and their ensemble.
func modelSeeds(tb testing.TB) [][]byte {
	d, _, err := mil.Synthetic(mil.SynthConfig{Bags: 12, Features: 3, MinInstances: 1, MaxInstances: 4, Seed: 1})
	if err != nil {
		tb.Fatal(err)
	}
	var parts []*mil.Model
	var files [][]byte
	for _, p := range []mil.Pooling{mil.MaxPooling(), mil.MeanPooling(), mil.TopKPooling(2), mil.TopFracPooling(0.3), mil.FeatureMaxPooling(), mil.FeatureMeanMaxPooling()} {
		opt := mil.DefaultOptions()
		opt.Pooling, opt.MaxIter = p, 30
		m, err := mil.Fit(context.Background(), d, opt)
		if err != nil {
			tb.Fatal(err)
		}
		parts = append(parts, m)
	}
	e, err := mil.Ensemble(parts...)
	if err != nil {
		tb.Fatal(err)
	}
	for _, m := range append(parts, e) {
		b, err := json.Marshal(m)
		if err != nil {
			tb.Fatal(err)
		}
		files = append(files, b)
	}
	return files
}

// FuzzReadModel fuzzes the model reader with valid files of every pooling
// and an ensemble as seeds, and crafted ones.
func FuzzReadModel(f *testing.F) {
	for _, b := range modelSeeds(f) {
		f.Add(b)
	}
	for _, s := range []string{
		`{"format":"mil.Model","version":1,"features":2,"pooling":"topfrac:5e-324","beta0":-0,"beta":[-0,5e-324]}`,
		`{"format":"mil.Model","version":1,"features":1,"pooling":"max","beta0":1e308,"beta":[1.7976931348623157e308]}`,
		`{"format":"mil.Model","version":2,"features":1,"pooling":"max","beta0":0,"beta":[1]}`,
		`{"format":"mil.Model","version":1,"features":1,"weights":[1],"parts":[{"parts":[],"pooling":"max","beta0":0,"beta":[1]}]}`,
		`{"format":"mil.Model","version":1,"features":3,"pooling":"max","beta0":0,"beta":[1,2,3,4]}`,
		`{"format":"mil.Model","version":1,"features":2,"pooling":"meanmax","beta0":0,"beta":[1e308,1,1e308,1.7976931348623157e308]}`,
		`{"format":"mil.Model","version":1,"features":2,"pooling":"meanmax","beta0":0,"beta":[1,2]}`,
		`{"format":"mil.Model","version":1,"features":1,"weights":[0.5,0.5],"parts":[{"pooling":"max","beta0":0,"beta":["1"]},{}]}`,
		`{"format":"mil.Model","version":1,"features":1,"pooling":"max","beta0":0,"beta":[1],"options":{"Pooling":"mean"}}`,
		`{"format":"mil.Model","version":1,"features":1,"weights":[1],"parts":[{"pooling":"max","beta0":0,"beta":[1],"x":"\",]"}]}`,
		`null`, ``, `[]`, `{"format":"mil.Model"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(checkReadModel)
}

// checkReadModel checks the reader on one file.
func checkReadModel(t *testing.T, data []byte) {
	o := modelLoadOptions
	m, err := mil.ReadModel(bytes.NewReader(data), &o)
	var v mil.Model
	uerr := json.Unmarshal(data, &v)
	if err != nil {
		if !errors.Is(err, mil.ErrBadInput) {
			t.Fatalf("ReadModel: error %v does not wrap ErrBadInput", err)
		}
		if m != nil {
			t.Fatal("ReadModel returned a model with its error")
		}
		if uerr == nil && !errors.Is(err, mil.ErrTooLarge) && !bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
			t.Fatalf("json.Unmarshal accepts what ReadModel refuses (%v)", err)
		}
		return
	}
	if uerr != nil || !reflect.DeepEqual(m, &v) {
		t.Fatalf("json.Unmarshal: %v, or a model other than ReadModel's", uerr)
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatalf("saving a model ReadModel read: %v", err)
	}
	m2, err := mil.ReadModel(bytes.NewReader(b), &o)
	if err != nil {
		t.Fatalf("reading a saved model: %v\n%s", err, b)
	}
	b2, err := json.Marshal(m2)
	if err != nil || !bytes.Equal(b, b2) {
		t.Fatalf("saving the model read back: %v, %s\nwant %s", err, b2, b)
	}
	if err := sameScores(m, m2); err != nil {
		t.Fatal(err)
	}
}

// sameScores compares two models' bag scores and witnesses, bit for bit,
// on three small bags built for their width, through a dataset and as raw
// arrays (dense and sparse).
func sameScores(a, b *mil.Model) error {
	nf := a.NumFeatures()
	if b.NumFeatures() != nf {
		return fmt.Errorf("%d features, then %d", nf, b.NumFeatures())
	}
	x := make([]float64, 6*nf)
	for i := range x {
		x[i] = float64((i*7)%5) - 2
	}
	d, err := mil.NewDense(x, nf, []int{0, 1, 3, 6}, nil)
	if err != nil {
		return err
	}
	sa, erra := a.BagScores(d)
	sb, errb := b.BagScores(d)
	wa, _ := a.Witnesses(d)
	wb, _ := b.Witnesses(d)
	if (erra == nil) != (errb == nil) || !reflect.DeepEqual(wa, wb) {
		return fmt.Errorf("BagScores: %v and %v, witnesses %v and %v", erra, errb, wa, wb)
	}
	for k := range sa {
		if math.Float64bits(sa[k]) != math.Float64bits(sb[k]) {
			return fmt.Errorf("bag %d: score %v, then %v", k, sa[k], sb[k])
		}
		lo, hi := d.BagRange(k)
		bag := x[lo*nf : hi*nf]
		rowptr, colidx, values := []int{0}, []int32{}, []float64{}
		for p, v := range bag {
			if v != 0 {
				colidx, values = append(colidx, int32(p%nf)), append(values, v)
			}
			if (p+1)%nf == 0 {
				rowptr = append(rowptr, len(values))
			}
		}
		ra, errra := a.ScoreBag(bag)
		rb, errrb := b.ScoreBag(bag)
		qa, errqa := a.ScoreSparseBag(rowptr, colidx, values)
		qb, errqb := b.ScoreSparseBag(rowptr, colidx, values)
		// A bag's raw score fails exactly where its dataset score is NaN.
		if (errra != nil) != math.IsNaN(sa[k]) || (errrb != nil) != (errra != nil) || math.Float64bits(ra) != math.Float64bits(rb) ||
			(errqb != nil) != (errqa != nil) || math.Float64bits(qa) != math.Float64bits(qb) {
			return fmt.Errorf("bag %d: ScoreBag %v (%v) and %v (%v), ScoreSparseBag %v (%v) and %v (%v), BagScores %v",
				k, ra, errra, rb, errrb, qa, errqa, qb, errqb, sa[k])
		}
	}
	return nil
}

// TestReadModelOnMutatedFiles runs the reader's check on the valid seeds
// with random bytes changed, inserted or deleted (a fixed seed), so that
// plain go test, and the arm64 run under qemu, exercises it beyond the
// seed corpus.
func TestReadModelOnMutatedFiles(t *testing.T) {
	n := 2000
	if testing.Short() {
		n = 200
	}
	seeds := modelSeeds(t)
	rng := rand.New(rand.NewPCG(5, 17))
	const alphabet = `0123456789-+.eE,:[]{}" nultrfax`
	for i := range n {
		data := append([]byte(nil), seeds[i%len(seeds)]...)
		for range 1 + rng.IntN(3) {
			p := rng.IntN(len(data))
			c := alphabet[rng.IntN(len(alphabet))]
			switch rng.IntN(3) {
			case 0:
				data[p] = c
			case 1:
				data = append(data[:p], append([]byte{c}, data[p:]...)...)
			default:
				data = append(data[:p], data[p+1:]...)
			}
		}
		checkReadModel(t, data)
		if t.Failed() {
			t.Fatalf("input %q", data)
		}
	}
}
