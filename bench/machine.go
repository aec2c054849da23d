package main

import (
	"bufio"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/cpu"

	"github.com/neadmm/neadmm/vec"
)

// Machine describes where a run happened, so results from different
// machines (x86 and ARM in particular) can be compared.
type Machine struct {
	// CPU is the model name from /proc/cpuinfo on Linux, "unknown"
	// elsewhere or when it cannot be read.
	CPU string `json:"cpu"`
	// Features holds the CPU features relevant to the vec kernels on this
	// GOARCH (avx2, fma, avx512f on amd64; asimd on arm64), as seen by
	// golang.org/x/sys/cpu, so GODEBUG=cpu.avx512f=off shows here.
	Features   map[string]bool `json:"features"`
	GOOS       string          `json:"goos"`
	GOARCH     string          `json:"goarch"`
	GoVersion  string          `json:"go_version"`
	NumCPU     int             `json:"num_cpu"`
	GOMAXPROCS int             `json:"gomaxprocs"`
	// VecImpl is vec.Impl(): the kernels ordinary code runs.
	VecImpl string `json:"vec_impl"`
	// VecImpls are the implementations this build can run on this CPU
	// (vec.Implementations), best first; "generic" is always last.
	VecImpls []string `json:"vec_impls"`
}

// describeMachine reads the machine description.
func describeMachine() Machine {
	m := Machine{
		CPU:        "unknown",
		Features:   map[string]bool{},
		GOOS:       runtime.GOOS,
		GOARCH:     runtime.GOARCH,
		GoVersion:  runtime.Version(),
		NumCPU:     runtime.NumCPU(),
		GOMAXPROCS: runtime.GOMAXPROCS(0),
		VecImpl:    vec.Impl(),
	}
	if runtime.GOOS == "linux" {
		if f, err := os.Open("/proc/cpuinfo"); err == nil {
			m.CPU = cpuModel(f)
			f.Close()
		}
	}
	switch runtime.GOARCH {
	case "amd64":
		m.Features["avx2"] = cpu.X86.HasAVX2
		m.Features["fma"] = cpu.X86.HasFMA
		m.Features["avx512f"] = cpu.X86.HasAVX512F
	case "arm64":
		m.Features["asimd"] = cpu.ARM64.HasASIMD
	}
	for _, k := range vec.Implementations() {
		m.VecImpls = append(m.VecImpls, k.Name())
	}
	return m
}

// loadAvg returns the 1-, 5- and 15-minute load averages from
// /proc/loadavg, or nil where it cannot be read (not Linux).
func loadAvg() []float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return nil
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return nil
	}
	var l []float64
	for _, s := range f[:3] {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil
		}
		l = append(l, v)
	}
	return l
}

// fmtLoad formats load averages as "1.25 0.80 0.40", or "–" when absent.
func fmtLoad(l []float64) string {
	if len(l) == 0 {
		return "–"
	}
	var s []string
	for _, v := range l {
		s = append(s, strconv.FormatFloat(v, 'f', 2, 64))
	}
	return strings.Join(s, " ")
}

// cpuModel extracts a CPU name from /proc/cpuinfo text: "model name" (x86
// and some ARM kernels), else "Hardware" or "Model" (boards), else the
// ARM implementer and part numbers. It returns "unknown" if none is there.
func cpuModel(r io.Reader) string {
	fields := map[string]string{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if _, seen := fields[k]; !seen && v != "" {
			fields[k] = v // the first processor's entry
		}
	}
	for _, k := range []string{"model name", "Hardware", "Model"} {
		if v := fields[k]; v != "" {
			return v
		}
	}
	if imp, part := fields["CPU implementer"], fields["CPU part"]; imp != "" && part != "" {
		return "ARM implementer " + imp + " part " + part
	}
	return "unknown"
}

// featuresLabel is the table's label for featureList, with the legend of
// its marks.
const featuresLabel = "CPU features (x/sys/cpu; -x: x absent or turned off by GODEBUG)"

// featureList returns the features as "avx2 fma -avx512f" in a fixed order
// ("-" marks an absent feature: see featuresLabel).
func (m *Machine) featureList() string {
	var parts []string
	for _, k := range []string{"avx2", "fma", "avx512f", "asimd"} {
		if has, ok := m.Features[k]; ok {
			if !has {
				k = "-" + k
			}
			parts = append(parts, k)
		}
	}
	if len(parts) == 0 {
		return "none checked on " + m.GOARCH
	}
	return strings.Join(parts, " ")
}

// table returns the description as a two-column Markdown table.
func (m *Machine) table() *Table {
	t := &Table{Title: "Machine", Columns: []string{"property", "value"}}
	t.Add("CPU", m.CPU)
	t.Add(featuresLabel, m.featureList())
	t.Add("GOOS/GOARCH", m.GOOS+"/"+m.GOARCH)
	t.Add("Go", m.GoVersion)
	t.Add("CPUs (GOMAXPROCS)", itoa(m.NumCPU)+" ("+itoa(m.GOMAXPROCS)+")")
	t.Add("vec kernels (vec.Impl)", m.VecImpl)
	t.Add("vec implementations available", strings.Join(m.VecImpls, " "))
	return t
}

// loadLabel names the load averages in the machine and runs tables.
const loadLabel = "load average (1, 5, 15 min)"
