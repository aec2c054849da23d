package mil

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/neadmm/neadmm/internal/num"
)

// ErrNoInstances is returned for input holding no instance (an empty file,
// or only blank and comment lines).
var ErrNoInstances = errors.New("mil: no instances")

// ParseError reports a malformed line of a data file. A loader that returns
// one returns no dataset.
type ParseError struct {
	File string // set by LoadFile, else empty
	Line int    // 1-based line number
	Msg  string // what is wrong
	Err  error  // underlying error (e.g. *strconv.NumError, *LabelConflictError), may be nil
}

// Error returns "mil: [file: ]line N: what is wrong".
func (e *ParseError) Error() string {
	if e.File != "" {
		return fmt.Sprintf("mil: %s: line %d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("mil: line %d: %s", e.Line, e.Msg)
}

// Unwrap returns the underlying error, if any.
func (e *ParseError) Unwrap() error { return e.Err }

// maxLine bounds one line of input; longer lines are an error rather than
// an unbounded allocation.
const maxLine = 1 << 28

// lineReader yields the non-blank lines of r with surrounding white space
// (and so \r\n line ends) removed, counting all lines.
type lineReader struct {
	sc   *bufio.Scanner
	line int
}

func newLineReader(r io.Reader) *lineReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	return &lineReader{sc: sc}
}

func (lr *lineReader) next() ([]byte, bool) {
	for lr.sc.Scan() {
		lr.line++
		if line := bytes.TrimSpace(lr.sc.Bytes()); len(line) > 0 {
			return line, true
		}
	}
	return nil, false
}

func (lr *lineReader) err() error {
	if err := lr.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return &ParseError{Line: lr.line + 1, Msg: fmt.Sprintf("line longer than %d bytes", maxLine), Err: err}
		}
		return fmt.Errorf("mil: reading line %d: %w", lr.line+1, err)
	}
	return nil
}

func (lr *lineReader) errorf(format string, args ...any) *ParseError {
	return &ParseError{Line: lr.line, Msg: fmt.Sprintf(format, args...)}
}

// labels normalises bag labels and checks that a file uses one convention:
// 0/1 or -1/+1 (1 is common to both).
type labels struct {
	zeroLine, minusLine int // first line with a 0 (resp. -1) label
}

func (l *labels) parse(lr *lineReader, field []byte) (float64, error) {
	v, err := strconv.ParseFloat(string(field), 64)
	if err != nil || (v != 0 && v != 1 && v != -1) {
		return 0, &ParseError{Line: lr.line, Msg: fmt.Sprintf("label %q not in {0, 1, -1, +1}", field), Err: err}
	}
	switch v {
	case 0:
		if l.zeroLine == 0 {
			l.zeroLine = lr.line
		}
	case -1:
		if l.minusLine == 0 {
			l.minusLine = lr.line
		}
		v = 0
	}
	if l.zeroLine > 0 && l.minusLine > 0 {
		return 0, lr.errorf("labels mix conventions: 0 on line %d, -1 on line %d", l.zeroLine, l.minusLine)
	}
	return v, nil
}

// addInstance checks the instance id, parses the label and registers the
// instance's bag, returning the bag index. bagLine holds the line of each
// bag's first instance, to name it when a later instance disagrees.
func addInstance(lr *lineReader, b *Builder, bagLine *[]int, lab *labels, inst, bag, labF []byte) (int, error) {
	if len(inst) == 0 {
		return 0, lr.errorf("empty instance id")
	}
	y, err := lab.parse(lr, labF)
	if err != nil {
		return 0, err
	}
	k, err := b.bag(bag, y)
	if err != nil {
		var lc *LabelConflictError
		if errors.As(err, &lc) {
			return 0, &ParseError{Line: lr.line, Err: err, Msg: fmt.Sprintf(
				"bag %q has label %v here but %v on line %d", lc.Bag, y, lc.Prev, (*bagLine)[lc.bag])}
		}
		return 0, &ParseError{Line: lr.line, Msg: err.Error(), Err: err}
	}
	if k == len(*bagLine) {
		*bagLine = append(*bagLine, lr.line)
	}
	return k, nil
}

// parseValue parses a finite float64 feature value.
// what and num name the field in messages ("field 7", "feature 12"); they
// are only formatted on error, so the happy path does not allocate.
func parseValue(lr *lineReader, field []byte, what string, index int) (float64, error) {
	// string(field) does not allocate: ParseFloat does not retain it.
	v, err := strconv.ParseFloat(string(field), 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) && math.IsInf(v, 0) {
			return 0, &ParseError{Line: lr.line, Msg: fmt.Sprintf("%s %d: %q overflows float64", what, index, field), Err: err}
		}
		if !errors.Is(err, strconv.ErrRange) { // underflow to 0 or a subnormal is fine
			return 0, &ParseError{Line: lr.line, Msg: fmt.Sprintf("%s %d: %q is not a number", what, index, field), Err: err}
		}
	}
	if !num.Finite(v) {
		return 0, lr.errorf("%s %d: %q is not finite", what, index, field)
	}
	return v, nil
}

// ReadCSV reads a dense multi-instance CSV: one instance per line,
// `instance_id,bag_id,label,f1,...,fD`, no header, no quoting; spaces around
// fields are ignored, blank lines skipped, \r\n accepted. D is set by the
// first line. Labels are 0/1 or -1/+1 (normalised to 0/1; one file may not
// mix 0 and -1). Instances of a bag may be scattered: bags keep the order of
// their first appearance and instances their order within the bag. Ids are
// kept for reporting, not checked for uniqueness. The features are stored
// as opt says (nil: Auto, dense for fox.csv).
//
// Errors (a *ParseError naming the line, and no dataset): fewer than 4
// fields, a line whose field count differs from the first line's, an empty
// id, a value that is not a number or is NaN/±Inf or overflows, a label not
// in {0, 1, -1, +1} or mixing conventions, a bag whose instances disagree on
// the label (naming the bag's first line). Input with no instance returns
// ErrNoInstances; a read error is returned wrapped.
func ReadCSV(r io.Reader, opt *LoadOptions) (*Dataset, error) {
	return readCSV(r, opt, sizeHint(r))
}

// sizeHint returns the number of bytes r will yield when it is cheap to
// know (an in-memory reader or a regular file), else -1.
func sizeHint(r io.Reader) int64 {
	switch r := r.(type) {
	case interface{ Len() int }: // bytes.Reader, strings.Reader, bytes.Buffer
		return int64(r.Len())
	case *os.File:
		if st, err := r.Stat(); err == nil && st.Mode().IsRegular() {
			return st.Size()
		}
	}
	return -1
}

// readCSV is ReadCSV with the input size, if known, to size the feature
// array once instead of growing it (which allocates ~5x its final size).
func readCSV(r io.Reader, opt *LoadOptions, size int64) (*Dataset, error) {
	lr := newLineReader(r)
	var (
		b         *Builder
		cols      int
		firstLine int
		bagLine   []int
		lab       labels
	)
	for {
		line, ok := lr.next()
		if !ok {
			break
		}
		inst, rest, ok1 := bytes.Cut(line, []byte{','})
		bag, rest, ok2 := bytes.Cut(rest, []byte{','})
		labF, rest, ok3 := bytes.Cut(rest, []byte{','})
		if !ok1 || !ok2 || !ok3 {
			return nil, lr.errorf("%d fields, want instance_id,bag_id,label and at least one feature", bytes.Count(line, []byte{','})+1)
		}
		// Count the fields first (a fast scan) so a ragged row is reported
		// as such rather than as whatever its first odd field looks like.
		nf := bytes.Count(rest, []byte{','}) + 1
		if b == nil {
			cols, firstLine = nf, lr.line
			b = NewBuilder(cols)
			if size > 0 {
				// Lines are about as long as the first; every value takes
				// at least 2 bytes, which bounds a wrong guess.
				est := min(size/int64(len(line)+1)*int64(cols)*21/20+int64(cols), size/2)
				b.dense = make([]float64, 0, est)
			}
		}
		if nf != cols {
			return nil, lr.errorf("%d fields, want %d (3 + %d features, as on line %d)", nf+3, cols+3, cols, firstLine)
		}
		inst, bag, labF = bytes.TrimSpace(inst), bytes.TrimSpace(bag), bytes.TrimSpace(labF)
		k, err := addInstance(lr, b, &bagLine, &lab, inst, bag, labF)
		if err != nil {
			var pe *ParseError
			if lr.line == firstLine && errors.As(err, &pe) && strings.HasPrefix(pe.Msg, "label") {
				pe.Msg += " (the format has no header line)"
			}
			return nil, err
		}
		for j := 0; ; j++ {
			f, tail, more := bytes.Cut(rest, []byte{','})
			v, err := parseValue(lr, bytes.TrimSpace(f), "field", j+4)
			if err != nil {
				return nil, err
			}
			if v != 0 {
				b.nnz++
			}
			b.dense = append(b.dense, v)
			if !more {
				break
			}
			rest = tail
		}
		b.commit(k, inst)
	}
	if err := lr.err(); err != nil {
		return nil, err
	}
	if b == nil {
		return nil, ErrNoInstances
	}
	return b.Build(opt)
}

// ReadSparse reads the sparse multi-instance text format: lines starting
// with # are comments, except `# features: D` which gives the number of
// features and must come before the first instance; every other non-blank
// line is one instance, `instance_id:bag_id:label j:v j:v ...` with 1-based
// feature indices j strictly increasing and zero values omitted (a line may
// hold no feature; explicit zeros are accepted and dropped). Tokens are
// separated by spaces or tabs. Without a header D is the largest index seen.
// Labels, bag grouping and storage are as for ReadCSV (Auto gives sparse
// storage for vaccine.svm).
//
// Errors (a *ParseError naming the line, and no dataset): a malformed or
// late `# features:` header, a first token that is not three
// colon-separated fields, an empty id, a feature token that is not j:v, an
// index that is not a positive integer, exceeds D or does not increase, a
// value that is not a number or is NaN/±Inf or overflows, a label not in
// {0, 1, -1, +1} or mixing conventions, a bag whose instances disagree on
// the label. Input with no instance returns ErrNoInstances.
func ReadSparse(r io.Reader, opt *LoadOptions) (*Dataset, error) {
	lr := newLineReader(r)
	b := NewBuilder(0)
	b.sparse = true
	var (
		bagLine    []int
		lab        labels
		headerLine int
	)
	for {
		line, ok := lr.next()
		if !ok {
			break
		}
		if line[0] == '#' {
			d, isHeader, err := parseHeader(lr, line)
			if err != nil {
				return nil, err
			}
			if !isHeader {
				continue
			}
			if b.n > 0 {
				return nil, lr.errorf("# features: header after the first instance (line %d)", bagLine[0])
			}
			if headerLine > 0 && d != b.cols {
				return nil, lr.errorf("# features: %d contradicts %d on line %d", d, b.cols, headerLine)
			}
			b.cols, headerLine = d, lr.line
			continue
		}
		head, rest := nextToken(line)
		inst, r1, ok1 := bytes.Cut(head, []byte{':'})
		bag, labF, ok2 := bytes.Cut(r1, []byte{':'})
		if !ok1 || !ok2 || bytes.IndexByte(labF, ':') >= 0 {
			return nil, lr.errorf("first token %q, want instance_id:bag_id:label", head)
		}
		k, err := addInstance(lr, b, &bagLine, &lab, inst, bag, labF)
		if err != nil {
			return nil, err
		}
		prev := 0
		for len(rest) > 0 {
			var tok []byte
			tok, rest = nextToken(rest)
			js, vs, ok := bytes.Cut(tok, []byte{':'})
			if !ok {
				return nil, lr.errorf("feature %q, want index:value", tok)
			}
			j, ok := parseIndex(js)
			if !ok {
				return nil, lr.errorf("feature index %q is not a positive integer", js)
			}
			if b.cols > 0 && j > b.cols {
				return nil, lr.errorf("feature index %d out of range 1..%d", j, b.cols)
			}
			if j <= prev {
				return nil, lr.errorf("feature index %d not greater than previous index %d", j, prev)
			}
			prev = j
			v, err := parseValue(lr, vs, "feature", j)
			if err != nil {
				return nil, err
			}
			if v != 0 {
				b.colidx = append(b.colidx, int32(j-1))
				b.values = append(b.values, v)
				b.maxCol = max(b.maxCol, j-1)
			}
		}
		b.commit(k, inst)
	}
	if err := lr.err(); err != nil {
		return nil, err
	}
	if b.n == 0 {
		return nil, ErrNoInstances
	}
	if b.cols == 0 && b.maxCol < 0 {
		return nil, errors.New("mil: no # features: header and no non-zero feature: number of features unknown")
	}
	return b.Build(opt)
}

// parseHeader recognises `# features: D` (spaces optional). Other comments
// return isHeader false.
func parseHeader(lr *lineReader, line []byte) (d int, isHeader bool, err error) {
	s := bytes.TrimSpace(line[1:])
	rest, ok := bytes.CutPrefix(s, []byte("features"))
	if !ok {
		return 0, false, nil
	}
	rest = bytes.TrimSpace(rest)
	val, ok := bytes.CutPrefix(rest, []byte{':'})
	if !ok {
		return 0, false, nil // e.g. "# features are counts"
	}
	val = bytes.TrimSpace(val)
	d, ok = parseIndex(val)
	if !ok {
		return 0, true, lr.errorf("bad # features: header: %q is not a positive integer", val)
	}
	return d, true, nil
}

// parseIndex parses a positive decimal integer below 2^31 (no sign).
func parseIndex(s []byte) (int, bool) {
	if len(s) == 0 || len(s) > 10 {
		return 0, false
	}
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, n >= 1 && n < math.MaxInt32
}

// nextToken splits s at the first run of spaces or tabs.
func nextToken(s []byte) (tok, rest []byte) {
	i := 0
	for i < len(s) && s[i] != ' ' && s[i] != '\t' {
		i++
	}
	tok = s[:i]
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return tok, s[i:]
}

// Read reads either format, telling them apart by content: input whose
// first non-blank line starts with # or has no comma is read by ReadSparse,
// other input by ReadCSV.
func Read(r io.Reader, opt *LoadOptions) (*Dataset, error) {
	size := sizeHint(r)
	br := bufio.NewReaderSize(r, 64<<10)
	peek, err := br.Peek(64 << 10)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, fmt.Errorf("mil: %w", err)
	}
	if looksSparse(peek) {
		return ReadSparse(br, opt)
	}
	return readCSV(br, opt, size)
}

func looksSparse(peek []byte) bool {
	for len(peek) > 0 {
		line, rest, _ := bytes.Cut(peek, []byte{'\n'})
		line = bytes.TrimSpace(line)
		if len(line) > 0 {
			return line[0] == '#' || bytes.IndexByte(line, ',') < 0
		}
		peek = rest
	}
	return false
}

// LoadFile reads the dataset in the named file: extension .csv selects
// ReadCSV, .svm, .libsvm or .sparse select ReadSparse, any other is told
// by content as in Read. A *ParseError carries the file name.
func LoadFile(path string, opt *LoadOptions) (*Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("mil: %w", err)
	}
	defer f.Close()
	var d *Dataset
	switch strings.ToLower(filepath.Ext(path)) {
	case ".csv":
		d, err = ReadCSV(f, opt)
	case ".svm", ".libsvm", ".sparse":
		d, err = ReadSparse(f, opt)
	default:
		d, err = Read(f, opt)
	}
	if err != nil {
		var pe *ParseError
		if errors.As(err, &pe) {
			pe.File = path
			return nil, pe
		}
		return nil, fmt.Errorf("mil: %s: %w", path, err)
	}
	return d, nil
}
