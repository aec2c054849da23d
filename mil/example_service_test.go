package mil_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/neadmm/neadmm/mil"
)

// scoreRequest is the body a client posts to /score: one bag, its
// instances given dense (NumFeatures values each) or sparse (the non-zero
// features of each, by 0-based index in increasing order).
type scoreRequest struct {
	Instances [][]float64      `json:"instances,omitempty"`
	Sparse    []sparseInstance `json:"sparse,omitempty"`
}

type sparseInstance struct {
	Index []int32   `json:"index"`
	Value []float64 `json:"value"`
}

// scoreResponse is the answer: the bag's score, its probability of being
// positive, the prediction (score >= 0) and the witness (the index of the
// instance with the highest score).
type scoreResponse struct {
	Score       float64 `json:"score"`
	Probability float64 `json:"probability"`
	Positive    bool    `json:"positive"`
	Witness     int     `json:"witness"`
}

// scoreHandler serves m: POST /score scores the posted bag. Requests are
// served concurrently; the model is shared, as it may be.
func scoreHandler(m *mil.Model) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /score", func(w http.ResponseWriter, r *http.Request) {
		var req scoreRequest
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		res, err := scoreBag(m, &req)
		switch {
		case errors.Is(err, mil.ErrBadInput):
			http.Error(w, err.Error(), http.StatusBadRequest)
		case err != nil:
			http.Error(w, err.Error(), http.StatusInternalServerError)
		default:
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(res)
		}
	})
	return mux
}

// scoreBag scores the bag of req with ScoreBag or ScoreSparseBag, which
// check it (lengths, indices) and return errors wrapping mil.ErrBadInput.
func scoreBag(m *mil.Model, req *scoreRequest) (scoreResponse, error) {
	var res scoreResponse
	var err error
	if req.Sparse != nil {
		rowptr := []int{0}
		var colidx []int32
		var values []float64
		for _, in := range req.Sparse {
			colidx, values = append(colidx, in.Index...), append(values, in.Value...)
			rowptr = append(rowptr, len(colidx))
		}
		if res.Score, err = m.ScoreSparseBag(rowptr, colidx, values); err == nil {
			res.Witness, err = m.WitnessSparseBag(rowptr, colidx, values)
		}
	} else {
		x := make([]float64, 0, len(req.Instances)*m.NumFeatures())
		for _, in := range req.Instances {
			if len(in) != m.NumFeatures() {
				return res, fmt.Errorf("%w: an instance of %d features, want %d", mil.ErrBadInput, len(in), m.NumFeatures())
			}
			x = append(x, in...)
		}
		if res.Score, err = m.ScoreBag(x); err == nil {
			res.Witness, err = m.WitnessBag(x)
		}
	}
	res.Probability, res.Positive = mil.Probability(res.Score), res.Score >= 0
	return res, err
}

// postBag posts req to the service at url and decodes the answer.
func postBag(client *http.Client, url string, req *scoreRequest) (scoreResponse, int, error) {
	var res scoreResponse
	body, err := json.Marshal(req)
	if err != nil {
		return res, 0, err
	}
	resp, err := client.Post(url+"/score", "application/json", bytes.NewReader(body))
	if err != nil {
		return res, 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		err = json.NewDecoder(resp.Body).Decode(&res)
	}
	return res, resp.StatusCode, err
}

// denseRequest returns bag k of d as a request with dense instances.
func denseRequest(d *mil.Dataset, k int) *scoreRequest {
	var req scoreRequest
	a, b := d.BagRange(k)
	for i := a; i < b; i++ {
		row := make([]float64, d.NumFeatures())
		_ = d.Row(row, i)
		req.Instances = append(req.Instances, row)
	}
	return &req
}

// A scoring service: train a model, save it, load it in the serving
// process, and score bags that clients post over HTTP, one bag per
// request.
func Example_service() {
	// Train (offline) and save the model.
	d, _, err := mil.Synthetic(mil.SynthConfig{Bags: 200, Features: 10, MinInstances: 2, MaxInstances: 8, Seed: 3})
	if err != nil {
		fmt.Println(err)
		return
	}
	m, err := mil.Fit(context.Background(), d, mil.DefaultOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	var file bytes.Buffer // a real service writes a file: f, _ := os.Create("model.json")
	if _, err := m.WriteTo(&file); err != nil {
		fmt.Println(err)
		return
	}

	// The service loads it and serves (a real one: http.ListenAndServe(":8080", handler)).
	loaded, err := mil.ReadModel(&file, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	srv := httptest.NewServer(scoreHandler(loaded))
	defer srv.Close()

	// A client posts bag 0 of d, then a bag of the wrong width.
	res, status, err := postBag(srv.Client(), srv.URL, denseRequest(d, 0))
	if err != nil {
		fmt.Println(err)
		return
	}
	one, _ := d.Subset([]int{0})
	want, _ := m.BagScores(one)
	fmt.Println("status", status, "- positive:", res.Positive, "- label:", d.Labels()[0])
	fmt.Println("the score BagScores gives:", res.Score == want[0])
	_, status, _ = postBag(srv.Client(), srv.URL, &scoreRequest{Instances: [][]float64{{1, 2, 3}}})
	fmt.Println("a bag of 3 features: status", status)
	// Output:
	// status 200 - positive: true - label: 1
	// the score BagScores gives: true
	// a bag of 3 features: status 400
}
