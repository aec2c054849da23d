package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/neadmm/neadmm/mil"
)

// testdata/peerfolds.json holds fold vectors that CPython 3.11 computed
// with the peers' rule (baselines.py's folds(y, k, seed)) for random label
// vectors, and every 50th of the first 700 getrandbits(32) values of
// random.Random(0), which crosses the generator's first regeneration.
func loadPeerFolds(t *testing.T) (cases []struct {
	Labels []int
	K      int
	Seed   uint64
	Folds  []int
}, raw []uint32) {
	t.Helper()
	b, err := os.ReadFile("testdata/peerfolds.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Cases []struct {
			Labels []int
			K      int
			Seed   uint64
			Folds  []int
		}
		Raw0 []uint32 `json:"raw0_every50"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return f.Cases, f.Raw0
}

func TestPyRandomMatchesCPython(t *testing.T) {
	_, raw := loadPeerFolds(t)
	r := newPyRandom(0)
	for i := range 700 {
		v := r.uint32()
		if i%50 == 0 && v != raw[i/50] {
			t.Fatalf("value %d of random.Random(0): %d, CPython %d", i, v, raw[i/50])
		}
	}
}

func TestPeerFoldsMatchCPython(t *testing.T) {
	cases, _ := loadPeerFolds(t)
	if len(cases) == 0 {
		t.Fatal("no cases")
	}
	for _, c := range cases {
		labels := make([]float64, len(c.Labels))
		for i, y := range c.Labels {
			labels[i] = float64(y)
		}
		if got := peerFolds(labels, c.K, c.Seed); !slices.Equal(got, c.Folds) {
			t.Errorf("%d bags, k %d, seed %d: folds %v, CPython %v", len(labels), c.K, c.Seed, got, c.Folds)
		}
	}
}

func TestPeerFoldsOfRepeats(t *testing.T) {
	labels := []float64{0, 1, 1, 0, 0, 1, 0, 1, 1, 0, 0, 0}
	folds := peerFoldsOf(labels, 3, 2)
	if len(folds) != 2 {
		t.Fatalf("%d repeats, want 2", len(folds))
	}
	for rep, f := range folds {
		if !slices.Equal(f, peerFolds(labels, 3, uint64(rep))) {
			t.Errorf("repeat %d: %v, want seed %d's folds", rep, f, rep)
		}
	}
	if slices.Equal(folds[0], folds[1]) {
		t.Error("the two repeats deal the same folds")
	}
}

// TestMILPeerFoldRule: with -fold-rule peer, bench mil scores the default
// fit on the peers' splits (peerSplits of the data's labels): each fold's
// AUC is that of Fit on the split's training bags, scored on its test bags.
func TestMILPeerFoldRule(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	for k := range 40 {
		lab := k % 2
		for i := range 1 + k%3 {
			fmt.Fprintf(&b, "%d_%d,bag%d,%d", k, i, k, lab)
			for j := range 4 {
				v := r.NormFloat64()
				if j == 0 && i == 0 {
					v += float64(lab)
				}
				fmt.Fprintf(&b, ",%.6f", v)
			}
			b.WriteByte('\n')
		}
	}
	path := filepath.Join(dir, "tiny.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	js := filepath.Join(dir, "out.json")
	code, _, errs := runBench(context.Background(), "mil", "-data", dir, "-files", "tiny.csv", "-protocols", "cv",
		"-folds", "4", "-repeats", "2", "-methods", "default", "-fold-rule", "peer", "-json", js, "-quiet")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var res MILResult
	sectionResults(t, js, "mil", &res)
	ev := res.Datasets[0].Evals[0]
	if !strings.Contains(ev.Protocol, "peer folds") || len(ev.Folds) != 8 {
		t.Fatalf("protocol %q, %d folds", ev.Protocol, len(ev.Folds))
	}
	d, err := mil.LoadFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	i := 0
	for rep, folds := range peerFoldsOf(d.Labels(), 4, 2) {
		for k := range 4 {
			var tr, te []int
			for b, f := range folds {
				if f == k {
					te = append(te, b)
				} else {
					tr = append(tr, b)
				}
			}
			checkPeerFold(t, d, ev.Folds[i], rep, k, tr, te)
			i++
		}
	}
}

// checkPeerFold checks one fold of TestMILPeerFoldRule: repeat rep, fold
// k, trained on the bags tr and tested on te.
func checkPeerFold(t *testing.T, d *mil.Dataset, f MILFold, rep, k int, tr, te []int) {
	t.Helper()
	train, _ := d.Subset(tr)
	test, _ := d.Subset(te)
	m, err := mil.Fit(context.Background(), train, mil.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	sc, _ := m.BagScores(test)
	auc, _ := mil.AUC(sc, test.Labels())
	if f.Repeat != rep || f.Fold != k || f.AUC != auc {
		t.Errorf("repeat %d fold %d AUC %v, want repeat %d fold %d AUC %v", f.Repeat, f.Fold, f.AUC, rep, k, auc)
	}
}
