package mil

import (
	"math"
	"strconv"
)

// Storage selects how a dataset's feature matrix is stored, and so which
// path the products take.
type Storage int

const (
	// Auto stores sparse when the density (fraction of non-zero values) is
	// below the threshold (DefaultSparseDensity unless overridden), dense
	// otherwise.
	Auto Storage = iota
	// Dense stores a flat row-major matrix; products run on the vec kernels.
	Dense
	// Sparse stores CSR; products touch only the non-zeros.
	Sparse
)

// String returns "auto", "dense" or "sparse".
func (s Storage) String() string {
	switch s {
	case Auto:
		return "auto"
	case Dense:
		return "dense"
	case Sparse:
		return "sparse"
	}
	return "Storage(" + strconv.Itoa(int(s)) + ")"
}

func (s Storage) valid() bool { return s == Auto || s == Dense || s == Sparse }

// DefaultSparseDensity is the density below which Auto chooses sparse
// storage. The products on sparse and dense storage cost the same near
// density 0.1 while a dense matrix fits in cache and near 0.3-0.4 beyond
// it; 0.15 sits between the two (BenchmarkProductsByDensity; the timings
// are in docs/mil-options.md). vaccine.svm (density 0.005) is stored
// sparse, fox.csv (0.62) dense.
const DefaultSparseDensity = 0.15

// Caps on what input may ask of memory. Each is checked before the
// allocation it bounds, and exceeding one is an error wrapping both
// ErrBadInput and ErrTooLarge that names the cap. The LoadOptions fields
// of the same names raise (or lower) them for the loaders, Builder.Build
// and Dataset.ConvertWith; NewSparse and Dataset.Subset use the defaults.
//
// Why these values: a fit allocates about 17 float64 vectors of
// NumFeatures values with ScaleAuto, 11 without (the scaler, the
// coefficients, FISTA's state; measured at 2^14 to 2^18 features), so
// DefaultMaxFeatures (2^20, scikit-learn's default for hashed features)
// bounds that near 140 MB whatever a file's `# features:` header says.
// DefaultMaxDenseCells (2^28 values, 2 GiB) is 44 times the largest dense
// matrix timed here (4000 x 1500); beyond it, Auto stores sparse.
// DefaultMaxLineBytes (16 MiB) is 7600 times fox.csv's longest line
// (2.2 kB, 230 features), room for a dense row of about a million values.
const (
	// DefaultMaxFeatures caps NumFeatures: a `# features:` header, the
	// largest index of a sparse file or a Builder, the field count of a
	// CSV line, NewSparse's numFeatures.
	DefaultMaxFeatures = 1 << 20
	// MaxFeaturesLimit is the largest NumFeatures any dataset can have,
	// whatever the options: column indices are stored as int32.
	MaxFeaturesLimit = math.MaxInt32 - 1
	// DefaultMaxDenseCells caps NumInstances*NumFeatures of dense storage
	// (2^28 float64 = 2 GiB): Auto stores anything larger sparse, an
	// explicit Dense request for it is an error, and a Builder (so a
	// loader) accumulating rows dense switches to sparse beyond it. So a
	// tiny file declaring a huge dimension cannot exhaust memory.
	DefaultMaxDenseCells = 1 << 28
	// DefaultMaxLineBytes caps one line of a data file; a longer line is
	// a *ParseError rather than an unbounded buffer.
	DefaultMaxLineBytes = 1 << 24
	// DefaultMaxModelBytes caps a model file (ReadModel,
	// Model.UnmarshalJSON): 2^28 bytes (256 MiB) hold ten ensemble parts
	// of DefaultMaxFeatures coefficients at 25 bytes each, the longest a
	// float64 is written.
	DefaultMaxModelBytes = 1 << 28
	// MaxDenseCellsPerByte caps the dense storage of a loaded file at
	// this many values (128 bytes) per byte of input, whatever
	// MaxDenseCells allows, so that a few bytes of sparse input declaring
	// a large dimension cannot ask for gigabytes: Auto stores such a file
	// sparse, an explicit Dense is an error wrapping ErrTooLarge (load it
	// sparse and ConvertWith(Dense) to store it dense anyway). A CSV line
	// spends at least 2 bytes per value, so only sparse input reaches it;
	// vaccine.svm stored dense takes 12.7 values per byte.
	MaxDenseCellsPerByte = 16
)

// LoadOptions tunes how loaders, Builder.Build and Dataset.ConvertWith
// store the features, and the caps they and ReadModel (MaxFeatures,
// MaxModelBytes) apply. The zero value (or a nil *LoadOptions) means Auto
// with DefaultSparseDensity and the default caps.
type LoadOptions struct {
	// Storage is Auto (the zero value), Dense or Sparse.
	Storage Storage
	// SparseDensity overrides DefaultSparseDensity for Auto when > 0 (a
	// value above 1 always chooses sparse).
	SparseDensity float64
	// MaxFeatures overrides DefaultMaxFeatures when > 0; at most
	// MaxFeaturesLimit.
	MaxFeatures int
	// MaxDenseCells overrides DefaultMaxDenseCells when > 0.
	MaxDenseCells int
	// MaxLineBytes overrides DefaultMaxLineBytes when > 0 (math.MaxInt:
	// no cap; the line buffer grows with the line).
	MaxLineBytes int
	// MaxModelBytes overrides DefaultMaxModelBytes for ReadModel when > 0.
	MaxModelBytes int
}

// Validate returns an error wrapping ErrBadInput if a field is out of
// range: Storage not Auto, Dense or Sparse; SparseDensity negative, NaN or
// infinite; MaxFeatures negative or above MaxFeaturesLimit; MaxDenseCells,
// MaxLineBytes or MaxModelBytes negative. A nil *LoadOptions is valid.
func (o *LoadOptions) Validate() error {
	if o == nil {
		return nil
	}
	switch {
	case !o.Storage.valid():
		return badInput("LoadOptions.Storage = %v, want Auto, Dense or Sparse", o.Storage)
	case !(o.SparseDensity >= 0) || math.IsInf(o.SparseDensity, 1):
		return badInput("LoadOptions.SparseDensity = %v, want finite and >= 0", o.SparseDensity)
	case o.MaxFeatures < 0 || o.MaxFeatures > MaxFeaturesLimit:
		return badInput("LoadOptions.MaxFeatures = %d, want 0 (default) to MaxFeaturesLimit = %d", o.MaxFeatures, MaxFeaturesLimit)
	case o.MaxDenseCells < 0:
		return badInput("LoadOptions.MaxDenseCells = %d, want >= 0", o.MaxDenseCells)
	case o.MaxLineBytes < 0:
		return badInput("LoadOptions.MaxLineBytes = %d, want >= 0", o.MaxLineBytes)
	case o.MaxModelBytes < 0:
		return badInput("LoadOptions.MaxModelBytes = %d, want >= 0", o.MaxModelBytes)
	}
	return nil
}

// limits are LoadOptions resolved: defaults filled in.
type limits struct {
	storage       Storage
	density       float64
	maxFeatures   int
	maxDenseCells int
	maxLine       int
	maxModel      int
	// input is the size of a loader's input in bytes, which caps dense
	// storage (MaxDenseCellsPerByte); 0 for Builder.Build and ConvertWith.
	input int64
}

// resolve validates o and fills in the defaults.
func (o *LoadOptions) resolve() (limits, error) {
	l := limits{storage: Auto, density: DefaultSparseDensity, maxFeatures: DefaultMaxFeatures,
		maxDenseCells: DefaultMaxDenseCells, maxLine: DefaultMaxLineBytes, maxModel: DefaultMaxModelBytes}
	if o == nil {
		return l, nil
	}
	if err := o.Validate(); err != nil {
		return l, err
	}
	l.storage = o.Storage
	if o.SparseDensity > 0 {
		l.density = o.SparseDensity
	}
	if o.MaxFeatures > 0 {
		l.maxFeatures = o.MaxFeatures
	}
	if o.MaxDenseCells > 0 {
		l.maxDenseCells = o.MaxDenseCells
	}
	if o.MaxLineBytes > 0 {
		l.maxLine = o.MaxLineBytes
	}
	if o.MaxModelBytes > 0 {
		l.maxModel = o.MaxModelBytes
	}
	return l, nil
}

// checkFeatures returns the error for cols features beyond the cap.
func (l *limits) checkFeatures(cols int) error {
	if cols > l.maxFeatures {
		return tooLarge("%d features exceed the cap of %d (LoadOptions.MaxFeatures, default DefaultMaxFeatures)", cols, l.maxFeatures)
	}
	return nil
}

// cellsOver reports whether rows*cols > limit (all >= 0), without
// overflow.
func cellsOver(rows, cols, limit int) bool {
	return cols > 0 && rows > limit/cols
}

// chooseStorage resolves Auto for a rows x cols matrix with nnz non-zeros
// and checks the dense cap.
func chooseStorage(nnz, rows, cols int, l limits) (Storage, error) {
	tooBig := cellsOver(rows, cols, l.maxDenseCells)
	perByte := l.input > 0 && float64(rows)*float64(cols) > MaxDenseCellsPerByte*float64(l.input)
	switch l.storage {
	case Dense:
		if tooBig {
			return 0, tooLarge("dense storage of %d x %d values exceeds the cap of %d (LoadOptions.MaxDenseCells, default DefaultMaxDenseCells); store it sparse", rows, cols, l.maxDenseCells)
		}
		if perByte {
			return 0, tooLarge("dense storage of %d x %d values exceeds the cap of %d values per byte of the %d-byte input (MaxDenseCellsPerByte); load it sparse, then ConvertWith(Dense)", rows, cols, MaxDenseCellsPerByte, l.input)
		}
		return Dense, nil
	case Sparse:
		return Sparse, nil
	}
	if tooBig || perByte || float64(nnz) < l.density*float64(rows)*float64(cols) {
		return Sparse, nil
	}
	return Dense, nil
}
