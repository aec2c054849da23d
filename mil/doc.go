// Package mil is multi-instance learning on top of the neADMM engine: a
// dataset is a set of bags, each holding one or more instances (feature
// vectors) and one 0/1 label, and a model scores bags. It holds the data
// side (dense or sparse datasets, their loaders and products), the learner
// of the paper's section 3.2 (Algorithm 3) with the choice of its settings
// by cross-validation, bag-level metrics and the evaluation protocol
// (stratified cross-validation and the paper's 80/20 split).
//
// Load or build a dataset, fit on training bags, score others:
//
//	d, err := mil.LoadFile(path, nil)         // or Read, ReadCSV, ReadSparse, NewDense, NewSparse, Builder
//	train, err := d.Subset(trainBags)         // shares d's storage
//	test, err := d.Subset(testBags)
//	m, sel, err := mil.FitCV(ctx, train, mil.DefaultSearch()) // or mil.Fit(ctx, train, mil.DefaultOptions())
//	scores, err := m.BagScores(test)          // BagScoresTo fills caller buffers, allocating nothing
//	met, err := mil.Evaluate(scores, test.Labels(), 0)
//	_, err = m.WriteTo(f)                     // then in a service: m, err := mil.ReadModel(f, nil)
//	score, err := m.ScoreBag(x)               // one bag's instances, row-major, as a request brings them
//
// A bag is predicted positive when its score is >= 0; BagProbabilities is
// the logistic sigmoid of the score, and Witnesses names the instance that
// makes each bag's score. Evaluate computes the paper's Table 1 metrics
// from bag scores; Protocol runs any ScoreFunc under KFold or PaperSplit;
// Synthetic draws bags with a planted max rule. The instances of a bag are
// contiguous: bag k owns instances BagPtr()[k] to BagPtr()[k+1]-1, the
// order of every per-instance vector.
//
// # Contract
//
// Errors: everything that files, arrays, options or sizes can cause returns
// an error wrapping ErrBadInput, matched with errors.Is; one caused by a cap
// also matches ErrTooLarge and names the cap; training bags of one class
// also match ErrOneClass; a malformed line of a file is a *ParseError with its
// line number (and the file name from LoadFile). Options are checked before
// any input is read or any work is done (LoadOptions.Validate,
// Options.Validate, Search.Validate); enumeration values outside their
// constants are errors. A bag score that is not finite (features so large
// that the products overflow) is an error, with NaN in that bag's output
// (-1 for its witness); Fit returns no model whose coefficients or
// training scores are not finite. A read error is returned wrapped, not
// as a ParseError; LoadFile reads regular files only. A nil context is
// refused; cancelling the context of Fit, FitCV or Protocol.Run returns
// its error, wrapped, within milliseconds. The metrics return NaN with one
// of their own sentinels (ErrEmpty, ErrOneClass, ...) where a metric is
// undefined. The accessors of a nil or zero Dataset answer 0 (or nil).
//
// Panics are for programmer errors only: BagRange, BagID and InstanceID for
// an index out of range, as slice indexing does, and the low-level Dataset
// products (MulVec, MulTransVec, Gram) on mismatched lengths or a zero
// Dataset, naming the function. Nothing in the loaders or the learner
// panics on input.
//
// Concurrency: Dataset and Model are immutable and safe for concurrent use;
// a Builder is not. Fit is sequential; FitCV and Protocol.Run run on all
// cores (Search.Workers, Protocol.Workers) with results that do not depend
// on the number of workers; a panic in a ScoreFunc on a worker is raised
// again in the caller's goroutine.
//
// Allocation and caps: the *To methods of Model (BagScoresTo, WitnessesTo,
// ...) and its raw-bag methods (ScoreBag, ...) allocate nothing. Every size
// read from input is checked against a cap of LoadOptions before it is
// allocated (features, dense cells, line and model-file bytes); within them
// the loaders allocate in proportion to what they read. Fit refuses to
// start when its estimate of what it allocates exceeds Options.MaxBytes
// (DefaultMaxBytes, 2 GiB); FitCV keeps one fold's setup per worker alive
// and caps its grid (MaxSearchFits) and tables (Base.MaxBytes) first.
//
// # Serving
//
// A Model saves as JSON and loads bit for bit in every output (json.Marshal
// or WriteTo; json.Unmarshal or ReadModel, with LoadOptions' caps): one
// versioned object, {"format": "mil.Model", "version": 1, "features": D,
// "pooling": "max", "beta0": b, "options": {...}, "result": {...}, "beta":
// [...]}, fields listed by Model.MarshalJSON, each checked before it is
// trusted or allocated. ScoreBag and its kin score one bag given as
// arrays; a dataset built only to score needs no labels (nil; NaN for a
// Builder), and Fit, FitCV, Protocol.Run and the metrics refuse it.
//
// # The learner
//
// Fit minimizes, over beta in R^D and an unpenalized bias beta0,
//
//	(1/B) sum_i w_i log(1 + exp(-s_i q_i)) + lambda ||beta||_1,
//	q_i = P(x_i1 . beta + beta0, ..., x_in . beta + beta0),
//
// (s_i = +1 for a positive bag, -1 for a negative one; P the pooling, by
// default the paper's max) by neADMM with x1 = (q, beta, beta0), x2 = t and
// the constraints q = P(t) per bag, t = X beta + beta0. Each iteration:
//
//   - q-update (eq. 7): per bag, w log(1 + exp(-s q)) + rho/2 (q - c)^2
//     by safeguarded Newton, to machine precision;
//   - beta-update (eq. 8): a lasso by neadmm.FISTA, warm-started, on the
//     Gram matrix of [X 1] (BetaGram) or the data's products (BetaDirect);
//   - t-update (eqs. 9-10): per bag, the exact global minimizer of
//     (b - P(t))^2 + ||t - phi||^2 (neadmm.MaxProx, neadmm.TopKProx).
//
// Pooling offers the max (MaxPooling), the mean of the k largest instance
// scores (TopKPooling, TopFracPooling), the mean (MeanPooling: convex,
// solved on the bag means), and two models on bag features scored through
// the same Model methods: each feature's maximum over the bag
// (FeatureMaxPooling), and its mean and maximum together
// (FeatureMeanMaxPooling, Model.BagCoefficients). Features are
// standardized inside Fit (Options.Scaling) and the coefficients mapped
// back, so a Model takes raw data. Fit stops when the primal residual and
// the objective have settled (Options.ObjTol): on this nonconvex problem
// the dual residual need not vanish, so FitResult.Converged is often false.
//
// FitCV chooses lambda, the pooling and the scaling by stratified
// cross-validation inside the training bags (Search, DefaultSearch),
// repeated on small sets (Search.MinTestBags), scoring each setting by its
// held-out deviance (Search.Criterion); it keeps a reference setting the
// cross-validation cannot tell from the best (Search.Anchors), may return
// an ensemble of two or three settings (Ensemble), and refits on all of
// them; its Selection lists every setting's scores and standard errors.
// PaperOptions is the paper's setting (summed loss, lambda = 1, fixed rho = 0.1, 100 iterations);
// DefaultOptions uses a mean loss with lambda = 0.01, a rho growing from
// 0.03 and balanced class weights. The paper's numbers came from MATLAB's
// perfcurve: compare its AUPR with Metrics.AUPRTrapz, not Metrics.AUPR.
//
// Measurements (defaults against the paper's, FitCV against the simple
// baselines, cost): docs/mil.md and docs/results.md in the repository.
package mil
