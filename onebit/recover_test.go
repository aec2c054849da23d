package onebit_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/neadmm/neadmm/onebit"
)

func TestRecover(t *testing.T) {
	if testing.Short() {
		t.Skip("continuation solves")
	}
	var s onebit.Solver
	ctx := context.Background()
	for seed := uint64(0); seed < 4; seed++ {
		in := mustGenerate(t, 400, 200, 5, seed)
		p := mustProblem(t, in)
		x := make([]float64, 200)
		res, err := s.Recover(ctx, p, x, onebit.DefaultRecoverOptions())
		if err != nil {
			t.Fatal(err)
		}
		// Passive errors are about 0.22 here and a collapse to one
		// coordinate costs about 0.2; the pipeline lands near BIHT's
		// 0.002-0.014 (0.0036-0.035 measured), consistent with every
		// measurement and with a support near K = 5.
		e := onebit.AngularError(in.X, x)
		if e > 0.05 || res.Hamming != 0 || p.Hamming(x) != 0 || res.Support > 3*5 || res.Support != nonzeros(x) {
			t.Errorf("seed %d: error %.4f, %+v", seed, e, res)
		}
		if math.Abs(norm(x)-1) > 1e-14 || res.Stages != 10+4 || res.Refits < 1 || res.Products <= res.InnerIterations {
			t.Errorf("seed %d: ||x|| = %v, %+v", seed, norm(x), res)
		}
	}
}

func norm(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v * v
	}
	return math.Sqrt(s)
}

func TestRecoverOptions(t *testing.T) {
	p := mustProblem(t, mustGenerate(t, 60, 40, 3, 1))
	var s onebit.Solver
	ctx := context.Background()
	x := make([]float64, 40)
	for name, mod := range map[string]func(*onebit.RecoverOptions){
		"LambdaStart 0":     func(o *onebit.RecoverOptions) { o.LambdaStart = 0 },
		"LambdaStart > Max": func(o *onebit.RecoverOptions) { o.LambdaStart = 2e6 },
		"LambdaMax Inf":     func(o *onebit.RecoverOptions) { o.LambdaMax = math.Inf(1) },
		"LambdaGrowth 1":    func(o *onebit.RecoverOptions) { o.LambdaGrowth = 1 },
		"RhoScale 0":        func(o *onebit.RecoverOptions) { o.RhoScale = 0 },
		"RhoPower NaN":      func(o *onebit.RecoverOptions) { o.RhoPower = math.NaN() },
		"StageIter 0":       func(o *onebit.RecoverOptions) { o.StageIter = 0 },
		"Reweight < 0":      func(o *onebit.RecoverOptions) { o.Reweight = -1 },
		"ReweightEps 0":     func(o *onebit.RecoverOptions) { o.ReweightEps = 0 },
		"RefitMaxIter 0":    func(o *onebit.RecoverOptions) { o.RefitMaxIter = 0 },
		"InnerMaxIter 0":    func(o *onebit.RecoverOptions) { o.InnerMaxIter = 0 },
		"InnerTol NaN":      func(o *onebit.RecoverOptions) { o.InnerTol = math.NaN() },
		"EpsAbs < 0":        func(o *onebit.RecoverOptions) { o.EpsAbs = -1 },
	} {
		o := onebit.DefaultRecoverOptions()
		mod(&o)
		res, err := s.Recover(ctx, p, x, o)
		if !errors.Is(err, onebit.ErrBadInput) || res.Iterations != 0 {
			t.Errorf("%s: %v, %+v; want ErrBadInput before any work", name, err, res)
		}
	}
	if _, err := s.Recover(ctx, p, x[:5], onebit.DefaultRecoverOptions()); !errors.Is(err, onebit.ErrBadInput) {
		t.Errorf("short x: %v", err)
	}
	// Without reweighting, refit or pruning: the continuation alone.
	o := onebit.DefaultRecoverOptions()
	o.Reweight, o.Refit, o.Prune, o.ReweightEps, o.RefitMaxIter = 0, false, false, 0, 0
	res, err := s.Recover(ctx, p, x, o)
	if err != nil || res.Stages != 10 || res.Refits != 0 {
		t.Errorf("continuation only: %v %+v", err, res)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if res, err := s.Recover(cctx, p, x, onebit.DefaultRecoverOptions()); !errors.Is(err, context.Canceled) || res.Stages != 1 {
		t.Errorf("cancelled: %v %+v", err, res)
	}
}
