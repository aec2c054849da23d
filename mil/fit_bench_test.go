package mil

import (
	"context"
	"testing"
	"time"

	"github.com/neadmm/neadmm/internal/datadir"
)

// benchmarkFit fits the default model on the training bags of the paper's
// 80/20 split of a real data set and reports the time per outer iteration
// and its split between the updates.
func benchmarkFit(b *testing.B, name string, opt Options) {
	d, err := LoadFile(datadir.File(b, name), nil)
	if err != nil {
		b.Fatal(err)
	}
	sp, err := PaperSplit(1).Splits(d.Labels())
	if err != nil {
		b.Fatal(err)
	}
	train, err := d.Subset(sp[0].Train)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var its int
	var tm FitTimes
	for b.Loop() {
		m, err := Fit(context.Background(), train, opt)
		if err != nil {
			b.Fatal(err)
		}
		r := m.Result()
		its += r.Iterations
		tm.Setup += r.Time.Setup
		tm.QUpdate += r.Time.QUpdate
		tm.BetaUpdate += r.Time.BetaUpdate
		tm.TUpdate += r.Time.TUpdate
		tm.Engine += r.Time.Engine
	}
	per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(its) }
	b.ReportMetric(float64(its)/float64(b.N), "iters/fit")
	b.ReportMetric(per(tm.QUpdate+tm.BetaUpdate+tm.TUpdate+tm.Engine), "ns/iter")
	b.ReportMetric(per(tm.QUpdate), "q-ns/iter")
	b.ReportMetric(per(tm.BetaUpdate), "beta-ns/iter")
	b.ReportMetric(per(tm.TUpdate), "t-ns/iter")
	b.ReportMetric(per(tm.Engine), "engine-ns/iter")
	b.ReportMetric(float64(tm.Setup.Nanoseconds())/float64(b.N), "setup-ns/fit")
}

func BenchmarkFitVaccine(b *testing.B) { benchmarkFit(b, "vaccine.svm", DefaultOptions()) }
func BenchmarkFitFox(b *testing.B)     { benchmarkFit(b, "fox.csv", DefaultOptions()) }
