package mil

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/neadmm/neadmm/internal/datadir"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fitEveryPooling fits a model of every pooling of poolingsUnderTest to
// train (at most maxIter iterations) and returns them and their ensemble,
// named by pooling.
func fitEveryPooling(t *testing.T, train *Dataset, maxIter int) ([]*Model, []string) {
	t.Helper()
	var ms []*Model
	var names []string
	for _, p := range poolingsUnderTest {
		opt := DefaultOptions()
		opt.Pooling, opt.MaxIter = p, maxIter
		m, err := Fit(context.Background(), train, opt)
		require.NoError(t, err, p.String())
		ms, names = append(ms, m), append(names, p.String())
	}
	e, err := Ensemble(ms...)
	require.NoError(t, err)
	return append(ms, e), append(names, "ensemble")
}

// requireSameModel checks that got is want in every field (the
// coefficients bit for bit) and gives the same bits in every output on
// each dataset.
func requireSameModel(t *testing.T, want, got *Model, name string, data ...*Dataset) {
	t.Helper()
	require.True(t, reflect.DeepEqual(want, got), "%s: loaded model differs:\n%+v\n%+v", name, want, got)
	sameBits := func(what string, a, b []float64) {
		t.Helper()
		require.Equal(t, len(a), len(b), "%s %s", name, what)
		for i := range a {
			if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
				t.Fatalf("%s %s[%d]: %v, want %v", name, what, i, b[i], a[i])
			}
		}
	}
	for i, p := range want.parts {
		sameBits("part beta", p.beta, got.parts[i].beta)
		sameBits("part beta0", []float64{p.beta0}, []float64{got.parts[i].beta0})
	}
	sameBits("beta", want.beta, got.beta)
	sameBits("beta0", []float64{want.beta0}, []float64{got.beta0})
	sameBits("weights", want.weights, got.weights)
	for _, d := range data {
		for what, f := range map[string]func(*Model, *Dataset) ([]float64, error){
			"BagScores": (*Model).BagScores, "BagProbabilities": (*Model).BagProbabilities,
			"Predict": (*Model).Predict, "InstanceScores": (*Model).InstanceScores,
		} {
			a, err := f(want, d)
			require.NoError(t, err)
			b, err := f(got, d)
			require.NoError(t, err)
			sameBits(what, a, b)
		}
		wa, err := want.Witnesses(d)
		require.NoError(t, err)
		wb, err := got.Witnesses(d)
		require.NoError(t, err)
		require.Equal(t, wa, wb, "%s witnesses", name)
	}
}

// TestModelJSONRoundTrip: every way to save and load gives back the model
// (every pooling, an ensemble), with the same bits in every output on
// dense and sparse data, and saving the loaded model gives the same bytes.
func TestModelJSONRoundTrip(t *testing.T) {
	_, train, test, _ := synthSplit(t, SynthConfig{Bags: 80, Features: 6, MinInstances: 1, MaxInstances: 6, Seed: 11}, 50)
	models, names := fitEveryPooling(t, train, 200)
	sparse := convert(t, test, Sparse)
	for i, m := range models {
		b, err := json.Marshal(m)
		require.NoError(t, err)
		bv, err := json.Marshal(*m)
		require.NoError(t, err)
		require.Equal(t, string(b), string(bv), "%s: *Model and Model marshal alike", names[i])

		var v Model
		require.NoError(t, json.Unmarshal(b, &v), names[i])
		var p *Model
		require.NoError(t, json.Unmarshal(b, &p), names[i])
		r, err := ReadModel(bytes.NewReader(b), nil)
		require.NoError(t, err, names[i])
		var file bytes.Buffer
		n, err := m.WriteTo(&file)
		require.NoError(t, err)
		require.Equal(t, int64(file.Len()), n)
		require.True(t, strings.HasSuffix(file.String(), "}\n"))
		w, err := ReadModel(&file, nil)
		require.NoError(t, err, names[i])
		for _, got := range []*Model{&v, p, r, w} {
			requireSameModel(t, m, got, names[i], test, sparse)
			again, err := json.Marshal(got)
			require.NoError(t, err)
			require.Equal(t, string(b), string(again), "%s: saving the loaded model", names[i])
		}
		// Inside another value, as a service's config would hold it.
		type holder struct {
			Name  string
			Model *Model
		}
		hb, err := json.Marshal(holder{"m", m})
		require.NoError(t, err)
		var h holder
		require.NoError(t, json.Unmarshal(hb, &h))
		requireSameModel(t, m, h.Model, names[i], test)
	}
}

// TestModelJSONEnsembleOnFox: an ensemble of fits on real data (fox) of
// different poolings, saved and loaded, scores every bag with the same
// bits (rebuilding it from Coefficients and Pooling would not: the mean
// of max-pooled scores is not the max of the mean scores).
func TestModelJSONEnsembleOnFox(t *testing.T) {
	d, err := LoadFile(datadir.File(t, "fox.csv"), nil)
	require.NoError(t, err)
	models, _ := fitEveryPooling(t, d, 40)
	e := models[len(models)-1]
	var file bytes.Buffer
	_, err = e.WriteTo(&file)
	require.NoError(t, err)
	got, err := ReadModel(&file, nil)
	require.NoError(t, err)
	requireSameModel(t, e, got, "fox ensemble", d, convert(t, d, Sparse))
	assert.Len(t, got.Parts(), len(poolingsUnderTest))
}

// TestModelJSONFloatBits: -0, subnormals, the extremes and values that
// need 17 digits come back bit for bit.
func TestModelJSONFloatBits(t *testing.T) {
	beta := []float64{math.Copysign(0, -1), 0, 5e-324, -5e-324, 2.2250738585072014e-308, math.MaxFloat64, -math.MaxFloat64,
		1.0 / 3, 0.1, 1e21, 1e-7, 123456789012345678, math.Nextafter(1, 2)}
	m := &Model{beta: beta, beta0: math.Copysign(0, -1), opt: Options{Pooling: TopFracPooling(1.0 / 3)}}
	b, err := json.Marshal(m)
	require.NoError(t, err)
	got, err := ReadModel(bytes.NewReader(b), nil)
	require.NoError(t, err)
	for j := range beta {
		assert.Equal(t, math.Float64bits(beta[j]), math.Float64bits(got.beta[j]), "beta[%d] = %v", j, beta[j])
	}
	assert.Equal(t, math.Float64bits(m.beta0), math.Float64bits(got.beta0))
	assert.Equal(t, m.opt.Pooling, got.opt.Pooling)
}

// TestModelJSONFormat pins the file of a small model, as the package
// documentation describes it, and of an ensemble of two.
func TestModelJSONFormat(t *testing.T) {
	m := &Model{beta: []float64{0.5, 0, -1.25}, beta0: -0.75, opt: Options{Pooling: TopKPooling(2)}}
	b, err := json.Marshal(m)
	require.NoError(t, err)
	const opts = `{"Lambda":0,"Loss":"mean","Weighting":"uniform","Scaling":"auto","Pooling":"topk:2","Rho":0,"RhoGrowth":0,"RhoMax":0,` +
		`"MaxIter":0,"EpsAbs":0,"EpsRel":0,"ObjTol":0,"Beta":"auto","InnerMaxIter":0,"InnerTol":0,"MaxBytes":0,"RhoPolicy":"geometric"}`
	const res = `{"Iterations":0,"Stalled":false,"Primal":0,"Dual":0,"EpsPrimal":0,"EpsDual":0,"Rho":0,"Objective":0,"Loss":0,` +
		`"NonZero":0,"InnerIterations":0,"Beta":"auto","Sparse":false,"Lipschitz":0,"Bytes":0,` +
		`"Time":{"Total":0,"Setup":0,"QUpdate":0,"BetaUpdate":0,"TUpdate":0,"Engine":0},"Reason":"StopReason(0)"}`
	assert.Equal(t, `{"format":"mil.Model","version":1,"features":3,"pooling":"topk:2","beta0":-0.75,"options":`+opts+
		`,"result":`+res+`,"beta":[0.5,0,-1.25]}`, string(b))

	m2 := &Model{beta: []float64{1, 2, 3}, opt: Options{Pooling: MaxPooling()}}
	e, err := Ensemble(m, m2)
	require.NoError(t, err)
	b, err = json.Marshal(e)
	require.NoError(t, err)
	part := func(p string, beta0, beta string) string {
		return `{"pooling":"` + p + `","beta0":` + beta0 + `,"options":` + strings.Replace(opts, "topk:2", p, 1) + `,"result":` + res + `,"beta":` + beta + `}`
	}
	assert.Equal(t, `{"format":"mil.Model","version":1,"features":3,"weights":[0.5,0.5],"parts":[`+
		part("topk:2", "-0.75", "[0.5,0,-1.25]")+","+part("max", "0", "[1,2,3]")+`]}`, string(b))
}

// modelFile returns the file of a small model with the text old replaced
// by new (once; the text must be there).
func modelFile(t *testing.T, m *Model, old, new string) string {
	t.Helper()
	b, err := json.Marshal(m)
	require.NoError(t, err)
	require.Contains(t, string(b), old)
	return strings.Replace(string(b), old, new, 1)
}

// TestReadModelRejects: files that are not valid model files are errors
// wrapping ErrBadInput (ErrTooLarge for the caps), never a panic, from
// ReadModel and from json.Unmarshal alike.
func TestReadModelRejects(t *testing.T) {
	m := &Model{beta: []float64{0.5, 0, -1.25}, beta0: -0.75, opt: Options{Pooling: TopKPooling(2)}}
	e, err := Ensemble(m, &Model{beta: []float64{1, 2, 3}})
	require.NoError(t, err)
	good, err := json.Marshal(m)
	require.NoError(t, err)
	parts := strings.Repeat(`{"pooling":"max","beta0":0,"beta":[1]},`, MaxEnsembleParts)
	mm := modelOf(FeatureMeanMaxPooling(), []float64{0.5, 0, -1.25, 2, 0, 1}, 3, 0.25)
	for _, c := range []struct {
		name, file string
		tooLarge   bool
		msg        string
	}{
		{"empty", "", false, "not a model file"},
		{"null", "null", false, `format ""`},
		{"array", "[1,2]", false, "not a model file"},
		{"other format", modelFile(t, m, `"mil.Model"`, `"onebit.Model"`), false, `format "onebit.Model"`},
		{"version 2", modelFile(t, m, `"version":1`, `"version":2`), false, "version 2, this reader reads version 1"},
		{"no version", modelFile(t, m, `"version":1,`, ``), false, "version 0"},
		{"truncated", string(good[:len(good)/2]), false, "not a model file"},
		{"after the object", string(good) + " {}", false, "not a model file"},
		{"unknown field", modelFile(t, m, `"beta0"`, `"bias":1,"beta0"`), false, `unknown field "bias"`},
		{"unknown option", modelFile(t, m, `"Lambda"`, `"Lamda":1,"Lambda"`), false, `unknown field "Lamda"`},
		{"no features", modelFile(t, m, `"features":3,`, ``), false, "features = 0"},
		{"negative features", modelFile(t, m, `"features":3`, `"features":-3`), false, "features = -3"},
		{"features over the cap", modelFile(t, m, `"features":3`, `"features":1048577`), true, "1048577 features exceed the cap of 1048576"},
		{"features not int", modelFile(t, m, `"features":3`, `"features":3.5`), false, "features"},
		{"short beta", modelFile(t, m, `[0.5,0,-1.25]`, `[0.5,0]`), false, "beta has 2 values, want 3"},
		{"long beta", modelFile(t, m, `[0.5,0,-1.25]`, `[0.5,0,-1.25,1]`), false, "beta has 4 values, want 3"},
		{"meanmax sum overflows", modelFile(t, mm, `[0.5,0,-1.25,2,0,1]`, `[1.7976931348623157e308,0,-1.25,1.7976931348623157e308,0,1]`), false, "add up to more than a float64 holds"},
		{"meanmax beta of features", modelFile(t, mm, `[0.5,0,-1.25,2,0,1]`, `[2.5,0,-0.25]`), false, "beta has 3 values, want 6"},
		{"beta not an array", modelFile(t, m, `[0.5,0,-1.25]`, `{"a":1}`), false, "beta: want an array"},
		{"beta string", modelFile(t, m, `[0.5,0,-1.25]`, `[0.5,"NaN",1]`), false, "beta"},
		{"beta overflow", modelFile(t, m, `[0.5,0,-1.25]`, `[0.5,1e999,1]`), false, "beta"},
		{"beta0 overflow", modelFile(t, m, `"beta0":-0.75`, `"beta0":-1e400`), false, "beta0"},
		{"no beta", modelFile(t, m, `,"beta":[0.5,0,-1.25]`, ``), false, "beta: want an array of 3 numbers"},
		{"no beta0", modelFile(t, m, `"beta0":-0.75,`, ``), false, "no beta0"},
		{"no pooling", modelFile(t, m, `"pooling":"topk:2",`, ``), false, "no pooling"},
		{"unknown pooling", modelFile(t, m, `"pooling":"topk:2"`, `"pooling":"median"`), false, `pooling "median": unknown`},
		{"pooling parameter", modelFile(t, m, `"pooling":"topk:2"`, `"pooling":"topk:0"`), false, `pooling "topk:0": parameter`},
		{"pooling differs", modelFile(t, m, `"pooling":"topk:2"`, `"pooling":"topk:3"`), false, "options.Pooling top2 differs from the model's pooling top3"},
		{"unknown enum", modelFile(t, m, `"Loss":"mean"`, `"Loss":"median"`), false, `LossScale "median" unknown`},
		{"unknown reason", modelFile(t, m, `"Reason":"StopReason(0)"`, `"Reason":"done"`), false, `StopReason "done" unknown`},
		{"weights alone", modelFile(t, m, `"features":3,`, `"features":3,"weights":[1],`), false, "weights without parts"},
		{"ensemble with beta", modelFile(t, e, `"weights"`, `"beta":[1,2,3],"weights"`), false, "in its parts only"},
		{"no weights", modelFile(t, e, `"weights":[0.5,0.5],`, ``), false, "weights: want an array of 2 numbers"},
		{"weights short", modelFile(t, e, `[0.5,0.5]`, `[1]`), false, "weights has 1 values, want 2"},
		{"weights overflow", modelFile(t, e, `[0.5,0.5]`, `[1e999,1]`), false, "weights"},
		{"no parts", `{"format":"mil.Model","version":1,"features":3,"weights":[],"parts":[]}`, false, "parts: want an array of one or more"},
		{"parts not an array", modelFile(t, e, `"parts":[`, `"parts":{"a":[`), false, "not a model file"},
		{"nested ensemble", modelFile(t, e, `{"pooling":"max"`, `{"parts":[{}],"weights":[1],"pooling":"max"`), false, "part 1 is an ensemble"},
		{"part with features", modelFile(t, e, `{"pooling":"max"`, `{"features":3,"pooling":"max"`), false, "part 1: format, version and features"},
		{"part beta short", modelFile(t, e, `[1,2,3]`, `[1,2]`), false, "part 1: beta has 2 values, want 3"},
		{"part unknown field", modelFile(t, e, `{"pooling":"max"`, `{"w":1,"pooling":"max"`), false, `part 1: json: unknown field "w"`},
		{"too many parts", `{"format":"mil.Model","version":1,"features":1,"weights":[],"parts":[` + parts + `{}]}`, true,
			"257 ensemble parts exceed the cap of MaxEnsembleParts = 256"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got *Model
			noPanic(t, c.name, func() { got, err = ReadModel(strings.NewReader(c.file), nil) })
			requireBadInput(t, err, c.tooLarge, c.msg)
			assert.Nil(t, got)
			if c.file == "null" {
				return // json.Unmarshal of null is no model, not an error
			}
			before := &Model{beta: []float64{7}}
			v := *before
			noPanic(t, c.name, func() { err = json.Unmarshal([]byte(c.file), &v) })
			require.Error(t, err)
			if c.file != "" && json.Valid([]byte(c.file)) { // else json's own syntax error
				requireBadInput(t, err, c.tooLarge, c.msg)
				assert.Contains(t, err.Error(), "Model.UnmarshalJSON")
			}
			assert.True(t, reflect.DeepEqual(before, &v), "a failed Unmarshal changed the model")
		})
	}
}

// errReader fails after its data.
type errReader struct{ r io.Reader }

var errDisk = errors.New("disk on fire")

func (e errReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err == io.EOF {
		return n, errDisk
	}
	return n, err
}

// TestReadModelCaps: the caps of LoadOptions apply, invalid options and a
// nil reader are refused, and a read error is returned as itself.
func TestReadModelCaps(t *testing.T) {
	m := &Model{beta: []float64{0.5, 0, -1.25}, beta0: -0.75}
	b, err := json.Marshal(m)
	require.NoError(t, err)
	_, err = ReadModel(bytes.NewReader(b), &LoadOptions{MaxModelBytes: len(b)})
	require.NoError(t, err, "a file of exactly the cap")
	_, err = ReadModel(bytes.NewReader(b), &LoadOptions{MaxModelBytes: len(b) - 1})
	requireBadInput(t, err, true, "exceeds the cap of "+strconv.Itoa(len(b)-1)+" bytes (LoadOptions.MaxModelBytes")
	_, err = ReadModel(bytes.NewReader(b), &LoadOptions{MaxFeatures: 2})
	requireBadInput(t, err, true, "3 features exceed the cap of 2 (LoadOptions.MaxFeatures")
	_, err = ReadModel(bytes.NewReader(b), &LoadOptions{MaxModelBytes: -1})
	requireBadInput(t, err, false, "LoadOptions.MaxModelBytes = -1")
	_, err = ReadModel(nil, nil)
	requireBadInput(t, err, false, "nil reader")
	_, err = ReadModel(errReader{bytes.NewReader(b)}, nil)
	require.ErrorIs(t, err, errDisk)
	assert.NotErrorIs(t, err, ErrBadInput)
}

// TestReadModelCountsBeforeDecoding: an array longer than the file's
// object says is refused before it is decoded: refusing a million
// coefficients for one feature allocates a few hundred bytes (the
// error), where decoding them would allocate 8 MB.
func TestReadModelCountsBeforeDecoding(t *testing.T) {
	const n = 1 << 20
	raw := json.RawMessage("[" + strings.Repeat("0,", n-1) + "0]")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := decodeFloats("ReadModel", "beta", raw, 1)
	runtime.ReadMemStats(&after)
	requireBadInput(t, err, false, "beta has 1048576 values, want 1")
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(4096))

	file := `{"format":"mil.Model","version":1,"features":1,"pooling":"max","beta0":0,"beta":` + string(raw) + `}`
	_, err = ReadModel(strings.NewReader(file), nil)
	requireBadInput(t, err, false, "ReadModel: beta has 1048576 values, want 1")
}

// TestModelJSONMarshalErrors: a model that cannot be saved is an error,
// never "{}"; a nil *Model is null; null leaves a Model unchanged.
func TestModelJSONMarshalErrors(t *testing.T) {
	_, err := json.Marshal(Model{})
	requireBadInput(t, err, false, "Model.MarshalJSON: a Model without coefficients")
	_, err = json.Marshal(&Model{beta: []float64{math.NaN()}})
	requireBadInput(t, err, false, "Model.MarshalJSON")
	_, err = json.Marshal(&Model{beta: []float64{1}, opt: Options{Pooling: TopKPooling(0)}})
	requireBadInput(t, err, false, "Pooling.K = 0")
	var nilModel *Model
	b, err := json.Marshal(nilModel)
	require.NoError(t, err)
	assert.Equal(t, "null", string(b))
	_, err = nilModel.WriteTo(io.Discard)
	requireBadInput(t, err, false, "Model.WriteTo: nil model")
	m := Model{beta: []float64{2}}
	require.NoError(t, json.Unmarshal([]byte("null"), &m))
	assert.Equal(t, []float64{2}, m.beta)
	require.NoError(t, m.UnmarshalJSON([]byte(" null\n")))
	assert.Equal(t, []float64{2}, m.beta)
}

// vaccineFitCV returns FitCV's model of vaccine.svm (DefaultSearch), fitted
// once for the benchmarks of the model file.
func vaccineFitCV(b *testing.B) *Model {
	path := datadir.File(b, "vaccine.svm")
	vaccineOnce.Do(func() {
		var d *Dataset
		if d, vaccineOnce.err = LoadFile(path, nil); vaccineOnce.err == nil {
			vaccineOnce.m, _, vaccineOnce.err = FitCV(context.Background(), d, DefaultSearch())
		}
	})
	require.NoError(b, vaccineOnce.err)
	return vaccineOnce.m
}

var vaccineOnce struct {
	sync.Once
	m   *Model
	err error
}

// BenchmarkModelWriteVaccine saves FitCV's model of vaccine.svm with
// WriteTo (file-bytes: the file's size).
func BenchmarkModelWriteVaccine(b *testing.B) {
	m := vaccineFitCV(b)
	var file bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		file.Reset()
		if _, err := m.WriteTo(&file); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(file.Len()), "file-bytes")
	b.ReportMetric(float64(len(m.Parts())), "parts")
}

// BenchmarkReadModelVaccine reads that file back with ReadModel.
func BenchmarkReadModelVaccine(b *testing.B) {
	m := vaccineFitCV(b)
	var file bytes.Buffer
	_, err := m.WriteTo(&file)
	require.NoError(b, err)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadModel(bytes.NewReader(file.Bytes()), nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(file.Len()), "file-bytes")
}
