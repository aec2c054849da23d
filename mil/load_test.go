package mil

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/neadmm/neadmm/internal/datadir"
)

func TestLoadFox(t *testing.T) {
	d, err := LoadFile(datadir.File(t, "fox.csv"), nil)
	require.NoError(t, err)
	// Counts from ../shared/data/README.md.
	checkCounts(t, d, 200, 100, 1320, 230)
	assert.False(t, d.IsSparse(), "fox.csv (density 0.62) should be stored dense")
	// Non-zero count: awk -F, '{for(i=4;i<=NF;i++) if ($i+0 != 0) n++} END {print n}' fox.csv
	assert.Equal(t, 188760, d.NNZ())
	assert.Equal(t, "fox_data_1", d.BagID(0))
	assert.Equal(t, "Bag_1+1", d.InstanceID(0))
	assert.Equal(t, "fox_data_200", d.BagID(199))
}

func TestLoadVaccine(t *testing.T) {
	d, err := LoadFile(datadir.File(t, "vaccine.svm"), nil)
	require.NoError(t, err)
	checkCounts(t, d, 1572, 566, 41537, 234)
	assert.True(t, d.IsSparse(), "vaccine.svm (density 0.005) should be stored sparse")
	// About 1.2 non-zeros per row (README); exactly, the number of j:v
	// tokens: grep -v '^#' vaccine.svm | awk '{n += NF-1} END {print n}'.
	assert.Equal(t, 49770, d.NNZ())
	zero := 0
	row := make([]float64, d.NumFeatures())
	for i := range d.NumInstances() {
		require.NoError(t, d.Row(row, i))
		if !slices.ContainsFunc(row, func(v float64) bool { return v != 0 }) {
			zero++
		}
	}
	assert.Equal(t, 99, zero, "all-zero instances")
	sizes := make([]int, d.NumBags())
	for k := range sizes {
		s, e := d.BagRange(k)
		sizes[k] = e - s
	}
	slices.Sort(sizes)
	n := len(sizes)
	assert.Equal(t, []int{1, 3414, 5, 5}, []int{sizes[0], sizes[n-1], sizes[n/2-1], sizes[n/2]}, "bag sizes: min, max, median")
	assert.Equal(t, "1", d.BagID(0))
	assert.Equal(t, "1", d.InstanceID(0))
	assert.Equal(t, "41537", d.InstanceID(d.NumInstances()-1))
	// The same file forced dense gives the same rows.
	dd, err := LoadFile(datadir.File(t, "vaccine.svm"), &LoadOptions{Storage: Dense})
	require.NoError(t, err)
	assert.False(t, dd.IsSparse())
	assert.Equal(t, d.NNZ(), dd.NNZ())
}

func checkCounts(t *testing.T, d *Dataset, bags, pos, inst, feat int) {
	t.Helper()
	assert.Equal(t, []int{bags, pos, inst, feat}, []int{d.NumBags(), d.Positives(), d.NumInstances(), d.NumFeatures()},
		"bags, positive bags, instances, features")
	require.Len(t, d.BagPtr(), bags+1)
	assert.Equal(t, inst, d.BagPtr()[bags])
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
	require.NoError(t, err)
	want := []string{"B/i1/1 0/1", "B/i3/3 0/1", "A/i2/2 0/0", "A/i5/5 -0.001/0", "C/i4/4 0/0"}
	assert.Equal(t, want, dump(d))
	assert.Equal(t, []int{0, 2, 4, 5}, d.BagPtr())
	// The same through the sparse format, scattered the same way, with
	// -1/+1 labels and an explicit zero.
	sp := "# a comment\n# features: 2\ni1:B:+1 1:1\ni2:A:-1 1:2 2:0\ni3:B:1 1:3\ni4:C:-1 1:4\ni5:A:-1 1:5 2:-1e-3\n"
	for _, s := range []Storage{Auto, Dense, Sparse} {
		ds, err := ReadSparse(strings.NewReader(sp), &LoadOptions{Storage: s})
		require.NoError(t, err)
		assert.Equal(t, want, dump(ds), "sparse format, %v", s)
		assert.Equal(t, 6, ds.NNZ(), "sparse format, %v: the explicit zero is dropped", s)
	}
}

func TestReadSparseWithoutHeader(t *testing.T) {
	d, err := ReadSparse(strings.NewReader("a:x:0 3:1.5\nb:x:0\nc:y:1 1:2 7:1\n"), nil)
	require.NoError(t, err)
	assert.Equal(t, []int{7, 3, 2}, []int{d.NumFeatures(), d.NumInstances(), d.NumBags()}, "features, instances, bags")
	// Density 3/21 = 0.14 < 0.15: sparse; with a lower threshold, dense.
	assert.True(t, d.IsSparse())
	d2, err := ReadSparse(strings.NewReader("a:x:0 3:1.5\nb:x:0\nc:y:1 1:2 7:1\n"), &LoadOptions{SparseDensity: 0.1})
	require.NoError(t, err)
	assert.False(t, d2.IsSparse(), "SparseDensity 0.1 should choose dense at density 0.14")
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
			var d *Dataset
			var err error
			noPanic(t, c.name, func() { d, err = read(strings.NewReader(c.in), nil) })
			assert.Nil(t, d, "a dataset was returned with the error")
			var pe *ParseError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, c.line, pe.Line)
			assert.Contains(t, pe.Msg, c.msg)
			assert.True(t, strings.HasPrefix(err.Error(), "mil: line "), "message %q does not start with the line", err)
			requireBadInput(t, err, false, c.msg)
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
		d, err := read(strings.NewReader(c.in), nil)
		assert.Nil(t, d)
		require.ErrorIs(t, err, ErrNoInstances, "%q (sparse %v)", c.in, c.sparse)
		require.ErrorIs(t, err, ErrBadInput)
		assert.Equal(t, "mil: no instances", err.Error())
	}
	// Instances but no dimension at all.
	_, err := ReadSparse(strings.NewReader("a:b:1\n"), nil)
	requireBadInput(t, err, false, "number of features unknown")
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
	assert.Nil(t, d)
	require.ErrorContains(t, err, "mil: reading line 4: disk on fire")
	assert.NotErrorIs(t, err, ErrBadInput, "a read error is not bad input")
}

func TestReadSniffsFormat(t *testing.T) {
	csv := "i1,b1,1,0.5,0\ni2,b2,0,0,1\n"
	sp := "i1:b1:1 1:0.5\ni2:b2:0 2:1\n"
	for _, in := range []string{csv, sp, "\n\n" + csv, "# features: 2\n" + sp} {
		d, err := Read(strings.NewReader(in), &LoadOptions{Storage: Dense})
		require.NoError(t, err, in)
		assert.Equal(t, []string{"b1/i1/0.5 0/1", "b2/i2/0 1/0"}, dump(d), in)
	}
}

func TestLoadFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(s), 0o644))
		return p
	}
	for _, name := range []string{"a.csv", "a.CSV", "a.data"} {
		d, err := LoadFile(write(name, "i1,b1,1,0.5\n"), nil)
		require.NoError(t, err, name)
		assert.Equal(t, 1, d.NumInstances(), name)
	}
	for _, name := range []string{"a.svm", "a.libsvm", "a.sparse", "a.txt"} {
		d, err := LoadFile(write(name, "i1:b1:1 1:0.5\n"), nil)
		require.NoError(t, err, name)
		assert.Equal(t, 1, d.NumInstances(), name)
	}
	// The extension wins over the content, and errors carry the file name.
	p := write("b.csv", "i1:b1:1 1:0.5\n")
	_, err := LoadFile(p, nil)
	var pe *ParseError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, p, pe.File)
	assert.True(t, strings.HasPrefix(err.Error(), "mil: "+p+": line 1: "), err.Error())
	require.ErrorIs(t, err, ErrBadInput)
	_, err = LoadFile(filepath.Join(dir, "missing.csv"), nil)
	require.ErrorIs(t, err, os.ErrNotExist)
	assert.NotErrorIs(t, err, ErrBadInput)
	_, err = LoadFile(write("e.svm", ""), nil)
	require.ErrorIs(t, err, ErrNoInstances)
	assert.Contains(t, err.Error(), "e.svm")
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

// TestLoaderHugeDimension: a tiny sparse file with a huge feature index
// or header must not make the loader, or anything after it, allocate in
// proportion to the dimension. Beyond LoadOptions.MaxFeatures it is an
// error naming the line; raised to the int32 limit, sparse storage works
// with memory proportional to the file, and dense storage beyond
// MaxDenseCells is an error.
func TestLoaderHugeDimension(t *testing.T) {
	header := "# features: 2147483646\na:1:1 1:1\nb:2:0 2:1\n" // 43 bytes
	require.Len(t, header, 43)
	scattered := "a:1:1 2147483646:2\nb:2:0 3:3\nc:1:1 1:-1\n"
	for _, c := range []struct{ name, in, msg string }{
		{"header", header, "line 1: # features: 2147483646 exceeds the cap of 1048576 (LoadOptions.MaxFeatures"},
		{"index", scattered, "line 1: feature index 2147483646 exceeds the cap of 1048576 features"},
		{"index past the cap", "a:1:1 1048577:2\nb:2:0 3:3\n", "line 1: feature index 1048577 exceeds the cap"},
	} {
		for _, read := range []func(io.Reader, *LoadOptions) (*Dataset, error){ReadSparse, Read} {
			var d *Dataset
			var err error
			noPanic(t, c.name, func() { d, err = read(strings.NewReader(c.in), nil) })
			assert.Nil(t, d)
			requireBadInput(t, err, true, c.msg)
			var pe *ParseError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, 1, pe.Line)
		}
	}
	// At the cap: accepted.
	d, err := ReadSparse(strings.NewReader("a:1:1 1048576:2\nb:2:0 3:3\n"), nil)
	require.NoError(t, err)
	assert.Equal(t, DefaultMaxFeatures, d.NumFeatures())

	raised := &LoadOptions{Storage: Sparse, MaxFeatures: MaxFeaturesLimit}
	d, err = ReadSparse(strings.NewReader(scattered), raised)
	require.NoError(t, err)
	assert.Equal(t, 2147483646, d.NumFeatures())
	assert.Equal(t, 2, d.NumBags())
	assert.Equal(t, 3, d.NNZ())
	assert.True(t, d.IsSparse())
	_, err = ReadSparse(strings.NewReader(header), &LoadOptions{Storage: Dense, MaxFeatures: MaxFeaturesLimit})
	requireBadInput(t, err, true, "dense storage of 2 x 2147483646 values exceeds the cap of 268435456 (LoadOptions.MaxDenseCells")
	// Auto with any threshold stores it sparse rather than failing, and
	// Convert(Dense) refuses it before allocating.
	d, err = ReadSparse(strings.NewReader(header), &LoadOptions{SparseDensity: 1e-300, MaxFeatures: MaxFeaturesLimit})
	require.NoError(t, err)
	assert.True(t, d.IsSparse())
	_, err = d.Convert(Dense)
	requireBadInput(t, err, true, "exceeds the cap")
}

// TestLoaderOptionsValidated: every option, an unknown Storage (7)
// included, is checked before the input is read.
func TestLoaderOptionsValidated(t *testing.T) {
	for _, o := range []*LoadOptions{{Storage: 7}, {Storage: -1}, {SparseDensity: math.NaN()}, {MaxFeatures: -1},
		{MaxFeatures: MaxFeaturesLimit + 1}, {MaxDenseCells: -1}, {MaxLineBytes: -1}} {
		for name, read := range map[string]func(io.Reader, *LoadOptions) (*Dataset, error){
			"ReadCSV": ReadCSV, "ReadSparse": ReadSparse, "Read": Read,
		} {
			r := &failingReader{} // reading it fails: the options must fail first
			d, err := read(r, o)
			assert.Nil(t, d)
			requireBadInput(t, err, false, "mil: LoadOptions.")
			assert.NotContains(t, err.Error(), "disk on fire", "%s read the input before checking %+v", name, o)
		}
		_, err := LoadFile("/nonexistent/x.csv", o)
		requireBadInput(t, err, false, "mil: LoadOptions.")
	}
}

func TestLoaderCaps(t *testing.T) {
	// CSV: the field count of the first line against MaxFeatures.
	_, err := ReadCSV(strings.NewReader("\na,b,1,1,2,3\n"), &LoadOptions{MaxFeatures: 2})
	requireBadInput(t, err, true, "line 2: 3 features exceed the cap of 2")
	d, err := ReadCSV(strings.NewReader("a,b,1,1,2,3\n"), &LoadOptions{MaxFeatures: 3})
	require.NoError(t, err)
	assert.Equal(t, 3, d.NumFeatures())

	// Sparse header against MaxFeatures.
	_, err = ReadSparse(strings.NewReader("# c\n# features: 6\na:b:1 1:1\n"), &LoadOptions{MaxFeatures: 5})
	requireBadInput(t, err, true, "line 2: # features: 6 exceeds the cap of 5")

	// Indices and headers beyond any cap, however many digits (2^32+1
	// once wrapped to 1 in a 32-bit int; past 2^31-1 they were "not a
	// positive integer" rather than too large).
	for _, c := range []struct{ in, msg string }{
		{"1:1:1 99999999999:1\n", "feature index 2147483647 or more exceeds the cap of 1048576"},
		{"1:1:1 4294967297:1\n", "feature index 2147483647 or more exceeds"},
		{"1:1:1 2147483648:1\n", "feature index 2147483647 or more exceeds"},
		{"1:1:1 2147483646:1\n", "feature index 2147483646 exceeds"},
		{"1:1:1 " + strings.Repeat("9", 400) + ":1\n", "feature index 2147483647 or more exceeds"},
		{"# features: 4294967300\n", "# features: 2147483647 or more exceeds"},
		{"# features: 2147483648\n", "# features: 2147483647 or more exceeds"},
	} {
		_, err = ReadSparse(strings.NewReader(c.in), nil)
		requireBadInput(t, err, true, "line 1: "+c.msg)
	}

	// A line of exactly MaxLineBytes (its line end not counted) is read,
	// one byte more is refused, with "\n" or "\r\n" ends or none.
	row := "a,b,1,1,2"
	for _, end := range []string{"\n", "\r\n", ""} {
		// The last line has no line end when end is "".
		d, err := ReadCSV(strings.NewReader(row+"\n"+row+end), &LoadOptions{MaxLineBytes: len(row)})
		require.NoError(t, err, "end %q", end)
		assert.Equal(t, 2, d.NumInstances())
		_, err = ReadCSV(strings.NewReader(row+"\n"+row+"3"+end), &LoadOptions{MaxLineBytes: len(row)})
		requireBadInput(t, err, true, "line 2: line longer than the cap of 9 bytes")
		require.ErrorIs(t, err, bufio.ErrTooLong)
	}

	// A line longer than MaxLineBytes, in both formats.
	long := "a,b,1," + strings.Repeat("1,", 100) + "1\n"
	for _, read := range []func(io.Reader, *LoadOptions) (*Dataset, error){ReadCSV, ReadSparse} {
		_, err = read(strings.NewReader("\n\n"+long), &LoadOptions{MaxLineBytes: 100})
		requireBadInput(t, err, true, "line 3: line longer than the cap of 100 bytes (LoadOptions.MaxLineBytes")
		require.ErrorIs(t, err, bufio.ErrTooLong)
	}
	d, err = ReadCSV(strings.NewReader(long), &LoadOptions{MaxLineBytes: len(long)})
	require.NoError(t, err)
	assert.Equal(t, 101, d.NumFeatures())

	// Rows beyond MaxDenseCells accumulate sparse: the same dataset, and
	// Dense storage is refused.
	csv := "a,x,1,1,0,0\nb,x,1,0,2,0\nc,y,0,0,0,3\nd,x,1,4,0,0\n"
	want, err := ReadCSV(strings.NewReader(csv), &LoadOptions{Storage: Sparse})
	require.NoError(t, err)
	got, err := ReadCSV(strings.NewReader(csv), &LoadOptions{MaxDenseCells: 7})
	require.NoError(t, err)
	assert.Equal(t, dump(want), dump(got))
	assert.True(t, got.IsSparse())
	_, err = ReadCSV(strings.NewReader(csv), &LoadOptions{Storage: Dense, MaxDenseCells: 7})
	requireBadInput(t, err, true, "dense storage of 4 x 3 values exceeds the cap of 7")
}

// TestLoaderBOM: a UTF-8 byte order mark at the start of the input is
// skipped by every loader, rather than kept in the first instance id
// (CSV) or read as part of the first token "\ufeff#" (sparse).
func TestLoaderBOM(t *testing.T) {
	dir := t.TempDir()
	csv := bom + "i1,b1,1,0.5,0\ni2,b2,0,0,1\n"
	sp := bom + "# features: 2\ni1:b1:1 1:0.5\ni2:b2:0 2:1\n"
	spNoHeader := bom + "i1:b1:1 1:0.5\ni2:b2:0 2:1\n"
	blankFirst := bom + "\n\ni1,b1,1,0.5,0\ni2,b2,0,0,1\n"
	want := []string{"b1/i1/0.5 0/1", "b2/i2/0 1/0"}
	for _, c := range []struct {
		name string
		in   string
		read func(io.Reader, *LoadOptions) (*Dataset, error)
		ext  string
	}{
		{"csv", csv, ReadCSV, ".csv"}, {"csv by Read", csv, Read, ".data"},
		{"sparse", sp, ReadSparse, ".svm"}, {"sparse by Read", sp, Read, ".txt"},
		{"sparse without header", spNoHeader, ReadSparse, ".sparse"}, {"sparse without header by Read", spNoHeader, Read, ".dat"},
		{"blank first line", blankFirst, ReadCSV, ".csv"},
	} {
		d, err := c.read(strings.NewReader(c.in), nil)
		require.NoError(t, err, c.name)
		assert.Equal(t, want, dump(d), c.name)
		p := filepath.Join(dir, "f"+c.ext)
		require.NoError(t, os.WriteFile(p, []byte(c.in), 0o644))
		d, err = LoadFile(p, nil)
		require.NoError(t, err, c.name)
		assert.Equal(t, want, dump(d), "LoadFile %s", c.name)
	}
	// Only at the start: elsewhere it is data (here, an instance id).
	d, err := ReadCSV(strings.NewReader("i1,b1,1,1\n"+bom+"i2,b1,1,2\n"), nil)
	require.NoError(t, err)
	assert.Equal(t, bom+"i2", d.InstanceID(1))
}

// TestHeaderLookalikes: a comment that looks like the header spelled
// another way ("# Features: 5", "# features = 5") is an error naming the
// line, not a comment after which the dimension is inferred; comments
// that merely mention features are still comments.
func TestHeaderLookalikes(t *testing.T) {
	for _, h := range []string{
		"# Features: 5", "# features = 5", "# FEATURES:5", "#Features : 5", "# feature: 5", "# features=5",
		"# n_features: 5", "# num-features = 5", "# Number of features: 5", "# dim: 5", "# dimension = 5",
		"# features 5", "#features\t5", "# Features: 5 (from the paper)", "# nfeatures: +5",
		"# dims: -1",
	} {
		in := "x:y:1 1:1\n"
		_, err := ReadSparse(strings.NewReader("# a real comment\n"+h+"\n"+in), nil)
		requireBadInput(t, err, false, "line 2: comment ")
		assert.Contains(t, err.Error(), "looks like a misspelt header: write `# features: D`", h)
		var pe *ParseError
		require.ErrorAs(t, err, &pe)
		assert.Equal(t, 2, pe.Line, h)
	}
	for _, c := range []string{
		"# features are counts", "# features 2 and 3 are correlated", "# Features: see the paper",
		"#", "# feature selection: 5 rounds", "# selected features = top 5",
		"# dimension of the data: 5", "# 5 features", "# features2: 5", "# d: 5", "# featuresX: 5",
		"# labels: 0/1", "# features\t2\tand 3",
	} {
		d, err := ReadSparse(strings.NewReader(c+"\nx:y:1 3:1\n"), nil)
		require.NoError(t, err, "%q", c)
		assert.Equal(t, 3, d.NumFeatures(), "%q", c)
	}
	// The header itself, with its allowed spacing.
	for _, h := range []string{"# features: 4", "#features:4", "#  features :  4  "} {
		d, err := ReadSparse(strings.NewReader(h+"\nx:y:1 3:1\n"), nil)
		require.NoError(t, err, h)
		assert.Equal(t, 4, d.NumFeatures(), h)
	}
}

// endless yields the same bytes forever (a stream, not a file).
type endless struct{ b []byte }

func (e endless) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		n += copy(p[n:], e.b)
	}
	return n, nil
}

// stalled returns (0, nil) forever.
type stalled struct{}

func (stalled) Read([]byte) (int, error) { return 0, nil }

// Loaders return, with an error, on input that never ends a line or a
// reader that never makes progress.
func TestLoaderNeverHangs(t *testing.T) {
	for name, r := range map[string]func() io.Reader{
		"one endless line": func() io.Reader { return endless{[]byte("1:2 ")} },
		"no progress":      func() io.Reader { return stalled{} },
	} {
		for _, read := range []func(io.Reader, *LoadOptions) (*Dataset, error){ReadCSV, ReadSparse, Read} {
			done := make(chan error, 1)
			go func() {
				_, err := read(r(), &LoadOptions{MaxLineBytes: 1 << 20})
				done <- err
			}()
			select {
			case err := <-done:
				require.Error(t, err, name)
				if name == "no progress" {
					require.ErrorIs(t, err, io.ErrNoProgress)
				} else {
					requireBadInput(t, err, true, "line 1: line longer than the cap of 1048576 bytes")
				}
			case <-time.After(time.Minute):
				t.Fatalf("%s: no return after a minute", name)
			}
		}
	}
}

// The loaders allocate in proportion to their input: for files shaped to
// make the most of each byte (one-character instances, a bag per line, a
// header at the default cap, a tiny file with that header), under every
// storage option (Dense, and Auto with a threshold that makes any matrix
// dense, refused or stored sparse beyond MaxDenseCellsPerByte), the bytes
// allocated (garbage included) stay within a fixed multiple of the input,
// so a tiny file cannot exhaust memory: 64 bytes per byte, besides the
// buffers of fixed size (the line scanner's and Read's, 64 KiB each).
// Measured: 11 (CSV) to 39 (a bag per line) bytes per input byte.
func TestLoaderMemoryProportional(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation measurement: skipped in -short")
	}
	gen := func(n int, line func(i int) string) string {
		var b strings.Builder
		for i := range n {
			b.WriteString(line(i))
		}
		return b.String()
	}
	const n = 50000
	inputs := map[string]string{
		"sparse, empty instances, huge header": "# features: 1048576\n" + gen(n, func(int) string { return "a:b:1\n" }),
		"sparse, tiny file, huge header":       tinyHugeHeader(),
		"sparse, a bag per instance":           gen(n, func(i int) string { return "i:" + strconv.Itoa(i) + ":1 1:1\n" }),
		"sparse, many features":                gen(n/10, func(i int) string { return "i:b:1" + manyFeatures(50) + "\n" }),
		"sparse, scattered bags":               gen(n, func(i int) string { return "i:" + strconv.Itoa(i%2) + ":" + strconv.Itoa(i%2) + " 3:1\n" }),
		"csv, one feature":                     gen(n, func(int) string { return "a,b,1,1\n" }),
		"csv, scattered bags":                  gen(n, func(i int) string { return "a," + strconv.Itoa(i%3) + ",1,0,1\n" }),
	}
	var worst float64
	for name, in := range inputs {
		for _, o := range []LoadOptions{{Storage: Auto}, {Storage: Dense}, {Storage: Sparse},
			{SparseDensity: 1e-300}, {Storage: Dense, MaxDenseCells: math.MaxInt}} {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := Read(strings.NewReader(in), &o)
			runtime.ReadMemStats(&after)
			if o.Storage == Dense && strings.Contains(name, "huge header") {
				requireBadInput(t, err, true, "exceeds the cap")
			} else {
				require.NoError(t, err, name)
			}
			alloc := after.TotalAlloc - before.TotalAlloc
			ratio := float64(alloc) / float64(len(in))
			if len(in) > 256<<10 { // the fixed buffers dominate a tiny input
				worst = max(worst, ratio)
			}
			t.Logf("%-40s %+v %6d bytes in, %5.1f bytes allocated per byte", name, o, len(in), ratio)
			assert.Less(t, alloc, uint64(64*len(in)+256<<10), "%s, %+v", name, o) // measured: at most 39 per byte
		}
	}
	t.Logf("worst: %.1f bytes allocated per input byte (inputs above 256 KiB)", worst)
}

func manyFeatures(k int) string {
	var b strings.Builder
	for j := 1; j <= k; j++ {
		b.WriteString(" " + strconv.Itoa(j) + ":1")
	}
	return b.String()
}

// TestLoaderMessagesNameFirstLines: the messages name the first line of
// each thing they refer to, not the latest: the first 0 and the first -1
// label of a file mixing conventions, a bag's first instance when a later
// one disagrees, and the first line (after blank lines) that set the field
// count.
func TestLoaderMessagesNameFirstLines(t *testing.T) {
	for _, c := range []struct {
		in   string
		line int
		msg  string
	}{
		{"a,b,0,1\nc,d,0,1\ne,f,-1,1\n", 3, "labels mix conventions: 0 on line 1, -1 on line 3"},
		{"a,b,-1,1\nc,d,-1,1\ne,f,0,1\n", 3, "labels mix conventions: 0 on line 3, -1 on line 1"},
		{"a,b,1,1\nc,b,1,1\nd,e,1,1\nf,e,0,1\n", 4, `bag "e" has label 0 here but 1 on line 3`},
		{"\na,b,1,1,2\nc,b,1,3\n", 3, "4 fields, want 5 (3 + 2 features, as on line 2)"},
	} {
		_, err := ReadCSV(strings.NewReader(c.in), nil)
		var pe *ParseError
		require.ErrorAs(t, err, &pe, c.in)
		assert.Equal(t, c.line, pe.Line, c.in)
		assert.Contains(t, pe.Msg, c.msg)
		requireBadInput(t, err, false, c.msg)
	}
}

// TestLoaderLongLineCRLF: a line of exactly MaxLineBytes ended by "\r\n"
// is read when the cap is above the scanner's initial 64 KiB buffer (the
// buffer must grow to the line and its two end bytes); one byte more is
// refused as too large, on its line.
func TestLoaderLongLineCRLF(t *testing.T) {
	const maxLine = 1 << 17
	prefix := "a,b,1,1."
	line := prefix + strings.Repeat("0", maxLine-len(prefix)) // the value 1
	require.Len(t, line, maxLine)
	d, err := ReadCSV(strings.NewReader(line+"\r\nc,b,1,2\r\n"), &LoadOptions{MaxLineBytes: maxLine})
	require.NoError(t, err)
	require.Equal(t, 2, d.NumInstances())
	row := make([]float64, 1)
	require.NoError(t, d.Row(row, 0))
	assert.Equal(t, []float64{1}, row)

	_, err = ReadCSV(strings.NewReader("c,b,1,2\r\n"+line+"0\r\n"), &LoadOptions{MaxLineBytes: maxLine})
	requireBadInput(t, err, true, "line 2: line longer than the cap of 131072 bytes")
	require.ErrorIs(t, err, bufio.ErrTooLong)
}

// TestLoaderStorageBoundaries: MaxDenseCells caps rows x cols inclusively
// (6 cells of 3 x 2 are stored dense, 4 x 2 are refused), and Auto stores
// dense at a density exactly SparseDensity (sparse only below it).
func TestLoaderStorageBoundaries(t *testing.T) {
	rows := "a,x,1,1,2\nb,x,1,3,4\nc,y,0,5,6\n"
	d, err := ReadCSV(strings.NewReader(rows), &LoadOptions{Storage: Dense, MaxDenseCells: 6})
	require.NoError(t, err)
	assert.False(t, d.IsSparse())
	_, err = ReadCSV(strings.NewReader(rows+"d,y,0,7,8\n"), &LoadOptions{Storage: Dense, MaxDenseCells: 6})
	requireBadInput(t, err, true, "dense storage of 4 x 2 values exceeds the cap of 6")

	// 2 x 2 values: 2 non-zeros are density 1/2, 1 non-zero 1/4.
	d, err = ReadCSV(strings.NewReader("a,x,1,1,0\nb,y,0,0,2\n"), &LoadOptions{SparseDensity: 0.5})
	require.NoError(t, err)
	assert.False(t, d.IsSparse(), "density 1/2 at SparseDensity 1/2")
	d, err = ReadCSV(strings.NewReader("a,x,1,1,0\nb,y,0,0,0\n"), &LoadOptions{SparseDensity: 0.5})
	require.NoError(t, err)
	assert.True(t, d.IsSparse(), "density 1/4 below SparseDensity 1/2")
}

// TestBuilderDenseAccumulationCap: the Builder accumulates rows dense
// while rows x cols stays within its cap (2 rows of 3 under a cap of 6),
// and switches to sparse at the row that would pass it.
func TestBuilderDenseAccumulationCap(t *testing.T) {
	b := NewBuilder(3)
	b.denseCap = 6
	for i, wantSparse := range []bool{false, false, true} {
		require.NoError(t, b.AddDense("x", "i", 1, []float64{1, 0, 2}))
		assert.Equal(t, wantSparse, b.sparse, "after row %d", i+1)
	}
}

// TestBuilderIndexChecks: a dense row after a sparse one with index 2
// needs at least 3 features (2 is refused, the Builder unchanged), and a
// repeated index is not increasing.
func TestBuilderIndexChecks(t *testing.T) {
	b := NewBuilder(0)
	require.NoError(t, b.AddSparse("x", "i1", 1, []int{2}, []float64{5}))
	requireBadInput(t, b.AddDense("x", "i2", 1, []float64{1, 2}), false, "AddDense: 2 features, but index 2 was added")
	require.NoError(t, b.AddDense("x", "i2", 1, []float64{1, 2, 3}))
	d, err := b.Build(nil)
	require.NoError(t, err)
	assert.Equal(t, 3, d.NumFeatures())
	assert.Equal(t, 2, d.NumInstances())

	b = NewBuilder(0)
	requireBadInput(t, b.AddSparse("x", "i1", 1, []int{1, 1}, []float64{1, 2}), false, "AddSparse: index 1 not greater than previous index 1")
}

// TestNewSparseFeatureCap: numFeatures = DefaultMaxFeatures is allowed,
// one more is too large.
func TestNewSparseFeatureCap(t *testing.T) {
	d, err := NewSparse([]int{0, 1}, []int32{DefaultMaxFeatures - 1}, []float64{1}, DefaultMaxFeatures, []int{0, 1}, []float64{1})
	require.NoError(t, err)
	assert.Equal(t, DefaultMaxFeatures, d.NumFeatures())
	_, err = NewSparse([]int{0, 1}, []int32{0}, []float64{1}, DefaultMaxFeatures+1, []int{0, 1}, []float64{1})
	requireBadInput(t, err, true, "exceeds DefaultMaxFeatures")
}

// TestReadSparseTabsAndCommaComment: tokens may be separated by tabs, and
// Read tells a sparse file by its leading '#' even when that comment holds
// a comma; LoadFile picks the reader by extension in any case, even for
// content that Read would take for CSV (a comma in an instance id).
func TestReadSparseTabsAndCommaComment(t *testing.T) {
	want := []string{"b/i/2 0 4/1"}
	d, err := ReadSparse(strings.NewReader("i:b:1\t1:2\t\t3:4\n"), nil)
	require.NoError(t, err)
	assert.Equal(t, want, dump(d))
	d, err = Read(strings.NewReader("# made by hand, for a test\ni:b:1 1:2 3:4\n"), nil)
	require.NoError(t, err)
	assert.Equal(t, want, dump(d))

	dir := t.TempDir()
	for _, name := range []string{"a.libsvm", "a.SVM", "a.Sparse"} {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte("i,1:b:1 1:2 3:4\n"), 0o644))
		d, err := LoadFile(p, nil)
		require.NoError(t, err, name)
		assert.Equal(t, []string{"b/i,1/2 0 4/1"}, dump(d), name)
	}
	p := filepath.Join(dir, "a.CSV")
	require.NoError(t, os.WriteFile(p, []byte("i:b:1 1:2\n"), 0o644))
	_, err = LoadFile(p, nil)
	requireBadInput(t, err, false, "a.CSV: line 1: 1 fields")
}
