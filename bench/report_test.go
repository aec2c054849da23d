package main

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"
	"time"
)

func TestSummarize(t *testing.T) {
	st := Summarize([]float64{3, 1, math.NaN(), 2})
	if st.N != 3 || st.Median != 2 || st.Mean != 2 || st.Std != 1 || st.Min != 1 || st.Max != 3 || len(st.Samples) != 3 {
		t.Errorf("Summarize(3, 1, NaN, 2) = %+v", st)
	}
	if st := Summarize([]float64{4, 1, 2, 3}); st.Median != 2.5 {
		t.Errorf("even median = %g, want 2.5", st.Median)
	}
	if st := Summarize(nil); st.N != 0 || st.Median != 0 || st.Std != 0 {
		t.Errorf("Summarize(nil) = %+v", st)
	}
	if st := Summarize([]float64{5}); st.Std != 0 || st.Median != 5 {
		t.Errorf("Summarize(5) = %+v", st)
	}
	if s := (Stat{Median: 10, Min: 9, Max: 13}).Spread(); s != 20 {
		t.Errorf("Spread = %g, want 20", s)
	}
}

func TestFormatting(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{FmtNs(12.34), "12.3 ns"}, {FmtNs(4567), "4.57 µs"}, {FmtNs(1.5e6), "1.50 ms"}, {FmtNs(2e9), "2.00 s"},
		{FmtSig(0.012345, 3), "0.0123"}, {FmtSig(123456, 3), "123456"}, {FmtSig(1.5e-5, 2), "1.5e-05"}, {FmtSig(0, 3), "0"},
		{FmtSize(16), "16"}, {FmtSize(4096), "4 Ki"}, {FmtSize(1 << 22), "4 Mi"}, {FmtSize(1000), "1000"}, {FmtSize(1536), "1536"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	sz, err := parseSizes("16, 4k,1m")
	if err != nil || len(sz) != 3 || sz[0] != 16 || sz[1] != 4096 || sz[2] != 1<<20 {
		t.Errorf("parseSizes = %v, %v", sz, err)
	}
	for _, bad := range []string{"", "0", "-4", "x", "65m", "1.5k"} {
		if _, err := parseSizes(bad); err == nil {
			t.Errorf("parseSizes(%q): no error", bad)
		}
	}
}

func TestTableMarkdown(t *testing.T) {
	tab := &Table{Title: "T", Columns: []string{"name", "value"}, Note: "note"}
	tab.Add("a|b", "1.5")
	tab.Add("c", "−2")
	var b bytes.Buffer
	tab.Markdown(&b)
	want := "### T\n\n" +
		"| name | value |\n" +
		"| ---- | ----: |\n" +
		"| a\\|b |   1.5 |\n" +
		"| c    |    −2 |\n" +
		"\nnote\n\n"
	if b.String() != want {
		t.Errorf("Markdown:\n%s\nwant:\n%s", b.String(), want)
	}
	defer func() {
		if recover() == nil {
			t.Error("Add with the wrong number of cells did not panic")
		}
	}()
	tab.Add("only one")
}

func TestCPUModel(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) CPU @ 2.20GHz\n\nprocessor\t: 1\nmodel name\t: other\n",
			"Intel(R) Xeon(R) CPU @ 2.20GHz"},
		{"processor\t: 0\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\nCPU part\t: 0xd0c\n", "ARM implementer 0x41 part 0xd0c"},
		{"processor : 0\nHardware : BCM2835\n", "BCM2835"},
		{"", "unknown"},
	} {
		if got := cpuModel(strings.NewReader(c.in)); got != c.want {
			t.Errorf("cpuModel = %q, want %q", got, c.want)
		}
	}
}

func TestCalibrate(t *testing.T) {
	const per = 20 * time.Microsecond
	busy := func(n int) {
		t0 := time.Now()
		for time.Since(t0) < time.Duration(n)*per {
		}
	}
	// Each call costs at least per, so at most target/per = 250 fit; a
	// loaded machine only lowers the estimate, hence the wide lower bound.
	n := calibrate(context.Background(), busy, 5*time.Millisecond)
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
