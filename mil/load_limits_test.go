package mil

import (
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// What the loaders allocate is proportional to what they read, for every
// combination of options, or a cap refuses; a read error is returned as
// such; LoadFile cannot block on a file that never ends.

// tinyHugeHeader is a 2.4 kB sparse file declaring 2^20 features over 256
// empty instances: dense storage of it is 2 GiB.
func tinyHugeHeader() string {
	return "# features: 1048576\n" + strings.Repeat("a:b:1\n", 200) + strings.Repeat("c:d:0\n", 56)
}

// TestLoaderDenseTinyFileRefused: dense storage of the file above is
// refused (MaxDenseCellsPerByte) rather than allocated, whatever
// MaxDenseCells allows; Auto, and Auto with a density threshold that
// makes every matrix dense, store it sparse. The child's address space is
// 1 GiB: the 2 GiB it asked for before took the process down.
func TestLoaderDenseTinyFileRefused(t *testing.T) {
	if !inChild(t, childBudget) {
		return
	}
	in := tinyHugeHeader()
	require.Less(t, len(in), 2500)
	for _, o := range []*LoadOptions{{Storage: Dense}, {Storage: Dense, MaxDenseCells: math.MaxInt}} {
		d, err := ReadSparse(strings.NewReader(in), o)
		assert.Nil(t, d)
		requireBadInput(t, err, true, "dense storage of 256 x 1048576 values exceeds the cap of 16 values per byte of the 1556-byte input (MaxDenseCellsPerByte)")
	}
	for _, o := range []*LoadOptions{nil, {SparseDensity: 1e-300}, {SparseDensity: 1e-300, MaxDenseCells: math.MaxInt}} {
		d, err := Read(strings.NewReader(in), o)
		require.NoError(t, err)
		assert.True(t, d.IsSparse())
		assert.Equal(t, 256, d.NumInstances())
	}
	logPeak(t)
}

// TestLoaderDenseAtPerByteCap: the per-byte cap is inclusive: a 28-byte
// file of 2 instances may be stored dense with up to 16 x 28 / 2 = 224
// features, not 225.
func TestLoaderDenseAtPerByteCap(t *testing.T) {
	for _, c := range []struct {
		n  string
		ok bool
	}{{"224", true}, {"225", false}} {
		text := "# features: " + c.n + "\na:b:1\nc:d:0\n"
		require.Len(t, text, 28)
		d, err := ReadSparse(strings.NewReader(text), &LoadOptions{Storage: Dense})
		if c.ok {
			require.NoError(t, err, c.n)
			assert.False(t, d.IsSparse())
		} else {
			requireBadInput(t, err, true, "dense storage of 2 x 225 values exceeds the cap of 16 values per byte of the 28-byte input")
		}
	}
}

// TestLoadFileHoleyFile: an 8 GB file holding one short line and then
// nothing but zero bytes (a sparse file: no disk space) is refused for its
// second line, longer than MaxLineBytes, after reading about 16 MiB: the
// file's size is not trusted to size the dense array (it asked for 2^28
// values, 2 GiB, at the first line).
func TestLoadFileHoleyFile(t *testing.T) {
	if !inChild(t, childBudget) {
		return
	}
	path := filepath.Join(t.TempDir(), "holey.csv")
	f, err := os.Create(path)
	require.NoError(t, err)
	_, err = f.WriteString("a,b,1,1\n")
	require.NoError(t, err)
	if err := f.Truncate(8 << 30); err != nil {
		f.Close()
		t.Skipf("no sparse file here: %v", err)
	}
	require.NoError(t, f.Close())
	d, err := LoadFile(path, nil)
	assert.Nil(t, d)
	requireBadInput(t, err, true, "line 2: line longer than the cap of 16777216 bytes")
	logPeak(t)
}

// TestLoaderDenseGrowsWithInput: the dense array of a CSV input is sized
// by what was read, not by the size the input announces: a reader that
// reports 1 GB but holds one line allocates kilobytes.
func TestLoaderDenseGrowsWithInput(t *testing.T) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	d, err := readCSV(strings.NewReader("a,b,1,1,2\nc,d,0,3,4\n"), limitsOf(t, nil), 1<<30)
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	assert.Equal(t, 2, d.NumInstances())
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(2<<20), "bytes allocated for 20 bytes announced as 1 GB")
}

func limitsOf(t *testing.T, o *LoadOptions) limits {
	t.Helper()
	l, err := o.resolve()
	require.NoError(t, err)
	return l
}

// TestLoaderMaxLineBytesSaturates: a line cap near MaxInt means no cap
// on the line (the scanner's limit saturates instead of overflowing into
// a negative size, which panicked).
func TestLoaderMaxLineBytesSaturates(t *testing.T) {
	for _, n := range []int{math.MaxInt, math.MaxInt - 1, math.MaxInt - 2, math.MaxInt - 3} {
		o := &LoadOptions{MaxLineBytes: n}
		require.NoError(t, o.Validate())
		var d *Dataset
		var err error
		noPanic(t, "MaxLineBytes", func() { d, err = Read(strings.NewReader("a,b,1,1\nc,d,0,2\n"), o) })
		require.NoError(t, err, n)
		assert.Equal(t, 2, d.NumInstances())
	}
}

// cutReader yields s, then fails with err.
type cutReader struct {
	s   string
	err error
}

func (r *cutReader) Read(p []byte) (int, error) {
	if r.s == "" {
		return 0, r.err
	}
	n := copy(p, r.s)
	r.s = r.s[n:]
	return n, nil
}

// TestLoaderReadErrorMidLine: a read that fails within a line returns
// the read error (matchable, with the line), not a parse error of the
// part of the line that arrived; the lines before it parse as usual, so a
// parse error there is still reported.
func TestLoaderReadErrorMidLine(t *testing.T) {
	errDisk := errors.New("disk on fire")
	for _, c := range []struct {
		name string
		read func(io.Reader, *LoadOptions) (*Dataset, error)
		in   string
	}{
		{"csv", ReadCSV, "a,b,1,1,2\nc,d,0,3,"},
		{"csv, cut in a label", ReadCSV, "a,b,1,1,2\nc,d,"},
		{"sparse", ReadSparse, "a:b:1 1:1\nc:d:0 2:"},
	} {
		d, err := c.read(&cutReader{s: c.in, err: errDisk}, nil)
		assert.Nil(t, d, c.name)
		require.ErrorIs(t, err, errDisk, c.name)
		assert.Contains(t, err.Error(), "reading line 2", c.name)
		var pe *ParseError
		assert.False(t, errors.As(err, &pe), "%s: %v is a parse error", c.name, err)
		assert.NotErrorIs(t, err, ErrBadInput, c.name)
	}
	// Read fails on the first read, sniffing the format.
	_, err := Read(&cutReader{s: "a,b,1,1,2\nc,d,0,3", err: errDisk}, nil)
	require.ErrorIs(t, err, errDisk)
	_, err = ReadCSV(&cutReader{s: "a,b,1,x\nc,d,0,3,", err: errDisk}, nil)
	requireBadInput(t, err, false, `line 1: field 4: "x" is not a number`)
	// A last line without its line end is a line when the input ends.
	d, err := ReadCSV(&cutReader{s: "a,b,1,1\nc,d,0,3", err: io.EOF}, nil)
	require.NoError(t, err)
	assert.Equal(t, 2, d.NumInstances())
}

// TestLoadFileRefusesDirectory: LoadFile reads regular files only.
func TestLoadFileRefusesDirectory(t *testing.T) {
	d, err := LoadFile(t.TempDir(), nil)
	assert.Nil(t, d)
	requireBadInput(t, err, false, "is not a regular file (mode d")
	_, err = LoadFile(filepath.Join(t.TempDir(), "missing.csv"), nil)
	require.ErrorIs(t, err, os.ErrNotExist)
}

// loadWithin runs LoadFile(path) and fails t if it has not returned
// within limit.
func loadWithin(t *testing.T, path string, limit time.Duration) (*Dataset, error) {
	t.Helper()
	type result struct {
		d   *Dataset
		err error
	}
	done := make(chan result, 1)
	go func() {
		d, err := LoadFile(path, nil)
		done <- result{d, err}
	}()
	select {
	case r := <-done:
		return r.d, r.err
	case <-time.After(limit):
		t.Fatalf("LoadFile(%s) has not returned after %v", path, limit)
		return nil, nil
	}
}
