package mil_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/neadmm/neadmm/internal/datadir"
	"github.com/neadmm/neadmm/mil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sparseRequest returns bag k of d as a request with sparse instances.
func sparseRequest(d *mil.Dataset, k int) *scoreRequest {
	var req scoreRequest
	for _, row := range denseRequest(d, k).Instances {
		in := sparseInstance{Index: []int32{}, Value: []float64{}}
		for j, v := range row {
			if v != 0 {
				in.Index, in.Value = append(in.Index, int32(j)), append(in.Value, v)
			}
		}
		req.Sparse = append(req.Sparse, in)
	}
	return &req
}

// TestServiceConcurrentClients runs the service of Example_service on the
// loopback address with an ensemble fitted to fox, saved and loaded, and
// drives it from concurrent clients posting every bag, dense and sparse:
// each answer is the score, probability, prediction and witness the
// original model gives the bag in a dataset of its own, bit for bit; bad
// requests get 400. Run it under -race.
func TestServiceConcurrentClients(t *testing.T) {
	d, err := mil.LoadFile(datadir.File(t, "fox.csv"), nil)
	require.NoError(t, err)
	var parts []*mil.Model
	for _, p := range []mil.Pooling{mil.MaxPooling(), mil.TopKPooling(2), mil.FeatureMaxPooling()} {
		opt := mil.DefaultOptions()
		opt.Pooling, opt.MaxIter = p, 60
		m, err := mil.Fit(context.Background(), d, opt)
		require.NoError(t, err)
		parts = append(parts, m)
	}
	m, err := mil.Ensemble(parts...)
	require.NoError(t, err)
	var file bytes.Buffer
	_, err = m.WriteTo(&file)
	require.NoError(t, err)
	loaded, err := mil.ReadModel(&file, nil)
	require.NoError(t, err)

	// What each bag must get: the original model on the bag alone.
	type answer struct {
		dense, sparse scoreResponse
	}
	want := make([]answer, d.NumBags())
	for k := range want {
		one, err := d.Subset([]int{k})
		require.NoError(t, err)
		for i, b := range []*mil.Dataset{one, mustConvert(t, one, mil.Sparse)} {
			s, err := m.BagScores(b)
			require.NoError(t, err)
			w, err := m.Witnesses(b)
			require.NoError(t, err)
			p, err := m.BagProbabilities(b)
			require.NoError(t, err)
			a := scoreResponse{Score: s[0], Probability: p[0], Positive: s[0] >= 0, Witness: w[0]}
			if i == 0 {
				want[k].dense = a
			} else {
				want[k].sparse = a
			}
		}
	}

	srv := httptest.NewServer(scoreHandler(loaded))
	defer srv.Close()
	const clients = 8
	var wg sync.WaitGroup
	errs := make([][]string, clients)
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := srv.Client()
			for k := c; k < d.NumBags(); k += clients {
				for _, sparse := range []bool{false, true} {
					req, w := denseRequest(d, k), want[k].dense
					if sparse {
						req, w = sparseRequest(d, k), want[k].sparse
					}
					got, status, err := postBag(client, srv.URL, req)
					if err != nil || status != http.StatusOK || !sameAnswer(got, w) {
						errs[c] = append(errs[c], fmt.Sprintf("bag %d sparse %v: %+v, status %d, %v; want %+v", k, sparse, got, status, err, w))
					}
				}
			}
		}()
	}
	wg.Wait()
	for c := range errs {
		assert.Empty(t, errs[c], "client %d", c)
	}

	for _, bad := range []*scoreRequest{
		{Instances: [][]float64{{1, 2}}},
		{},
		{Sparse: []sparseInstance{{Index: []int32{5000}, Value: []float64{1}}}},
		{Sparse: []sparseInstance{{Index: []int32{2, 1}, Value: []float64{1, 1}}}},
	} {
		_, status, err := postBag(srv.Client(), srv.URL, bad)
		require.NoError(t, err)
		assert.Equal(t, http.StatusBadRequest, status, "%+v", bad)
	}
	resp, err := srv.Client().Post(srv.URL+"/score", "application/json", bytes.NewReader([]byte(`{"instances": [[1e999]]}`)))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
}

// sameAnswer compares two answers, the floats bit for bit.
func sameAnswer(a, b scoreResponse) bool {
	return math.Float64bits(a.Score) == math.Float64bits(b.Score) && math.Float64bits(a.Probability) == math.Float64bits(b.Probability) &&
		a.Positive == b.Positive && a.Witness == b.Witness
}

func mustConvert(t *testing.T, d *mil.Dataset, s mil.Storage) *mil.Dataset {
	t.Helper()
	c, err := d.Convert(s)
	require.NoError(t, err)
	return c
}
