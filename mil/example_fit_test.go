package mil_test

import (
	"context"
	"fmt"

	"github.com/neadmm/neadmm/mil"
)

// Fit a model on synthetic bags whose labels follow a planted max rule,
// then score held-out bags and find the instance that makes each bag
// positive.
func ExampleFit() {
	d, truth, err := mil.Synthetic(mil.SynthConfig{
		Bags: 300, Features: 20, MinInstances: 2, MaxInstances: 10, Seed: 1,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	trainIdx, testIdx := make([]int, 200), make([]int, 100)
	for i := range trainIdx {
		trainIdx[i] = i
	}
	for i := range testIdx {
		testIdx[i] = 200 + i
	}
	train, _ := d.Subset(trainIdx)
	test, _ := d.Subset(testIdx)

	m, err := mil.Fit(context.Background(), train, mil.DefaultOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	r := m.Result()
	// Under the default growing rho the objective test stops the fit.
	fmt.Println("stop:", r.Stop(), "- primal residual below tolerance:", r.Primal <= r.EpsPrimal)

	scores, _ := m.BagScores(test)
	met, _ := mil.Evaluate(scores, test.Labels(), 0)
	fmt.Printf("test AUC %.2f, accuracy %.2f\n", met.AUC, met.Accuracy)

	// The witness of a bag is its highest-scoring instance.
	wit, _ := m.Witnesses(test)
	off := d.BagPtr()[200] // test instance i is instance off+i of d
	hits, pos := 0, 0
	for k, y := range test.Labels() {
		if y == 1 {
			pos++
			if truth.Witness[off+wit[k]] {
				hits++
			}
		}
	}
	fmt.Printf("planted witness ranked first in %d of %d positive bags\n", hits, pos)
	// Output:
	// stop: objective stalled - primal residual below tolerance: true
	// test AUC 1.00, accuracy 1.00
	// planted witness ranked first in 46 of 46 positive bags
}

// Prediction into caller-owned buffers allocates nothing, so a model can
// score a stream of datasets (from any number of goroutines) without
// garbage.
func ExampleModel_BagProbabilitiesTo() {
	d, _, _ := mil.Synthetic(mil.SynthConfig{Bags: 60, Features: 5, MinInstances: 1, MaxInstances: 4, Margin: 3, Seed: 2})
	m, err := mil.Fit(context.Background(), d, mil.DefaultOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	prob := make([]float64, d.NumBags())
	inst := make([]float64, d.NumInstances()) // receives the instance scores
	if err := m.BagProbabilitiesTo(prob, inst, d); err != nil {
		fmt.Println(err)
		return
	}
	for k := range 4 {
		fmt.Printf("bag %d: label %v, P(positive) > 0.5: %v\n", k, d.Labels()[k], prob[k] > 0.5)
	}
	// Output:
	// bag 0: label 1, P(positive) > 0.5: true
	// bag 1: label 0, P(positive) > 0.5: false
	// bag 2: label 0, P(positive) > 0.5: false
	// bag 3: label 0, P(positive) > 0.5: false
}

// The paper's settings are available as a named option set.
func ExamplePaperOptions() {
	o := mil.PaperOptions()
	fmt.Println("lambda", o.Lambda, "loss", o.Loss, "rho", o.Rho, o.RhoPolicy, "iterations", o.MaxIter)
	// Output: lambda 1 loss sum rho 0.1 fixed iterations 100
}

// ExampleFitCV chooses lambda, the pooling and the scaling by 5-fold
// cross-validation inside the training bags, then scores held-out bags
// with the refitted model.
func ExampleFitCV() {
	d, _, _ := mil.Synthetic(mil.SynthConfig{Bags: 200, Features: 10, MinInstances: 2, MaxInstances: 6, Relevant: 3, Margin: 1, Seed: 5})
	train, _ := d.Subset(seq(0, 150))
	test, _ := d.Subset(seq(150, 200))

	m, sel, err := mil.FitCV(context.Background(), train, mil.DefaultSearch())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("settings tried:", len(sel.Settings), "- the model uses the chosen pooling:", m.Pooling() == sel.Best.Pooling)
	scores, _ := m.BagScores(test)
	met, _ := mil.Evaluate(scores, test.Labels(), 0)
	fmt.Println("test AUC above 0.9:", met.AUC > 0.9)
	// Output:
	// settings tried: 15 - the model uses the chosen pooling: true
	// test AUC above 0.9: true
}

// seq returns lo, lo+1, ..., hi-1.
func seq(lo, hi int) []int {
	s := make([]int, 0, hi-lo)
	for i := lo; i < hi; i++ {
		s = append(s, i)
	}
	return s
}
