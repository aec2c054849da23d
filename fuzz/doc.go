// Package fuzz holds the differential fuzz targets of the module (Go native
// fuzzing, go test -fuzz). It has no API: the targets are in its tests, and
// this file and decode.go hold what they share.
//
// Targets, each checking every result against a specification derived in
// the test, not against a second copy of the code under test:
//
//	FuzzDot            vec.Dot on every implementation against the exact sum
//	FuzzAxpy           vec.Axpy, AddScaledTo, Sub: fused or unfused, bit for bit
//	FuzzSoftThreshold  vec.SoftThreshold: bit for bit, panics on a bad threshold
//	FuzzNrm2           vec.Nrm2, Asum, Scal against exact results
//	FuzzMulVec         vec.MulVec, MulTransVec: every entry against its exact sum;
//	                   GradSweep: the same bits as MulVec, map, MulTransVec
//	FuzzSphereProx     neadmm.SphereProx: optimality, stationarity, special cases
//	FuzzMaxProx        neadmm.MaxProx against an exhaustive reference
//	FuzzTopKProx       neadmm.TopKProx and MeanProx against an exhaustive reference
//	FuzzReadCSV        mil.ReadCSV and Read: no panic, consistent datasets
//	FuzzReadSparse     mil.ReadSparse and Read: no panic, consistent datasets
//	FuzzNewSparse      mil.NewSparse against its documented rules; the data layer on what it accepts
//	FuzzFitText        mil.Fit on tiny datasets the loaders read: deadline, memory budget, error kinds
//	FuzzFitArrays      mil.Fit on tiny datasets from NewDense/NewSparse, values at any scale
//	FuzzReadModel      mil.ReadModel: no panic, ErrBadInput, a loaded model saves and
//	                   reads back to the same bytes and scores
//
// Two targets test unexported code and so live in their packages (.ci/fuzz
// runs them too; their findings go to that package's testdata/fuzz):
//
//	FuzzBagMeans        mil: the bag means of mean pooling against exact sums
//	FuzzProbitFlipCode  onebit: the probit sign code against a grid, scale-freedom
//
// The vec targets run every input through every implementation of vec this
// CPU can run (vec.Implementations: avx512, avx2 and generic on an AVX-512
// machine; go test -v -run TestImplementations lists them), called through
// each one's vec.Kernels, inside guard bands from internal/guard; the
// SphereProx target switches vec's package functions with internal/vectest.
// They decode the fuzzer's bytes into float64 values through source, which
// reaches every bit pattern and makes special values (NaN, ±Inf, ±0,
// subnormals, extremes) and exactly representable moderate values cheap for
// the fuzzer to find.
//
// Run one target for longer with
//
//	go test -run '^$' -fuzz '^FuzzDot$' -fuzztime 1h ./fuzz/
//
// A failing input is written to testdata/fuzz/FuzzDot/ and replayed by every
// plain go test run from then on. The hard cases of each target are files
// there too (besides the f.Add seeds, which sweep lengths and scales): one
// file per case, named for it, with a comment after the value saying what
// it holds (go test accepts a trailing // comment on a value line, not a
// line of its own). Keep a finding the same way: rename the file the fuzzer
// wrote, add the comment, and commit it with the fix.
package fuzz
