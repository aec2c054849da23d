package mil_test

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/neadmm/neadmm/mil"
)

// Bags may be scattered through the file: the loader groups them, keeping
// bags in order of first appearance.
func ExampleReadCSV() {
	const data = `cat1,bagA,1,0.9,0.1
dog1,bagB,0,0.2,0.3
cat2,bagA,1,0.1,0.8
dog2,bagB,0,0.4,0.4
`
	d, err := mil.ReadCSV(strings.NewReader(data), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.NumBags(), "bags,", d.NumInstances(), "instances,", d.NumFeatures(), "features")
	for k := range d.NumBags() {
		start, end := d.BagRange(k)
		fmt.Printf("bag %s label %v:", d.BagID(k), d.Labels()[k])
		for i := start; i < end; i++ {
			fmt.Print(" ", d.InstanceID(i))
		}
		fmt.Println()
	}
	// Output:
	// 2 bags, 4 instances, 2 features
	// bag bagA label 1: cat1 cat2
	// bag bagB label 0: dog1 dog2
}

// The sparse format takes -1/+1 labels too; errors name the line. Storage
// is chosen by density (here 3/12, above DefaultSparseDensity, so dense)
// unless LoadOptions forces it.
func ExampleReadSparse() {
	const data = `# features: 4
u1:alice:+1 1:1 4:2
u2:bob:-1
u3:alice:+1 2:1
`
	d, err := mil.ReadSparse(strings.NewReader(data), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.NumBags(), "bags, labels", d.Labels(), "sparse:", d.IsSparse(), "density:", d.Density())
	d, _ = mil.ReadSparse(strings.NewReader(data), &mil.LoadOptions{Storage: mil.Sparse})
	fmt.Println("forced sparse:", d.IsSparse())

	_, err = mil.ReadSparse(strings.NewReader("# features: 4\nu1:alice:1 5:1\n"), nil)
	fmt.Println(err)
	// Output:
	// 2 bags, labels [1 0] sparse: false density: 0.25
	// forced sparse: true
	// mil: line 2: feature index 5 out of range 1..4
}

// Bag scores under the max rule: instance scores t = X beta + beta0, then
// the largest per bag.
func ExampleDataset_MulVec() {
	d, _ := mil.ReadCSV(strings.NewReader("a,b1,1,1,0\nb,b1,1,0,1\nc,b2,0,0.5,0.5\n"), nil)
	beta, beta0 := []float64{2, -1}, -0.5
	t := make([]float64, d.NumInstances())
	d.MulVec(t, beta, beta0)
	for k := range d.NumBags() {
		s, e := d.BagRange(k)
		q := math.Inf(-1)
		for i := s; i < e; i++ {
			q = max(q, t[i])
		}
		fmt.Printf("bag %s: instance scores %.2f, bag score %.2f\n", d.BagID(k), t[s:e], q)
	}
	// Output:
	// bag b1: instance scores [1.50 -1.50], bag score 1.50
	// bag b2: instance scores [0.00], bag score 0.00
}

func ExampleEvaluate() {
	scores := []float64{0.9, 0.8, 0.7, 0.6, 0.55, 0.5}
	labels := []float64{1, 0, 1, 1, 0, 0}
	m, err := mil.Evaluate(scores, labels, 0.6)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("ACC %.4f PR %.4f RE %.4f F1 %.4f\n", m.Accuracy, m.Precision, m.Recall, m.F1)
	fmt.Printf("AUC %.4f AUPR %.4f AUPR(trapz) %.4f\n", m.AUC, m.AUPR, m.AUPRTrapz)

	// One class only: AUC is undefined.
	_, err = mil.AUC([]float64{0.3, 0.4}, []float64{1, 1})
	fmt.Println(err)
	// Output:
	// ACC 0.8333 PR 0.7500 RE 1.0000 F1 0.8571
	// AUC 0.7778 AUPR 0.8056 AUPR(trapz) 0.4306
	// mil: metric undefined: labels hold one class only
}

// Cross-validation with a score function that needs no training: a bag
// scores the largest value of its first feature.
func ExampleProtocol_Run() {
	var sb strings.Builder
	for k := range 20 {
		y := k % 2
		fmt.Fprintf(&sb, "i%d,bag%d,%d,%d,0.5\n", 2*k, k, y, y) // the witness
		fmt.Fprintf(&sb, "i%d,bag%d,%d,0.25,0.5\n", 2*k+1, k, y)
	}
	d, _ := mil.ReadCSV(strings.NewReader(sb.String()), nil)
	maxFirst := func(_ context.Context, train, test *mil.Dataset) ([]float64, error) {
		scores := make([]float64, test.NumBags())
		row := make([]float64, test.NumFeatures())
		for k := range scores {
			s, e := test.BagRange(k)
			scores[k] = math.Inf(-1)
			for i := s; i < e; i++ {
				test.Row(row, i)
				scores[k] = max(scores[k], row[0])
			}
		}
		return scores, nil
	}
	p := mil.KFold(5, 2, 1)
	p.Threshold = 0.5
	rep, err := p.Run(context.Background(), d, maxFirst)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d splits, mean AUC %.2f, mean accuracy %.2f\n", len(rep.Folds), rep.Mean.AUC, rep.Mean.Accuracy)
	// Output:
	// 10 splits, mean AUC 1.00, mean accuracy 1.00
}
