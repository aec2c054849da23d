package mil

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/neadmm/neadmm/internal/datadir"
)

func TestLoadFox(t *testing.T) {
	d, err := LoadFile(datadir.File(t, "fox.csv"), nil)
	if err != nil {
		t.Fatal(err)
	}
	// Counts from ../shared/data/README.md.
	checkCounts(t, d, 200, 100, 1320, 230)
	if d.IsSparse() {
		t.Error("fox.csv (density 0.62) should be stored dense")
	}
	// Non-zero count: awk -F, '{for(i=4;i<=NF;i++) if ($i+0 != 0) n++} END {print n}' fox.csv
	if got := d.NNZ(); got != 188760 {
		t.Errorf("NNZ = %d, want 188760", got)
	}
	if d.BagID(0) != "fox_data_1" || d.InstanceID(0) != "Bag_1+1" || d.BagID(199) != "fox_data_200" {
		t.Errorf("ids: bag 0 %q, instance 0 %q, bag 199 %q", d.BagID(0), d.InstanceID(0), d.BagID(199))
	}
}

func TestLoadVaccine(t *testing.T) {
	d, err := LoadFile(datadir.File(t, "vaccine.svm"), nil)
	if err != nil {
		t.Fatal(err)
	}
	checkCounts(t, d, 1572, 566, 41537, 234)
	if !d.IsSparse() {
		t.Error("vaccine.svm (density 0.005) should be stored sparse")
	}
	// About 1.2 non-zeros per row (README); exactly, the number of j:v
	// tokens: grep -v '^#' vaccine.svm | awk '{n += NF-1} END {print n}'.
	if got := d.NNZ(); got != 49770 {
		t.Errorf("NNZ = %d, want 49770", got)
	}
	zero := 0
	row := make([]float64, d.NumFeatures())
	for i := range d.NumInstances() {
		d.Row(row, i)
		if !slices.ContainsFunc(row, func(v float64) bool { return v != 0 }) {
			zero++
		}
	}
	if zero != 99 {
		t.Errorf("%d all-zero instances, want 99", zero)
	}
	sizes := make([]int, d.NumBags())
	for k := range sizes {
		s, e := d.BagRange(k)
		sizes[k] = e - s
	}
	slices.Sort(sizes)
	n := len(sizes)
	if sizes[0] != 1 || sizes[n-1] != 3414 || sizes[n/2-1] != 5 || sizes[n/2] != 5 {
		t.Errorf("bag sizes: min %d max %d median %d,%d; want 1, 3414, 5", sizes[0], sizes[n-1], sizes[n/2-1], sizes[n/2])
	}
	if d.BagID(0) != "1" || d.InstanceID(0) != "1" || d.InstanceID(d.NumInstances()-1) != "41537" {
		t.Errorf("ids: bag 0 %q, first instance %q, last %q", d.BagID(0), d.InstanceID(0), d.InstanceID(d.NumInstances()-1))
	}
	// The same file forced dense gives the same rows.
	dd, err := LoadFile(datadir.File(t, "vaccine.svm"), &LoadOptions{Storage: Dense})
	if err != nil {
		t.Fatal(err)
	}
	if dd.IsSparse() || dd.NNZ() != d.NNZ() {
		t.Errorf("forced dense: sparse=%v nnz=%d", dd.IsSparse(), dd.NNZ())
	}
}

func checkCounts(t *testing.T, d *Dataset, bags, pos, inst, feat int) {
	t.Helper()
	if d.NumBags() != bags || d.Positives() != pos || d.NumInstances() != inst || d.NumFeatures() != feat {
		t.Errorf("bags %d (positive %d), instances %d, features %d; want %d (%d), %d, %d",
			d.NumBags(), d.Positives(), d.NumInstances(), d.NumFeatures(), bags, pos, inst, feat)
	}
	if len(d.BagPtr()) != bags+1 || d.BagPtr()[bags] != inst {
		t.Errorf("BagPtr inconsistent")
	}
}

// dump returns every instance of d as "bag/instance/features/label".
func dump(d *Dataset) []string {
	var out []string
	row := make([]float64, d.NumFeatures())
	for k := range d.NumBags() {
		s, e := d.BagRange(k)
		for i := s; i < e; i++ {
			d.Row(row, i)
			out = append(out, d.BagID(k)+"/"+d.InstanceID(i)+"/"+fmtFloats(row)+"/"+fmtFloats(d.Labels()[k:k+1]))
		}
	}
	return out
}

func fmtFloats(x []float64) string {
	var b strings.Builder
	for i, v := range x {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
	}
	return b.String()
}

func TestReadCSVGroupsScatteredBags(t *testing.T) {
	in := "i1,B,1,1,0\n\ni2,A,0,2,0\r\n i3 , B ,1, 3 ,0\ni4,C,0,4,0\ni5,A,0,5,-1e-3\n"
	d, err := ReadCSV(strings.NewReader(in), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"B/i1/1 0/1", "B/i3/3 0/1", "A/i2/2 0/0", "A/i5/5 -0.001/0", "C/i4/4 0/0"}
	if got := dump(d); !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if !slices.Equal(d.BagPtr(), []int{0, 2, 4, 5}) {
		t.Errorf("BagPtr = %v", d.BagPtr())
	}
	// The same through the sparse format, scattered the same way, with
	// -1/+1 labels and an explicit zero.
	sp := "# a comment\n# features: 2\ni1:B:+1 1:1\ni2:A:-1 1:2 2:0\ni3:B:1 1:3\ni4:C:-1 1:4\ni5:A:-1 1:5 2:-1e-3\n"
	for _, s := range []Storage{Auto, Dense, Sparse} {
		ds, err := ReadSparse(strings.NewReader(sp), &LoadOptions{Storage: s})
		if err != nil {
			t.Fatal(err)
		}
		if got := dump(ds); !slices.Equal(got, want) {
			t.Errorf("sparse %v: got %q\nwant %q", s, got, want)
		}
		if ds.NNZ() != 6 {
			t.Errorf("sparse %v: NNZ = %d, want 6 (explicit zero dropped)", s, ds.NNZ())
		}
	}
}

func TestReadSparseWithoutHeader(t *testing.T) {
	d, err := ReadSparse(strings.NewReader("a:x:0 3:1.5\nb:x:0\nc:y:1 1:2 7:1\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.NumFeatures() != 7 || d.NumInstances() != 3 || d.NumBags() != 2 || !d.IsSparse() {
		t.Errorf("features %d instances %d bags %d sparse %v", d.NumFeatures(), d.NumInstances(), d.NumBags(), d.IsSparse())
	}
	// Density 3/21 = 0.14 < 0.15: sparse; with a lower threshold, dense.
	d2, _ := ReadSparse(strings.NewReader("a:x:0 3:1.5\nb:x:0\nc:y:1 1:2 7:1\n"), &LoadOptions{SparseDensity: 0.1})
	if d2.IsSparse() {
		t.Error("SparseDensity 0.1 should choose dense at density 0.14")
	}
}

func TestLoaderErrors(t *testing.T) {
	for _, c := range []struct {
		name, in string
		sparse   bool
		line     int
		msg      string // substring of the message
	}{
		{"csv ragged long", "a,b,1,1,2\nc,b,1,3,4,5\n", false, 2, "6 fields, want 5 (3 + 2 features, as on line 1)"},
		{"csv ragged short", "a,b,1,1,2\n\nc,b,1,3\n", false, 3, "4 fields, want 5"},
		{"csv too few fields", "a,b,1\n", false, 1, "3 fields, want instance_id,bag_id,label and at least one feature"},
		{"csv not a number", "a,b,1,1,x\n", false, 1, `field 5: "x" is not a number`},
		{"csv empty field", "a,b,1,1,\n", false, 1, `field 5: "" is not a number`},
		{"csv NaN", "a,b,1,NaN,2\n", false, 1, `field 4: "NaN" is not finite`},
		{"csv Inf", "a,b,1,1,-Inf\n", false, 1, `field 5: "-Inf" is not finite`},
		{"csv overflow", "a,b,1,1e400,1\n", false, 1, `field 4: "1e400" overflows float64`},
		{"csv label conflict", "a,b,1,1\nc,d,0,1\r\ne,b,0,2\n", false, 3, `bag "b" has label 0 here but 1 on line 1`},
		{"csv bad label", "a,b,2,1\n", false, 1, `label "2" not in {0, 1, -1, +1}`},
		{"csv label word", "a,b,yes,1\n", false, 1, `label "yes" not in`},
		{"csv header line", "instance,bag,label,f1\na,b,1,1\n", false, 1, `label "label" not in {0, 1, -1, +1} (the format has no header line)`},
		{"csv mixed labels", "a,b,0,1\nc,d,1,1\nc,e,-1,1\n", false, 3, "labels mix conventions: 0 on line 1, -1 on line 3"},
		{"csv empty bag id", "a, ,1,1\n", false, 1, "empty bag id"},
		{"csv empty instance id", ",b,1,1\n", false, 1, "empty instance id"},
		{"csv line numbers count blank lines", "\n\na,b,1,1\r\nc,b,1,x\r\n", false, 4, `field 4: "x"`},
		{"sparse bad header", "# features: abc\n1:1:1 1:1\n", true, 1, `bad # features: header: "abc" is not a positive integer`},
		{"sparse zero header", "#features:0\n", true, 1, "bad # features: header"},
		{"sparse late header", "1:1:1 1:1\n# features: 3\n", true, 2, "# features: header after the first instance (line 1)"},
		{"sparse contradicting header", "# features: 3\n# features: 4\n", true, 2, "# features: 4 contradicts 3 on line 1"},
		{"sparse index out of range", "# features: 3\n1:1:1 4:1\n", true, 2, "feature index 4 out of range 1..3"},
		{"sparse index not increasing", "1:1:1 3:1 2:1\n", true, 1, "feature index 2 not greater than previous index 3"},
		{"sparse index repeated", "1:1:1 2:1 2:1\n", true, 1, "feature index 2 not greater than previous index 2"},
		{"sparse index zero", "1:1:1 0:1\n", true, 1, `feature index "0" is not a positive integer`},
		{"sparse index negative", "1:1:1 -2:1\n", true, 1, `feature index "-2" is not a positive integer`},
		{"sparse index huge", "1:1:1 99999999999:1\n", true, 1, `feature index "99999999999" is not a positive integer`},
		{"sparse token without colon", "1:1:1 5\n", true, 1, `feature "5", want index:value`},
		{"sparse head two fields", "1:1 2:1\n", true, 1, `first token "1:1", want instance_id:bag_id:label`},
		{"sparse head four fields", "1:1:1:1 2:1\n", true, 1, `first token "1:1:1:1"`},
		{"sparse not a number", "1:1:1 2:abc\n", true, 1, `feature 2: "abc" is not a number`},
		{"sparse NaN", "x:1:1\n1:1:1 2:nan\n", true, 2, `feature 2: "nan" is not finite`},
		{"sparse label conflict", "# features: 2\na:1:1\nb:2:0\nc:1:-1 1:1\n", true, 4, `labels mix conventions: 0 on line 3, -1 on line 4`},
		{"sparse label conflict same convention", "# features: 2\na:1:1\nb:2:0\nc:1:0 1:1\n", true, 4, `bag "1" has label 0 here but 1 on line 2`},
		{"sparse bad label", "a:1:+2 1:1\n", true, 1, `label "+2" not in`},
		{"sparse empty bag id", "a::1 1:1\n", true, 1, "empty bag id"},
		{"sparse empty instance id", ":b:1 1:1\n", true, 1, "empty instance id"},
	} {
		t.Run(c.name, func(t *testing.T) {
			read := ReadCSV
			if c.sparse {
				read = ReadSparse
			}
			d, err := read(strings.NewReader(c.in), nil)
			if d != nil {
				t.Error("a dataset was returned with the error")
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *ParseError", err)
			}
			if pe.Line != c.line || !strings.Contains(pe.Msg, c.msg) {
				t.Errorf("got line %d %q, want line %d containing %q", pe.Line, pe.Msg, c.line, c.msg)
			}
			if !strings.HasPrefix(err.Error(), "mil: line ") {
				t.Errorf("message %q does not start with the line", err)
			}
		})
	}
}

func TestLoaderNoInstances(t *testing.T) {
	for _, c := range []struct {
		in     string
		sparse bool
	}{{"", false}, {"\n  \n\r\n", false}, {"", true}, {"# features: 3\n# just comments\n\n", true}} {
		read := ReadCSV
		if c.sparse {
			read = ReadSparse
		}
		if d, err := read(strings.NewReader(c.in), nil); d != nil || !errors.Is(err, ErrNoInstances) {
			t.Errorf("%q (sparse %v): got %v, want ErrNoInstances", c.in, c.sparse, err)
		}
	}
	// Instances but no dimension at all.
	if _, err := ReadSparse(strings.NewReader("a:b:1\n"), nil); err == nil || !strings.Contains(err.Error(), "number of features unknown") {
		t.Errorf("got %v", err)
	}
}

type failingReader struct{ n int }

func (r *failingReader) Read(p []byte) (int, error) {
	if r.n > 0 {
		r.n--
		return copy(p, "a,b,1,2\n"), nil
	}
	return 0, errors.New("disk on fire")
}

func TestLoaderReadError(t *testing.T) {
	d, err := ReadCSV(&failingReader{n: 3}, nil)
	if d != nil || err == nil || !strings.Contains(err.Error(), "disk on fire") || !strings.Contains(err.Error(), "line 4") {
		t.Errorf("got %v", err)
	}
}

func TestReadSniffsFormat(t *testing.T) {
	csv := "i1,b1,1,0.5,0\ni2,b2,0,0,1\n"
	sp := "i1:b1:1 1:0.5\ni2:b2:0 2:1\n"
	for _, in := range []string{csv, sp, "\n\n" + csv, "# features: 2\n" + sp} {
		d, err := Read(strings.NewReader(in), &LoadOptions{Storage: Dense})
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		want := []string{"b1/i1/0.5 0/1", "b2/i2/0 1/0"}
		if got := dump(d); !slices.Equal(got, want) {
			t.Errorf("%q: got %q", in, got)
		}
	}
}

func TestLoadFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, name := range []string{"a.csv", "a.CSV", "a.data"} {
		d, err := LoadFile(write(name, "i1,b1,1,0.5\n"), nil)
		if err != nil || d.NumInstances() != 1 {
			t.Errorf("%s: %v", name, err)
		}
	}
	for _, name := range []string{"a.svm", "a.libsvm", "a.sparse", "a.txt"} {
		d, err := LoadFile(write(name, "i1:b1:1 1:0.5\n"), nil)
		if err != nil || d.NumInstances() != 1 {
			t.Errorf("%s: %v", name, err)
		}
	}
	// The extension wins over the content, and errors carry the file name.
	p := write("b.csv", "i1:b1:1 1:0.5\n")
	_, err := LoadFile(p, nil)
	var pe *ParseError
	if !errors.As(err, &pe) || pe.File != p || !strings.HasPrefix(err.Error(), "mil: "+p+": line 1: ") {
		t.Errorf("got %v", err)
	}
	if _, err := LoadFile(filepath.Join(dir, "missing.csv"), nil); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: got %v", err)
	}
	if _, err := LoadFile(write("e.svm", ""), nil); !errors.Is(err, ErrNoInstances) || !strings.Contains(err.Error(), "e.svm") {
		t.Errorf("empty file: got %v", err)
	}
}

// TestLoaderAllocations checks that parsing does not allocate per field:
// a 2000-line file costs a bounded number of allocations (slice growth and
// one string per bag), not one per value.
func TestLoaderAllocations(t *testing.T) {
	var csv, sp bytes.Buffer
	sp.WriteString("# features: 50\n")
	for i := range 2000 {
		bag := strconv.Itoa(i / 10)
		csv.WriteString("inst" + strconv.Itoa(i) + "," + bag + ",1")
		sp.WriteString("inst" + strconv.Itoa(i) + ":" + bag + ":1")
		for j := range 50 {
			csv.WriteString(",-1.234567e-01")
			if j%7 == 0 {
				sp.WriteString(" " + strconv.Itoa(j+1) + ":0.5")
			}
		}
		csv.WriteByte('\n')
		sp.WriteByte('\n')
	}
	for name, f := range map[string]func(){
		"csv":    func() { _, _ = ReadCSV(bytes.NewReader(csv.Bytes()), nil) },
		"sparse": func() { _, _ = ReadSparse(bytes.NewReader(sp.Bytes()), nil) },
	} {
		if a := testing.AllocsPerRun(3, f); a > 400 {
			t.Errorf("%s: %v allocations for 2000 instances in 200 bags", name, a)
		}
	}
}

func benchmarkLoad(b *testing.B, name string) {
	raw, err := os.ReadFile(datadir.File(b, name))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Read(bytes.NewReader(raw), nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadVaccine parses vaccine.svm (766 kB, 41537 instances) from
// memory; ns/op is the load time, B/op the memory allocated.
func BenchmarkLoadVaccine(b *testing.B) { benchmarkLoad(b, "vaccine.svm") }

// BenchmarkLoadFox parses fox.csv (2.9 MB, 1320 x 230 values) from memory.
func BenchmarkLoadFox(b *testing.B) { benchmarkLoad(b, "fox.csv") }

// TestLoaderHugeDimension holds two fuzzer findings: a tiny sparse file with
// a huge feature index (or header) must not make the loader allocate
// rows*cols or a dense row of cols values. Sparse storage works with memory
// proportional to the file; dense storage beyond MaxDenseCells is an error.
func TestLoaderHugeDimension(t *testing.T) {
	scattered := "a:1:1 2147483646:2\nb:2:0 3:3\nc:1:1 1:-1\n"
	d, err := ReadSparse(strings.NewReader(scattered), &LoadOptions{Storage: Sparse})
	if err != nil {
		t.Fatal(err)
	}
	if d.NumFeatures() != 2147483646 || d.NumBags() != 2 || d.NNZ() != 3 || !d.IsSparse() {
		t.Fatalf("got %d features, %d bags, %d non-zeros, sparse %v", d.NumFeatures(), d.NumBags(), d.NNZ(), d.IsSparse())
	}
	header := "# features: 2147483646\ni:b:1 1:1\n"
	if _, err := ReadSparse(strings.NewReader(header), &LoadOptions{Storage: Dense}); err == nil || !strings.Contains(err.Error(), "MaxDenseCells") {
		t.Errorf("dense storage of a 2^31-column matrix: error %v, want one naming MaxDenseCells", err)
	}
	// Auto with any threshold stores it sparse rather than failing.
	d, err = ReadSparse(strings.NewReader(header), &LoadOptions{SparseDensity: 1e-300})
	if err != nil || !d.IsSparse() {
		t.Errorf("Auto: error %v, want sparse storage", err)
	}
}
