package main

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSummarize(t *testing.T) {
	st := Summarize([]float64{3, 1, math.NaN(), 2})
	assert.Equal(t, Stat{N: 3, Median: 2, Mean: 2, Std: 1, Min: 1, Max: 3, Samples: []float64{3, 1, 2}}, st, "NaN dropped")
	assert.Equal(t, 2.5, Summarize([]float64{4, 1, 2, 3}).Median, "even median")
	assert.Equal(t, Stat{}, Summarize(nil))
	st = Summarize([]float64{5})
	assert.Equal(t, []float64{0, 5}, []float64{st.Std, st.Median})
	assert.Equal(t, 20.0, Stat{Median: 10, Min: 9, Max: 13}.Spread())
}

func TestFormatting(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{FmtNs(12.34), "12.3 ns"}, {FmtNs(4567), "4.57 µs"}, {FmtNs(1.5e6), "1.50 ms"}, {FmtNs(2e9), "2.00 s"},
		{FmtSig(0.012345, 3), "0.0123"}, {FmtSig(123456, 3), "123456"}, {FmtSig(1.5e-5, 2), "1.5e-05"}, {FmtSig(0, 3), "0"},
		{FmtSize(16), "16"}, {FmtSize(4096), "4 Ki"}, {FmtSize(1 << 22), "4 Mi"}, {FmtSize(1000), "1000"}, {FmtSize(1536), "1536"},
		{fmtUnit(1.5, "ms"), "1.50 ms"}, {fmtUnit(2, "s"), "2.00 s"}, {fmtUnit(3.216, "×"), "3.22×"}, {fmtUnit(math.NaN(), "ns"), "–"},
		{fmtUnit(0.125, ""), "0.1250"},
	} {
		assert.Equal(t, c.want, c.got)
	}
	sz, err := parseSizes("16, 4k,1m")
	require.NoError(t, err)
	assert.Equal(t, []int{16, 4096, 1 << 20}, sz)
	for _, bad := range []string{"", "0", "-4", "x", "65m", "1.5k"} {
		_, err := parseSizes(bad)
		assert.Error(t, err, "parseSizes(%q)", bad)
	}
	ps, err := parseProblems("256x128, 1000X500")
	require.NoError(t, err)
	assert.Equal(t, [][2]int{{256, 128}, {1000, 500}}, ps)
	for _, bad := range []string{"256", "x128", "3x1", "256x0", "8192x4096", "axb"} {
		_, err := parseProblems(bad)
		assert.Error(t, err, "parseProblems(%q)", bad)
	}
}

func TestTableMarkdown(t *testing.T) {
	tab := &Table{Title: "T", Columns: []string{"name", "value", "other"}, Note: "note"}
	tab.Add("a|b", "1.5", "missing")
	tab.Add("c", "−2", "4 ns")
	var b bytes.Buffer
	tab.Markdown(&b)
	want := "### T\n\n" +
		"| name | value |   other |\n" +
		"| ---- | ----: | ------: |\n" +
		"| a\\|b |   1.5 | missing |\n" +
		"| c    |    −2 |    4 ns |\n" +
		"\nnote\n\n"
	assert.Equal(t, want, b.String())
	assert.Panics(t, func() { tab.Add("only one") }, "Add with the wrong number of cells")
	// A "|" escaped in the widest cell of a column widens the column.
	b.Reset()
	tab = &Table{Columns: []string{"|Δ|"}}
	tab.Add("1")
	tab.Markdown(&b)
	assert.Equal(t, "| \\|Δ\\| |\n| ----: |\n|     1 |\n\n", b.String())
}

func TestCPUModel(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) CPU @ 2.20GHz\n\nprocessor\t: 1\nmodel name\t: other\n",
			"Intel(R) Xeon(R) CPU @ 2.20GHz"},
		{"processor\t: 0\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\nCPU part\t: 0xd0c\n", "ARM implementer 0x41 part 0xd0c"},
		{"processor : 0\nHardware : BCM2835\n", "BCM2835"},
		{"", "unknown"},
	} {
		assert.Equal(t, c.want, cpuModel(strings.NewReader(c.in)))
	}
	m := Machine{CPU: "Intel(R) Xeon(R) Platinum 8488C CPU @ 2.40GHz", GOARCH: "amd64", VecImpl: "avx2"}
	assert.Equal(t, "Intel Xeon Platinum 8488C, amd64 avx2", m.short())
}

func TestCalibrate(t *testing.T) {
	const per = 20 * time.Microsecond
	busy := func(n int) {
		t0 := time.Now()
		for time.Since(t0) < time.Duration(n)*per {
		}
	}
	// Each call costs at least per, so at most target/per = 250 fit; a
	// loaded machine only lowers the estimate (a thread descheduled for
	// 50 ms as a timing ends took it to 22 under the race detector at
	// load 4), hence the wide lower bound and the best of five tries.
	n := 0
	for try := 0; try < 5 && n < 25; try++ {
		n = max(n, calibrate(context.Background(), busy, 5*time.Millisecond))
	}
	if n > 250 || n < 25 {
		t.Errorf("calibrate = %d calls, want about 250", n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	calibrate(ctx, busy, time.Hour)
	if time.Since(start) > time.Second {
		t.Error("calibrate ignored a cancelled context")
	}
}
