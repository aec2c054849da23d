package fuzz

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/neadmm/neadmm/mil"
)

// The loader targets feed arbitrary text to mil.ReadCSV / mil.ReadSparse
// and mil.Read. A loader must not panic (or hang: the fuzzer kills a worker
// stuck on one input); it returns either an error of a documented kind or a
// dataset that satisfies Dataset's invariants and holds exactly what a
// reference reading of the format (written here from the doc comments)
// finds in the text. The reference also decides acceptance: the loader must
// accept exactly the texts the reference accepts. Every input is read with
// Sparse storage, then, when the dense matrix is small, with the storage the
// option byte selects (the same content either way), and through Read,
// which must agree with the loader its first-line rule picks.

// maxDenseCells bounds rows*cols for the reads that may store dense, to keep
// each execution fast (the loaders themselves refuse dense storage beyond
// mil.DefaultMaxDenseCells and mil.MaxDenseCellsPerByte, checked
// separately).
const maxDenseCells = 1 << 20

// cells returns rows*cols without overflow on 32-bit platforms.
func cells(rows, cols int) int64 { return int64(rows) * int64(cols) }

// options decodes the option byte: nil (for 0), else the storage from the
// low two bits (Auto, Dense, Sparse, Auto), Auto's SparseDensity from the
// next two and MaxDenseCells from the next two (the default, or caps of 1,
// 7 and 64 cells, so that the loaders' switch from dense to sparse
// accumulation runs on small inputs).
func options(b byte) *mil.LoadOptions {
	if b == 0 {
		return nil
	}
	return &mil.LoadOptions{
		Storage:       [...]mil.Storage{mil.Auto, mil.Dense, mil.Sparse, mil.Auto}[b%4],
		SparseDensity: [...]float64{0, 0.01, 0.5, 1.5}[b>>2%4],
		MaxDenseCells: [...]int{0, 1, 7, 64}[b>>4%4],
	}
}

// denseCap returns the dense cap opt applies to an input of n bytes:
// MaxDenseCells (or its default), and at most MaxDenseCellsPerByte values
// per byte.
func denseCap(opt *mil.LoadOptions, n int) int64 {
	c := int64(mil.DefaultMaxDenseCells)
	if opt != nil && opt.MaxDenseCells != 0 {
		c = int64(opt.MaxDenseCells)
	}
	return min(c, mil.MaxDenseCellsPerByte*int64(max(n, 1)))
}

// FuzzReadCSV fuzzes the dense CSV loader (and Read on the same text).
func FuzzReadCSV(f *testing.F) {
	for _, s := range []string{
		"a,1,1,0.5,2\nb,1,1,3,4\nc,2,0,5,6\n",
		"1, b1, +1, 1e-320, 0x1p-3\r\n2, b2, -1, -0, 7\r\n\r\n3,b1,1,1,1",
		"i,b,-1,1\ni2,b,1,2\n",                 // label conflict
		"i,b,0,1\ni2,c,-1,2\n",                 // mixed conventions
		"i,b,1,1,2\ni2,b,1,2\n",                // ragged
		"i,b,1,NaN\n",                          // NaN
		"i,b,1,1e309\n",                        // overflow
		"i,b,2,1\n",                            // bad label
		"id,bag,label,f1\n",                    // header line
		"\n\n  \n",                             // no instances
		",b,1,1\n",                             // empty id
		"i,,1,1\n",                             // empty bag
		"x,1,1,1\ny,2,0,2\nz,1,1,3\nw,2,0,4\n", // scattered bags
		"i,b,1\n",                              // no feature
		"# comment\ni,b,1,1\n",                 // Read: sparse by the first line
		"\ufeffa,1,1,0.5\n",                    // byte order mark
	} {
		for o := range byte(4) {
			f.Add(s, o)
		}
	}
	f.Fuzz(func(t *testing.T, text string, opt byte) { checkLoad(t, text, opt, false) })
}

// FuzzReadSparse fuzzes the sparse loader (and Read on the same text).
func FuzzReadSparse(f *testing.F) {
	for _, s := range []string{
		"# features: 5\n1:b1:1 1:0.5 3:2\n2:b1:1\n3:b2:-1 5:1e-3\n",
		"i:b:0 2:1\ti2:x\n",                         // bad feature token
		"i:b:1 3:1 2:1\n",                           // decreasing index
		"# features: 2\ni:b:1 3:1\n",                // index out of range
		"i:b:1 1:0\n",                               // no non-zero feature, no header
		"i:b:1 0:1\n",                               // index 0
		"i:b:1 2147483647:1\n",                      // index limit
		"i:b:1 2147483646:1\n",                      // huge D without a header
		"# features: 2147483646\ni:b:1 1:1\n",       // huge D with a header
		"i:b:1 1:1\n# features: 3\n",                // late header
		"# features: 3\n# features: 4\ni:b:1 1:1\n", // contradicting headers
		"# features are counts\ni:b:1 1:1\n",        // a comment, not a header
		"# Features: 3\ni:b:1 1:1\n",                // a misspelt header
		"# n_features = 3\ni:b:1 1:1\n",             // a misspelt header
		"# features 3\ni:b:1 1:1\n",                 // a misspelt header
		"# features 2 and 3\ni:b:1 1:1\n",           // a comment
		"\ufeff# features: 2\ni:b:1 1:1\n",          // byte order mark
		"# features: 1048577\ni:b:1 1:1\n",          // header beyond the cap
		"i:b:1 1048577:1\n",                         // index beyond the cap
		"i:b 1:1\n",                                 // two fields
		"i:b:1:1 1:1\n",                             // four fields
		"i:b:1 1:NaN\n",                             // NaN
		"i:b:1 1:1e309\n",                           // overflow
		"a:1:1 1:1 2:2\nb:2:0 3:3\nc:1:1 1:-1\n",    // scattered bags
		"i,b,1,1\n",                                 // Read: CSV by the first line
	} {
		for o := range byte(4) {
			f.Add(s, o)
		}
	}
	f.Fuzz(func(t *testing.T, text string, opt byte) { checkLoad(t, text, opt, true) })
}

// instance is one instance of the reference reading.
type instance struct {
	id, bag string
	label   float64
	idx     []int // 0-based, increasing, non-zero values only
	val     []float64
}

// refData is the reference reading of a text: the instances in file order
// and the number of features, or the reason the text is invalid.
type refData struct {
	inst []instance
	cols int
	err  string
	line int
}

func checkLoad(t *testing.T, text string, optB byte, sparse bool) {
	read := mil.ReadCSV
	ref := refCSV(text)
	if sparse {
		read = mil.ReadSparse
		ref = refSparse(text)
	}
	d, err := read(strings.NewReader(text), &mil.LoadOptions{Storage: mil.Sparse})
	if err != nil {
		if d != nil {
			t.Errorf("error %v with a non-nil dataset", err)
		}
		if e := checkLoadError(err, text); e != nil {
			t.Error(e)
		}
		if ref.err == "" {
			t.Errorf("rejected with %q, but the format allows the text", err)
		}
	} else {
		if ref.err != "" {
			t.Errorf("accepted, but the format forbids the text: line %d: %s", ref.line, ref.err)
		}
		if e := checkDataset(d, &mil.LoadOptions{Storage: mil.Sparse}, len(text)); e != nil {
			t.Errorf("sparse storage: %v", e)
		}
		if ref.err == "" {
			if e := compareRef(d, ref); e != nil {
				t.Errorf("sparse storage: %v", e)
			}
		}
		if cells(d.NumInstances(), d.NumFeatures()) > mil.DefaultMaxDenseCells {
			// Dense storage this large must be refused, not attempted.
			if _, err := read(strings.NewReader(text), &mil.LoadOptions{Storage: mil.Dense}); !errors.Is(err, mil.ErrTooLarge) {
				t.Errorf("dense storage of %d x %d: error %v, want ErrTooLarge", d.NumInstances(), d.NumFeatures(), err)
			}
		}
		if cells(d.NumInstances(), d.NumFeatures()) <= maxDenseCells {
			opt := options(optB)
			d2, err := read(strings.NewReader(text), opt)
			tooBig := cells(d.NumInstances(), d.NumFeatures()) > denseCap(opt, len(text))
			if opt != nil && opt.Storage == mil.Dense && tooBig {
				if !errors.Is(err, mil.ErrTooLarge) || !errors.Is(err, mil.ErrBadInput) || d2 != nil {
					t.Errorf("dense storage of %d x %d beyond the cap %d: error %v, want ErrTooLarge", d.NumInstances(), d.NumFeatures(), denseCap(opt, len(text)), err)
				}
			} else if err != nil {
				t.Errorf("storage %+v: error %v, but sparse storage succeeded", opt, err)
			} else if e := checkDataset(d2, opt, len(text)); e != nil {
				t.Errorf("storage %+v: %v", opt, e)
			} else if e := sameDataset(d, d2); e != nil {
				t.Errorf("storage %+v differs from sparse: %v", opt, e)
			}
		}
	}
	// Read picks the format from the first non-blank line.
	if len(text) > 60<<10 {
		return // beyond Read's peek, the rule is about a prefix only
	}
	pickSparse := false
	for _, line := range strings.Split(strings.TrimPrefix(text, "\ufeff"), "\n") {
		if l := strings.TrimSpace(line); l != "" {
			pickSparse = l[0] == '#' || !strings.Contains(l, ",")
			break
		}
	}
	if pickSparse != sparse {
		read = mil.ReadCSV
		if pickSparse {
			read = mil.ReadSparse
		}
		d, err = read(strings.NewReader(text), &mil.LoadOptions{Storage: mil.Sparse})
	}
	dr, errR := mil.Read(strings.NewReader(text), &mil.LoadOptions{Storage: mil.Sparse})
	switch {
	case (err == nil) != (errR == nil):
		t.Errorf("Read: error %v, but the loader for its format (sparse %v) gives error %v", errR, pickSparse, err)
	case err != nil:
		if err.Error() != errR.Error() {
			t.Errorf("Read: error %q, the loader for its format %q", errR, err)
		}
	default:
		if e := sameDataset(d, dr); e != nil {
			t.Errorf("Read differs from the loader for its format (sparse %v): %v", pickSparse, e)
		}
	}
}

// checkLoadError checks that err is one of the documented kinds. Every
// error on in-memory text is bad input.
func checkLoadError(err error, text string) error {
	if !strings.HasPrefix(err.Error(), "mil: ") {
		return fmt.Errorf("error %q does not start with \"mil: \"", err)
	}
	if !errors.Is(err, mil.ErrBadInput) {
		return fmt.Errorf("error %q (%T) does not match ErrBadInput", err, err)
	}
	var pe *mil.ParseError
	switch {
	case errors.Is(err, mil.ErrNoInstances):
	case errors.As(err, &pe):
		if lines := strings.Count(text, "\n") + 1; pe.Line < 1 || pe.Line > lines {
			return fmt.Errorf("error %q: line %d outside 1..%d", err, pe.Line, lines)
		}
	case strings.Contains(err.Error(), "features"):
		// "no # features: header and no non-zero feature"
	default:
		return fmt.Errorf("error %q (%T) is not a *ParseError, ErrNoInstances or the unknown-features error", err, err)
	}
	return nil
}

// checkDataset checks Dataset's documented invariants and the storage opt
// asks for, read from n bytes.
func checkDataset(d *mil.Dataset, opt *mil.LoadOptions, n int) error {
	nb, ni, nf := d.NumBags(), d.NumInstances(), d.NumFeatures()
	if nb < 1 || ni < nb || nf < 1 {
		return fmt.Errorf("%d bags, %d instances, %d features", nb, ni, nf)
	}
	ptr := d.BagPtr()
	if len(ptr) != nb+1 || ptr[0] != 0 || ptr[nb] != ni {
		return fmt.Errorf("BagPtr %v for %d bags, %d instances", ptr, nb, ni)
	}
	labels := d.Labels()
	if len(labels) != nb {
		return fmt.Errorf("%d labels for %d bags", len(labels), nb)
	}
	pos := 0
	ids := map[string]bool{}
	for k := range nb {
		if ptr[k+1] <= ptr[k] {
			return fmt.Errorf("BagPtr %v not strictly increasing at %d", ptr, k)
		}
		if s, e := d.BagRange(k); s != ptr[k] || e != ptr[k+1] {
			return fmt.Errorf("BagRange(%d) = %d, %d, BagPtr %v", k, s, e, ptr)
		}
		if labels[k] != 0 && labels[k] != 1 {
			return fmt.Errorf("label %v of bag %d", labels[k], k)
		}
		if labels[k] == 1 {
			pos++
		}
		id := d.BagID(k)
		if id == "" || ids[id] {
			return fmt.Errorf("bag %d id %q empty or repeated", k, id)
		}
		ids[id] = true
	}
	if d.Positives() != pos {
		return fmt.Errorf("Positives %d, want %d", d.Positives(), pos)
	}
	if cells(ni, nf) > maxDenseCells {
		// Row costs O(NumFeatures): a huge `# features:` header makes the
		// row checks too slow; check the ids only.
		for i := range ni {
			if d.InstanceID(i) == "" {
				return fmt.Errorf("instance %d has an empty id", i)
			}
		}
		return nil
	}
	row := make([]float64, nf)
	nnz := 0
	for i := range ni {
		if d.InstanceID(i) == "" {
			return fmt.Errorf("instance %d has an empty id", i)
		}
		d.Row(row, i)
		for _, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("instance %d has a non-finite feature %v", i, v)
			}
			if v != 0 {
				nnz++
			}
		}
	}
	if d.NNZ() != nnz {
		return fmt.Errorf("NNZ %d, but the rows hold %d non-zeros", d.NNZ(), nnz)
	}
	if want := float64(nnz) / (float64(ni) * float64(nf)); d.Density() != want {
		return fmt.Errorf("Density %v, want %v", d.Density(), want)
	}
	wantSparse := float64(nnz) < mil.DefaultSparseDensity*float64(ni)*float64(nf)
	if opt != nil {
		switch {
		case opt.Storage == mil.Dense:
			wantSparse = false
		case opt.Storage == mil.Sparse:
			wantSparse = true
		case opt.SparseDensity > 0:
			wantSparse = float64(nnz) < opt.SparseDensity*float64(ni)*float64(nf)
		}
	}
	if (opt == nil || opt.Storage == mil.Auto) && cells(ni, nf) > denseCap(opt, n) {
		wantSparse = true
	}
	if d.IsSparse() != wantSparse {
		return fmt.Errorf("IsSparse %v, want %v (nnz %d, %d x %d, options %+v)", d.IsSparse(), wantSparse, nnz, ni, nf, opt)
	}
	return nil
}

// sameDataset compares two datasets' bags, labels, ids and rows.
func sameDataset(a, b *mil.Dataset) error {
	if a.NumBags() != b.NumBags() || a.NumInstances() != b.NumInstances() || a.NumFeatures() != b.NumFeatures() {
		return fmt.Errorf("shapes %d/%d/%d and %d/%d/%d", a.NumBags(), a.NumInstances(), a.NumFeatures(),
			b.NumBags(), b.NumInstances(), b.NumFeatures())
	}
	for k := range a.NumBags() {
		if a.BagID(k) != b.BagID(k) || a.Labels()[k] != b.Labels()[k] || a.BagPtr()[k+1] != b.BagPtr()[k+1] {
			return fmt.Errorf("bag %d differs", k)
		}
	}
	if cells(a.NumInstances(), a.NumFeatures()) > maxDenseCells {
		return nil // see checkDataset
	}
	ra, rb := make([]float64, a.NumFeatures()), make([]float64, a.NumFeatures())
	for i := range a.NumInstances() {
		a.Row(ra, i)
		b.Row(rb, i)
		if a.InstanceID(i) != b.InstanceID(i) {
			return fmt.Errorf("instance %d id %q and %q", i, a.InstanceID(i), b.InstanceID(i))
		}
		for j := range ra {
			if ra[j] != rb[j] {
				return fmt.Errorf("instance %d feature %d: %v and %v", i, j, ra[j], rb[j])
			}
		}
	}
	return nil
}

// compareRef checks d against the reference reading: bags in order of
// first appearance, instances in file order within a bag.
func compareRef(d *mil.Dataset, ref refData) error {
	if d.NumFeatures() != ref.cols {
		return fmt.Errorf("%d features, want %d", d.NumFeatures(), ref.cols)
	}
	var order []string
	members := map[string][]int{}
	for i, in := range ref.inst {
		if _, ok := members[in.bag]; !ok {
			order = append(order, in.bag)
		}
		members[in.bag] = append(members[in.bag], i)
	}
	if d.NumBags() != len(order) || d.NumInstances() != len(ref.inst) {
		return fmt.Errorf("%d bags, %d instances, want %d, %d", d.NumBags(), d.NumInstances(), len(order), len(ref.inst))
	}
	rows := cells(len(ref.inst), ref.cols) <= maxDenseCells // else ids only (see checkDataset)
	var row []float64
	if rows {
		row = make([]float64, ref.cols)
	}
	pos := 0
	for k, bag := range order {
		if d.BagID(k) != bag {
			return fmt.Errorf("bag %d id %q, want %q", k, d.BagID(k), bag)
		}
		if want := ref.inst[members[bag][0]].label; d.Labels()[k] != want {
			return fmt.Errorf("bag %q label %v, want %v", bag, d.Labels()[k], want)
		}
		for _, i := range members[bag] {
			in := ref.inst[i]
			if d.InstanceID(pos) != in.id {
				return fmt.Errorf("instance %d id %q, want %q", pos, d.InstanceID(pos), in.id)
			}
			if !rows {
				pos++
				continue
			}
			d.Row(row, pos)
			want := make([]float64, ref.cols)
			for p, j := range in.idx {
				want[j] = in.val[p]
			}
			for j := range row {
				if row[j] != want[j] {
					return fmt.Errorf("instance %q feature %d: %v, want %v", in.id, j+1, row[j], want[j])
				}
			}
			pos++
		}
	}
	return nil
}

// refLabels applies the label rules: 0/1 or -1/+1, one convention per
// file, one label per bag.
type refLabels struct {
	zero, minus bool
	bag         map[string]float64
}

func (l *refLabels) add(field, bag string) (float64, string) {
	v, err := strconv.ParseFloat(field, 64)
	if err != nil || v != 0 && v != 1 && v != -1 {
		return 0, "bad label " + strconv.Quote(field)
	}
	l.zero = l.zero || v == 0
	l.minus = l.minus || v == -1
	if l.zero && l.minus {
		return 0, "labels mix 0 and -1"
	}
	v = math.Max(v, 0)
	if l.bag == nil {
		l.bag = map[string]float64{}
	}
	if prev, ok := l.bag[bag]; ok && prev != v {
		return 0, "bag label conflict"
	}
	l.bag[bag] = v
	return v, ""
}

// refValue parses a feature value: a number, finite, not overflowing
// (underflow to 0 or a subnormal is fine).
func refValue(s string) (float64, bool) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil && !(errors.Is(err, strconv.ErrRange) && !math.IsInf(v, 0)) {
		return 0, false
	}
	return v, !math.IsNaN(v) && !math.IsInf(v, 0)
}

// refCSV reads text as the dense CSV format of mil.ReadCSV's doc.
func refCSV(text string) refData {
	var r refData
	var lab refLabels
	for n, line := range strings.Split(strings.TrimPrefix(text, "\ufeff"), "\n") {
		if len(line) > mil.DefaultMaxLineBytes {
			return refData{err: "line too long", line: n + 1}
		}
		l := strings.TrimSpace(line)
		if l == "" {
			continue
		}
		fail := func(msg string) refData { return refData{err: msg, line: n + 1} }
		f := strings.Split(l, ",")
		if len(f) < 4 {
			return fail("fewer than 4 fields")
		}
		if r.inst == nil {
			r.cols = len(f) - 3
			if r.cols > mil.DefaultMaxFeatures {
				return fail("more features than the cap")
			}
		} else if len(f)-3 != r.cols {
			return fail("field count differs from the first line's")
		}
		for i := range f {
			f[i] = strings.TrimSpace(f[i])
		}
		if f[0] == "" || f[1] == "" {
			return fail("empty id")
		}
		y, msg := lab.add(f[2], f[1])
		if msg != "" {
			return fail(msg)
		}
		in := instance{id: f[0], bag: f[1], label: y}
		for j, s := range f[3:] {
			v, ok := refValue(s)
			if !ok {
				return fail("bad value " + strconv.Quote(s))
			}
			if v != 0 {
				in.idx = append(in.idx, j)
				in.val = append(in.val, v)
			}
		}
		r.inst = append(r.inst, in)
	}
	if r.inst == nil {
		return refData{err: "no instances"}
	}
	return r
}

// refSparse reads text as the sparse format of mil.ReadSparse's doc.
func refSparse(text string) refData {
	var r refData
	var lab refLabels
	header := 0 // D from `# features: D`, 0 if none
	maxIdx := 0 // largest index of a non-zero value
	for n, line := range strings.Split(strings.TrimPrefix(text, "\ufeff"), "\n") {
		if len(line) > mil.DefaultMaxLineBytes {
			return refData{err: "line too long", line: n + 1}
		}
		l := strings.TrimSpace(line)
		if l == "" {
			continue
		}
		fail := func(msg string) refData { return refData{err: msg, line: n + 1} }
		if l[0] == '#' {
			comment := strings.TrimSpace(l[1:])
			rest, ok := strings.CutPrefix(comment, "features")
			val, ok2 := strings.CutPrefix(strings.TrimSpace(rest), ":")
			if !ok || !ok2 {
				if refLooksLikeHeader(comment) {
					return fail("misspelt header")
				}
				continue
			}
			d, ok := refIndex(strings.TrimSpace(val))
			switch {
			case !ok:
				return fail("bad header")
			case r.inst != nil:
				return fail("header after the first instance")
			case header != 0 && d != header:
				return fail("contradicting headers")
			case d > mil.DefaultMaxFeatures:
				return fail("header beyond the cap")
			}
			header = d
			continue
		}
		tok := strings.FieldsFunc(l, func(c rune) bool { return c == ' ' || c == '\t' })
		head := strings.Split(tok[0], ":")
		if len(head) != 3 {
			return fail("first token is not id:bag:label")
		}
		if head[0] == "" || head[1] == "" {
			return fail("empty id")
		}
		y, msg := lab.add(head[2], head[1])
		if msg != "" {
			return fail(msg)
		}
		in := instance{id: head[0], bag: head[1], label: y}
		prev := 0
		for _, t := range tok[1:] {
			js, vs, ok := strings.Cut(t, ":")
			if !ok {
				return fail("feature is not j:v")
			}
			j, ok := refIndex(js)
			if !ok || header != 0 && j > header || j > mil.DefaultMaxFeatures || j <= prev {
				return fail("bad index " + strconv.Quote(js))
			}
			prev = j
			v, ok := refValue(vs)
			if !ok {
				return fail("bad value " + strconv.Quote(vs))
			}
			if v != 0 {
				in.idx = append(in.idx, j-1)
				in.val = append(in.val, v)
				maxIdx = max(maxIdx, j)
			}
		}
		r.inst = append(r.inst, in)
	}
	if r.inst == nil {
		return refData{err: "no instances"}
	}
	r.cols = header
	if header == 0 {
		r.cols = maxIdx
	}
	if r.cols == 0 {
		return refData{err: "number of features unknown"}
	}
	return r
}

// refIndex parses a positive decimal integer (digits only) below 2^31-1,
// the bound mil documents for indices as int32 columns.
func refIndex(s string) (int, bool) {
	if s == "" || len(s) > 10 || strings.TrimLeft(s, "0123456789") != "" {
		return 0, false
	}
	n, _ := strconv.Atoi(s)
	return n, n >= 1 && n < math.MaxInt32
}

// refLooksLikeHeader is ReadSparse's rule for a comment (the text after
// the #, trimmed) that spells the header another way: "key: number",
// "key = number" or "key number", where the key, in ASCII lower case
// without spaces, tabs, '_' and '-', names the number of features, and
// the number is a digit, optionally signed, then anything (after a
// separator) or nothing more (without one).
func refLooksLikeHeader(c string) bool {
	keys := map[string]bool{
		"feature": true, "features": true, "nfeatures": true, "numfeatures": true, "numberoffeatures": true,
		"featurecount": true, "dim": true, "dims": true, "dimension": true, "dimensions": true,
		"ndim": true, "ndims": true, "numdims": true,
	}
	isKey := func(k string) bool {
		var b strings.Builder
		for _, c := range []byte(k) {
			switch {
			case c == ' ' || c == '\t' || c == '_' || c == '-':
			case c >= 'A' && c <= 'Z':
				b.WriteByte(c + 32)
			default:
				b.WriteByte(c)
			}
		}
		return keys[b.String()]
	}
	isNumber := func(v string) bool {
		if v != "" && (v[0] == '+' || v[0] == '-') {
			v = v[1:]
		}
		return v != "" && v[0] >= '0' && v[0] <= '9'
	}
	if i := strings.IndexAny(c, ":="); i >= 0 && isKey(c[:i]) && isNumber(strings.TrimSpace(c[i+1:])) {
		return true
	}
	f := strings.Fields(c)
	return len(f) == 2 && isKey(f[0]) && isNumber(f[1])
}
