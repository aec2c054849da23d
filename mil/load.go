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
	"slices"
	"strconv"
	"strings"

	"github.com/neadmm/neadmm/internal/num"
)

// ErrNoInstances is returned for input holding no instance (an empty file,
// or only blank and comment lines). It matches ErrBadInput with errors.Is.
var ErrNoInstances error = &inputError{msg: "mil: no instances", kinds: badInputKinds}

// ParseError reports a malformed line of a data file. A loader that returns
// one returns no dataset. It matches ErrBadInput with errors.Is, and
// ErrTooLarge too when the line asks for more than a cap allows (a
// `# features:` header or an index above LoadOptions.MaxFeatures, a line
// longer than LoadOptions.MaxLineBytes).
type ParseError struct {
	File string // set by LoadFile, else empty
	Line int    // 1-based line number
	Msg  string // what is wrong
	Err  error  // underlying error (e.g. *strconv.NumError, *LabelConflictError), may be nil

	tooLarge bool // a cap was exceeded: also matches ErrTooLarge
}

// Error returns "mil: [file: ]line N: what is wrong".
func (e *ParseError) Error() string {
	if e.File != "" {
		return fmt.Sprintf("mil: %s: line %d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("mil: line %d: %s", e.Line, e.Msg)
}

// Unwrap returns ErrBadInput, ErrTooLarge when a cap was exceeded, and the
// underlying error if any, for errors.Is and errors.As.
func (e *ParseError) Unwrap() []error {
	errs := []error{ErrBadInput}
	if e.tooLarge {
		errs = append(errs, ErrTooLarge)
	}
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	return errs
}

// bom is the UTF-8 byte order mark some editors put at the start of a
// text file; the loaders skip it.
const bom = "\ufeff"

// lineReader yields the non-blank lines of r with surrounding white space
// (and so \r\n line ends) and a leading byte order mark removed, counting
// all lines and the bytes they took.
type lineReader struct {
	sc      *bufio.Scanner
	line    int
	maxLine int
	tooLong bool  // a line of maxLine+1 or +2 bytes, which the buffer holds
	read    int64 // bytes of the lines scanned, line ends included
	// cut reports that the last line scanned had no line end: the input
	// ended there, or a read failed (sc.Err() then says which).
	cut bool
}

func newLineReader(r io.Reader, maxLine int) *lineReader {
	lr := &lineReader{sc: bufio.NewScanner(r), maxLine: maxLine}
	// A line of maxLine bytes (without its line end, as the cap counts)
	// and its "\r\n" must fit the buffer; next refuses the longer lines
	// the two extra bytes let through. (maxLine+2 saturates: a cap near
	// MaxInt means no cap, not a negative size.)
	tok := maxLine + 2
	if maxLine > math.MaxInt-2 {
		tok = math.MaxInt
	}
	lr.sc.Buffer(make([]byte, min(64<<10, tok)), tok)
	lr.sc.Split(lr.split)
	return lr
}

// split is bufio.ScanLines, counting the bytes taken and noting a last
// line without its line end.
func (lr *lineReader) split(data []byte, atEOF bool) (int, []byte, error) {
	adv, tok, err := bufio.ScanLines(data, atEOF)
	lr.read += int64(adv)
	lr.cut = tok != nil && atEOF && bytes.IndexByte(data[:adv], '\n') < 0
	return adv, tok, err
}

func (lr *lineReader) next() ([]byte, bool) {
	for lr.sc.Scan() {
		if lr.cut && lr.sc.Err() != nil {
			// A read failed within this line: what arrived of it is not
			// a line to parse, and err reports the read error.
			return nil, false
		}
		lr.line++
		line := lr.sc.Bytes()
		if len(line) > lr.maxLine {
			lr.line--
			lr.tooLong = true
			return nil, false
		}
		if lr.line == 1 {
			line = bytes.TrimPrefix(line, []byte(bom))
		}
		if line = bytes.TrimSpace(line); len(line) > 0 {
			return line, true
		}
	}
	return nil, false
}

func (lr *lineReader) err() error {
	if err := lr.sc.Err(); err != nil || lr.tooLong {
		if lr.tooLong || errors.Is(err, bufio.ErrTooLong) {
			return &ParseError{Line: lr.line + 1, Err: bufio.ErrTooLong, tooLarge: true,
				Msg: fmt.Sprintf("line longer than the cap of %d bytes (LoadOptions.MaxLineBytes, default DefaultMaxLineBytes)", lr.maxLine)}
		}
		return fmt.Errorf("mil: reading line %d: %w", lr.line+1, err)
	}
	return nil
}

// tooLargef returns a *ParseError for the current line that also matches
// ErrTooLarge.
func (lr *lineReader) tooLargef(format string, args ...any) *ParseError {
	pe := lr.errorf(format, args...)
	pe.tooLarge = true
	return pe
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
// fields are ignored, blank lines skipped, \r\n accepted, a UTF-8 byte
// order mark at the start skipped. D is set by the first line. Labels are
// 0/1 or -1/+1 (normalised to 0/1; one file may not mix 0 and -1).
// Instances of a bag may be scattered: bags keep the order of their first
// appearance and instances their order within the bag. Ids are kept for
// reporting, not checked for uniqueness. The features are stored as opt
// says (nil: Auto, dense for fox.csv).
//
// Errors (a *ParseError naming the line, and no dataset): fewer than 4
// fields, a line whose field count differs from the first line's, an empty
// id, a value that is not a number or is NaN/±Inf or overflows, a label not
// in {0, 1, -1, +1} or mixing conventions, a bag whose instances disagree on
// the label (naming the bag's first line), a line longer than
// opt.MaxLineBytes or more features than opt.MaxFeatures (these two also
// match ErrTooLarge). Input with no instance returns ErrNoInstances;
// invalid options (LoadOptions.Validate) and dense storage beyond
// opt.MaxDenseCells return an error wrapping ErrBadInput (the latter also
// ErrTooLarge); every one of these matches ErrBadInput. A read error is
// returned wrapped.
//
// Memory: the loaders allocate in proportion to the input, bounded by the
// caps wherever a size comes from the input (the preallocation from the
// input's size, rows accumulated dense); to bound the input itself, wrap
// the reader in an io.LimitedReader.
func ReadCSV(r io.Reader, opt *LoadOptions) (*Dataset, error) {
	lim, err := opt.resolve()
	if err != nil {
		return nil, err
	}
	return readCSV(r, lim, sizeHint(r))
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
func readCSV(r io.Reader, lim limits, size int64) (*Dataset, error) {
	lr := newLineReader(r, lim.maxLine)
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
			var err error
			if b, err = csvBuilder(lr, lim, size, len(line), nf); err != nil {
				return nil, err
			}
			cols, firstLine = nf, lr.line
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
		if err := csvFields(lr, b, cols, rest); err != nil {
			return nil, err
		}
		b.commit(k, inst)
	}
	if err := lr.err(); err != nil {
		return nil, err
	}
	if b == nil {
		return nil, ErrNoInstances
	}
	lim.input = max(lr.read, 1)
	return b.build(lim)
}

// csvBuilder returns the Builder of a CSV input whose first line, of
// lineLen bytes, has nf features: nf within lim.maxFeatures, and the
// final size of its dense array estimated from the input size when known
// (size > 0; see growDense).
func csvBuilder(lr *lineReader, lim limits, size int64, lineLen, nf int) (*Builder, error) {
	if nf > lim.maxFeatures {
		return nil, lr.tooLargef("%d features exceed the cap of %d (LoadOptions.MaxFeatures, default DefaultMaxFeatures)", nf, lim.maxFeatures)
	}
	b := NewBuilder(nf)
	b.denseCap = lim.maxDenseCells
	if size > 0 {
		// Lines are about as long as the first; every value takes
		// at least 2 bytes, which bounds a wrong guess, and the
		// dense cap bounds a huge file.
		b.denseHint = int(min(size/int64(lineLen+1)*int64(nf)*21/20+int64(nf), size/2, int64(lim.maxDenseCells)))
	}
	return b, nil
}

// growDense makes room in b.dense for one more row of cols values: the
// capacity doubles (from 64Ki values), but stops at b.denseHint, the
// estimate of the final size from the input's size, while the rows fit
// it. Growing by doubling rather than by append's 25% keeps the garbage
// below the final size, and growing at all, rather than allocating the
// estimate at once, keeps the allocation proportional to what was read:
// a size is not content (a sparse file of 8 GB may hold one line).
func (b *Builder) growDense(cols int) {
	need := len(b.dense) + cols
	if need <= cap(b.dense) {
		return
	}
	c := max(need, 2*cap(b.dense), min(1<<16, b.denseHint))
	if b.denseHint >= need {
		c = min(c, b.denseHint)
	}
	grown := make([]float64, len(b.dense), c)
	copy(grown, b.dense)
	b.dense = grown
}

// csvFields parses the cols comma-separated feature fields of one CSV line
// (rest, counted by the caller) into b's row under construction: dense
// while b has room, else its non-zeros into the sparse arrays.
func csvFields(lr *lineReader, b *Builder, cols int, rest []byte) error {
	dense := b.denseRoom(cols) // else the row's non-zeros go to the sparse arrays
	if dense {
		b.growDense(cols)
	}
	for j := 0; ; j++ {
		f, tail, more := bytes.Cut(rest, []byte{','})
		v, err := parseValue(lr, bytes.TrimSpace(f), "field", j+4)
		if err != nil {
			return err
		}
		switch {
		case dense:
			if v != 0 {
				b.nnz++
			}
			b.dense = append(b.dense, v)
		case v != 0:
			b.colidx = append(b.colidx, int32(j))
			b.values = append(b.values, v)
		}
		if !more {
			return nil
		}
		rest = tail
	}
}

// ReadSparse reads the sparse multi-instance text format: lines starting
// with # are comments, except `# features: D` which gives the number of
// features and must come before the first instance; every other non-blank
// line is one instance, `instance_id:bag_id:label j:v j:v ...` with 1-based
// feature indices j strictly increasing and zero values omitted (a line may
// hold no feature; explicit zeros are accepted and dropped). Tokens are
// separated by spaces or tabs. Without a header D is the largest index of
// a non-zero value. A UTF-8 byte order mark at the start is skipped.
// Labels, bag grouping, storage and memory are as for ReadCSV (Auto gives
// sparse storage for vaccine.svm).
//
// A comment that looks like the header spelled another way is an error,
// not a comment, so that a misspelt dimension is not silently inferred:
// "# Features: 5", "# features = 5", "# n_features: 5", "# dim: 5",
// "# features 5" (a key meaning the number of features, in any case, with
// spaces, '_' or '-', then ':' or '=' and a number, or then only a
// number). Comments such as "# features are counts" or "# features 2 and
// 3 are correlated" stay comments.
//
// Errors (a *ParseError naming the line, and no dataset): a malformed,
// misspelt or late `# features:` header, a first token that is not three
// colon-separated fields, an empty id, a feature token that is not j:v, an
// index that is not a positive integer, exceeds D or does not increase, a
// value that is not a number or is NaN/±Inf or overflows, a label not in
// {0, 1, -1, +1} or mixing conventions, a bag whose instances disagree on
// the label, a header or index above opt.MaxFeatures or a line longer than
// opt.MaxLineBytes (these also match ErrTooLarge). No instance, invalid
// options, dense storage beyond the cap and a read error are as for
// ReadCSV; a file with neither a header nor a non-zero value returns an
// error wrapping ErrBadInput (the number of features is unknown).
func ReadSparse(r io.Reader, opt *LoadOptions) (*Dataset, error) {
	lim, err := opt.resolve()
	if err != nil {
		return nil, err
	}
	return readSparse(r, lim)
}

// readSparse is ReadSparse with the options resolved.
func readSparse(r io.Reader, lim limits) (*Dataset, error) {
	lr := newLineReader(r, lim.maxLine)
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
			if err := sparseComment(lr, b, lim, line, &headerLine, bagLine); err != nil {
				return nil, err
			}
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
		if err := sparseFeatures(lr, b, lim, rest); err != nil {
			return nil, err
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
		return nil, badInput("no # features: header and no non-zero feature: number of features unknown")
	}
	lim.input = max(lr.read, 1)
	return b.build(lim)
}

// sparseComment handles a comment line of the sparse format: a
// `# features: D` header sets b.cols (before the first instance, within
// lim.maxFeatures, agreeing with an earlier header on line *headerLine,
// which it updates); a header spelled another way is an error (see
// parseHeader); other comments are skipped. bagLine[0] is the line of the
// first instance, if any.
func sparseComment(lr *lineReader, b *Builder, lim limits, line []byte, headerLine *int, bagLine []int) error {
	d, isHeader, err := parseHeader(lr, line)
	if err != nil || !isHeader {
		return err
	}
	if b.n > 0 {
		return lr.errorf("# features: header after the first instance (line %d)", bagLine[0])
	}
	if *headerLine > 0 && d != b.cols {
		return lr.errorf("# features: %d contradicts %d on line %d", d, b.cols, *headerLine)
	}
	if d > lim.maxFeatures {
		return lr.tooLargef("# features: %s exceeds the cap of %d (LoadOptions.MaxFeatures, default DefaultMaxFeatures)", indexText(d), lim.maxFeatures)
	}
	b.cols, *headerLine = d, lr.line
	return nil
}

// sparseFeatures parses the j:v tokens of one line of the sparse format
// (rest, after its first token) into b's row under construction: indices
// positive, increasing, within b.cols (when known) and lim.maxFeatures;
// values finite, zeros dropped.
func sparseFeatures(lr *lineReader, b *Builder, lim limits, rest []byte) error {
	prev := 0
	for len(rest) > 0 {
		var tok []byte
		tok, rest = nextToken(rest)
		js, vs, ok := bytes.Cut(tok, []byte{':'})
		if !ok {
			return lr.errorf("feature %q, want index:value", tok)
		}
		j, ok := parseIndex(js)
		if !ok {
			return lr.errorf("feature index %q is not a positive integer", js)
		}
		if b.cols > 0 && j > b.cols {
			return lr.errorf("feature index %d out of range 1..%d", j, b.cols)
		}
		if j > lim.maxFeatures {
			return lr.tooLargef("feature index %s exceeds the cap of %d features (LoadOptions.MaxFeatures, default DefaultMaxFeatures)", indexText(j), lim.maxFeatures)
		}
		if j <= prev {
			return lr.errorf("feature index %d not greater than previous index %d", j, prev)
		}
		prev = j
		v, err := parseValue(lr, vs, "feature", j)
		if err != nil {
			return err
		}
		if v != 0 {
			b.colidx = append(b.colidx, int32(j-1))
			b.values = append(b.values, v)
			b.maxCol = max(b.maxCol, j-1)
		}
	}
	return nil
}

// parseHeader recognises `# features: D` (spaces optional). A comment that
// looks like the header spelled another way (see ReadSparse) is an error;
// other comments return isHeader false.
func parseHeader(lr *lineReader, line []byte) (d int, isHeader bool, err error) {
	s := bytes.TrimSpace(line[1:])
	rest, ok := bytes.CutPrefix(s, []byte("features"))
	if ok {
		rest = bytes.TrimSpace(rest)
		if val, ok := bytes.CutPrefix(rest, []byte{':'}); ok {
			val = bytes.TrimSpace(val)
			d, ok = parseIndex(val)
			if !ok {
				return 0, true, lr.errorf("bad # features: header: %q is not a positive integer", val)
			}
			return d, true, nil
		}
	}
	if looksLikeHeader(s) {
		return 0, false, lr.errorf("comment %q looks like a misspelt header: write `# features: D` (lower case, a colon) or reword the comment", line)
	}
	return 0, false, nil
}

// headerKeys are keys that name the number of features, lower case with
// spaces, tabs, '_' and '-' removed.
var headerKeys = []string{
	"feature", "features", "nfeatures", "numfeatures", "numberoffeatures", "featurecount",
	"dim", "dims", "dimension", "dimensions", "ndim", "ndims", "numdims",
}

// looksLikeHeader reports whether comment text s (after the #) is
// "key: number", "key = number" or "key number" with a key that names the
// number of features (headerKeys).
func looksLikeHeader(s []byte) bool {
	if i := bytes.IndexAny(s, ":="); i >= 0 {
		if isHeaderKey(s[:i]) && startsNumber(bytes.TrimSpace(s[i+1:])) {
			return true
		}
	}
	f := bytes.Fields(s)
	return len(f) == 2 && isHeaderKey(f[0]) && startsNumber(f[1])
}

func isHeaderKey(key []byte) bool {
	var norm []byte
	for _, c := range key {
		switch {
		case c == ' ' || c == '\t' || c == '_' || c == '-':
		case 'A' <= c && c <= 'Z':
			norm = append(norm, c+'a'-'A')
		default:
			norm = append(norm, c)
		}
	}
	return slices.Contains(headerKeys, string(norm))
}

// startsNumber reports whether s starts with a digit, or a sign and a
// digit.
func startsNumber(s []byte) bool {
	if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	return len(s) > 0 && '0' <= s[0] && s[0] <= '9'
}

// parseIndex parses a positive decimal integer below 2^31 (no sign).
func parseIndex(s []byte) (int, bool) {
	if len(s) == 0 {
		return 0, false
	}
	var n int64
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		// Saturate past int32 (no overflow of n, however many digits): a
		// well-formed index beyond any cap is returned as such, so that
		// the caller reports it against MaxFeatures (ErrTooLarge).
		n = min(n*10+int64(c-'0'), math.MaxInt32)
	}
	if n < 1 {
		return 0, false
	}
	return int(n), true
}

// indexText formats an index from parseIndex, saturated at MaxInt32.
func indexText(n int) string {
	if n >= math.MaxInt32 {
		return fmt.Sprintf("%d or more", math.MaxInt32)
	}
	return strconv.Itoa(n)
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

// checkRegular returns the error of stat(path), wrapped, or one wrapping
// ErrBadInput when path is not a regular file.
func checkRegular(path string, stat func(string) (os.FileInfo, error)) error {
	st, err := stat(path)
	switch {
	case err != nil:
		return fmt.Errorf("mil: %w", err)
	case !st.Mode().IsRegular():
		return badInput("LoadFile: %s is not a regular file (mode %v); read other sources with Read", path, st.Mode().Type())
	}
	return nil
}

// Read reads either format, telling them apart by content: input whose
// first non-blank line (after a byte order mark) starts with # or has no
// comma is read by ReadSparse, other input by ReadCSV.
func Read(r io.Reader, opt *LoadOptions) (*Dataset, error) {
	lim, err := opt.resolve()
	if err != nil {
		return nil, err
	}
	size := sizeHint(r)
	br := bufio.NewReaderSize(r, 64<<10)
	peek, err := br.Peek(64 << 10)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, fmt.Errorf("mil: %w", err)
	}
	if looksSparse(peek) {
		return readSparse(br, lim)
	}
	return readCSV(br, lim, size)
}

func looksSparse(peek []byte) bool {
	peek = bytes.TrimPrefix(peek, []byte(bom))
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
//
// The file must be a regular file (a symbolic link to one is followed):
// a named pipe, a device, a socket or a directory is refused with an
// error wrapping ErrBadInput before it is opened, since opening or
// reading one can block forever (a FIFO without a writer) or never end;
// read such a source with Read, whose reader the caller can close. A
// regular file is read to its end, so LoadFile returns. An error opening
// or reading the file is returned wrapped (errors.Is(err, fs.ErrNotExist)
// holds for a missing file).
func LoadFile(path string, opt *LoadOptions) (*Dataset, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if err := checkRegular(path, os.Stat); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("mil: %w", err)
	}
	defer f.Close()
	// The path may have been replaced between the two calls.
	if err := checkRegular(path, func(string) (os.FileInfo, error) { return f.Stat() }); err != nil {
		return nil, err
	}
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
