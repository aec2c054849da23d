// Package mil is multi-instance learning on top of the neADMM engine: the
// data side (datasets of bags of instances, dense or sparse, their loaders
// and the products a learner needs), the neADMM learner of the paper's
// section 3.2 (Algorithm 3), bag-level metrics and the evaluation protocol
// (stratified cross-validation and the paper's 80/20 split).
//
// A multi-instance dataset is a set of bags; each bag holds one or more
// instances (feature vectors of NumFeatures values) and one 0/1 label. The
// instances of a bag are contiguous in the dataset's instance order, so bag
// k owns instances BagPtr()[k] to BagPtr()[k+1]-1, and every per-instance
// vector (scores t = X beta, residuals r) uses that order.
//
// Data: ReadCSV, ReadSparse, Read and LoadFile parse the two formats of
// ../shared/data/README.md; Builder and NewDense/NewSparse build datasets in
// code; Synthetic generates bags with a planted max rule. The feature
// matrix is stored dense or CSR by density (DefaultSparseDensity,
// overridable by LoadOptions and Convert/ConvertWith), and MulVec,
// MulTransVec and Gram take the matching path. Subset shares the storage;
// FitScaler/Apply standardize with training statistics only, computing
// them without overflow or underflow at any scale.
//
// Evaluation: Evaluate computes the paper's Table 1 metrics (accuracy,
// precision, recall and F1 at a threshold, ROC AUC, area under the PR
// curve) from bag scores; Protocol runs a ScoreFunc under KFold or
// PaperSplit and returns a Report. The paper's numbers came from MATLAB's
// perfcurve: compare its AUPR with Metrics.AUPRTrapz, not Metrics.AUPR
// (average precision).
//
// # Untrusted input
//
// The data layer treats files, arrays and options as untrusted: whatever
// they hold, it returns an error rather than panicking, hanging or
// allocating beyond a cap. Every such error matches ErrBadInput under
// errors.Is; one caused by a cap also matches ErrTooLarge and names the
// cap; a malformed line of a file is a *ParseError with its line number
// (and the file name from LoadFile). Options are checked before any input
// is read (LoadOptions.Validate), and enumeration values outside their
// constants are errors.
//
// The caps, each checked before the allocation it bounds: NumFeatures at
// most DefaultMaxFeatures (2^20; a `# features:` header, a sparse index,
// a CSV field count, NewSparse's numFeatures), dense storage of at most
// DefaultMaxDenseCells values (2^28: Auto stores larger matrices sparse,
// Dense refuses them, loaders and Builder accumulate sparse beyond it),
// lines of at most DefaultMaxLineBytes (16 MiB). LoadOptions raises or
// lowers each for the loaders, Builder.Build and ConvertWith. Within
// them, the loaders allocate in proportion to their input (at most about
// 40 bytes per input byte, garbage included, measured on the least
// favourable shapes), so a tiny file cannot exhaust memory; to bound the
// input itself, wrap the reader in an io.LimitedReader. Subset refuses
// repeated bags that would make a subset larger than twice its dataset and
// DefaultMaxDenseCells values, since a copy of it and a fit on it are sized
// by it.
//
// What panics in the data layer: BagRange, BagID and InstanceID for an
// index out of range, as slice indexing does (the index comes from the
// caller's loop, not from data). Row, Subset, Convert, the constructors,
// the loaders and the Scaler's methods return errors, length mismatches
// included.
//
// # The learner
//
// Fit minimizes, over beta in R^D and an unpenalized bias beta0,
//
//	(1/B) sum_i w_i log(1 + exp(-s_i q_i)) + lambda ||beta||_1,
//	q_i = P(x_i1 . beta + beta0, ..., x_in . beta + beta0),
//
// (s_i = +1 for a positive bag, -1 for a negative one; P the pooling,
// by default the paper's max) by neADMM with x1 = (q, beta, beta0),
// x2 = t and the constraints q = P(t) per bag, t = X beta + beta0. Each
// iteration:
//
//   - q-update (eq. 7): per bag, the 1-D strictly convex problem
//     w log(1 + exp(-s q)) + rho/2 (q - c)^2, solved by Newton's method
//     safeguarded by the bracket (c, c + s w/rho) to machine precision
//     (3 to 6 steps);
//   - beta-update (eq. 8): the lasso 1/2 ||[X 1] theta - (t + y2/rho)||^2 +
//     (lambda/rho)||beta||_1 by neadmm.FISTA, warm-started from the previous
//     theta, on the Gram matrix [X 1]^T [X 1] computed once per fit
//     (BetaGram: O(D^2) per inner step, one X^T product per outer
//     iteration) or on the data's products (BetaDirect);
//   - t-update (eqs. 9-10): per bag, the exact global minimizer of
//     (b - P(t))^2 + ||t - phi||^2: neadmm.MaxProx for the max,
//     neadmm.TopKProx for the mean of the k largest, neadmm.MeanProx for
//     the mean (Options.Pooling; see neadmm/pool.go for the derivation).
//
// With the mean pooling the bag score is the bag's mean feature vector
// times beta, plus beta0, so the problem is L1 logistic regression on the
// bag means: Fit solves it on them, one instance per bag (where every
// pooling is the identity), the same objective over B rows instead of N.
// Through the instances and neadmm.MeanProx the geometric penalty growth
// stopped short of the optimum (musk1: objective 0.4119 against 0.4100;
// on the bag means the defaults reach it in about 55 iterations, 4 times
// less CPU time than before), which cost up to 0.008 AUC. The scaling
// applies to the bag means too: ScaleAuto standardizes them with their
// statistics over the bags (each bag weighing the same), so a fit with
// mean pooling is exactly L1 logistic regression on the standardized bag
// means (see bagmean.go).
//
// Features are standardized on the training bags inside Fit (sparse ones
// too: centering them is folded into the products as well, so they stay
// sparse) and the coefficients mapped back, so a Model
// takes raw data. The standardization is folded into the products
// (X' beta = X (S^-1 beta) - mu . S^-1 beta, and its transpose), so Fit
// makes no scaled copy of the features: on a dense 4000 x 1500 dataset it
// allocates the 18 MB Gram matrix and its vectors, not a 48 MB copy
// besides. It copies only where folding would lose accuracy (a column
// whose mean exceeds 2^16 times its standard deviation, or magnitudes
// beyond 2^±768: then a standardized copy, as before; a sparse copy is
// scaled but not centered, and a sparse column whose mean exceeds 2^26
// times its standard deviation is never centered) and where a dense
// dataset is a subset of several runs (a cross-validation fold: an
// unscaled copy in one block, as Materialize makes, for the kernels'
// speed). A column constant on the training bags is left out (coefficient
// 0: the bias fits it). Options.MaxBytes caps Fit's estimate of all this,
// copies included. Its bag score is P(x_j . beta + beta0) with the pooling
// it was fitted with; a bag is predicted positive when its score is >= 0,
// as in the paper's code.
//
// # Pooling
//
// The max rule says a bag is as positive as its most positive instance.
// Where a bag's label depends on more of its instances (measured: fox,
// where the mean of a bag predicts better than its best instance), a
// pooling that averages more of them fits better: Pooling offers the
// mean of the k largest instance scores (TopKPooling), of the largest
// fraction (TopFracPooling) and of all (MeanPooling). With the mean the
// whole problem is convex and Fit, on the bag means, converges in 50 to
// 100 iterations; the max and top-k problems are not, and take 300 to 500.
//
// Where a label depends on several features, each present in whichever
// instance holds it (an image is an elephant if some segment is grey and
// some other one has a trunk), no pooling of one instance score per
// instance can express it. FeatureMaxPooling represents a bag by the
// maximum of each feature over its instances and scores that vector
// linearly, solved on one row per bag as the mean is. On labels set by
// the sum of five features' maxima (synthetic, 300 bags of 5-15
// instances, 40 features, 10% of labels flipped) it scores 0.85-0.89 AUC
// where the max and mean poolings score 0.58-0.71. Its bag score is not a
// pooling of the instance scores, which with it only rank the instances.
// DefaultSearch leaves it out of its grid (it costs FitCV 2-20% more CPU);
// added to Search.Poolings, it is held to Search.FeatureMaxSE.
//
// # Model selection
//
// FitCV chooses lambda, the pooling and the scaling by stratified
// cross-validation inside the training data (Search, DefaultSearch) and
// refits with the chosen options; its Selection lists every setting with
// its CV AUC and deviance. The fits run on all cores (Search.Workers), as do the
// splits of Protocol.Run (Protocol.Workers), with results that do not
// depend on the number of workers.
//
// Measured (10-fold CV x5, seed 1, AUC mean +- std; README has the
// table with the peers; paired differences are mean +- standard error
// over the 50 folds): fox 0.674 +- 0.116 with FitCV against 0.614 +-
// 0.101 with Fit (mean pooling alone in 47 of 50 folds), vaccine 0.872 +-
// 0.026 against 0.872 +- 0.026 (max pooling, standardized, lambda 0.01,
// Fit's own setting, in 50 of 50), mutagenesis (atoms, a public set not
// in this repository) 0.771 +- 0.095 against 0.751 +- 0.115; as an
// external check, musk1 (UCI 'clean1.data', fetched from a public copy
// and not in this repository: 92 molecules, 476 conformations, 166
// features) 0.918 +- 0.089 against 0.828 +- 0.139, where L1 logistic
// regression on each bag's standardized mean, lambda chosen by an inner
// CV, scores 0.926 +- 0.078 (Fit with mean pooling, the same model now,
// 0.926 at lambda 0.03); over eight fold seeds (400 folds) FitCV and that
// peer are level on musk1 (0.905 against 0.906, paired -0.001 +- 0.003)
// and on fox (0.670 against 0.668). These are with the deviance
// criterion (below); the numbers that follow, up to it, were measured
// with the AUC criterion. The inner cross-validation of so few bags is noisy, and three
// rules keep its noise from moving the choice away from settings that are
// as good: the best mean-pooling setting replaces a max-pooling one
// within one standard error (PreferMean: +0.008 +- 0.004 on mutagenesis,
// where the max won the inner CV and lost on the test fold; no other
// choice changed on musk1, fox, vaccine and the synthetic max and mean
// sets, one on the two-witness set); with the max pooling, lambda 0.01
// is kept within one standard error (PreferBase: +0.004 +- 0.001 on
// vaccine); and with the mean pooling it is not: the bag means,
// standardized over the bags, want a larger lambda, and keeping 0.01
// there cost musk1 0.012 +- 0.006 and fox 0.007 +- 0.005 (mutagenesis
// and the synthetic sets within 0.002). A rule that kept Fit's whole
// setting (max pooling) unless beaten by a standard error cost 0.014 +-
// 0.008 on musk1 and 0.010 +- 0.012 on mutagenesis.
// Repeating the inner 5-fold CV (Search.Repeats) 2 or 3
// times did not help beyond noise (musk1 -0.006, mutagenesis +0.01, fox
// 0, at 2 or 3 times the cost), nor did 10 inner folds, smoothing the
// score over neighbouring lambdas, or adding lambda 0.001 or the top-25%
// pooling to the grid (measured offline from every setting's inner and
// outer AUCs on musk1, mutagenesis, fox and vaccine), nor, with the mean
// pooling on the bag means, lambda 0.1 in the grid (fox -0.022 +- 0.013,
// two-witness set -0.027 +- 0.011, musk1 -0.002, mutagenesis +0.003,
// against DefaultSearch), the standardized scaling alone (musk1 +0.012 +-
// 0.005 but fox -0.047 +- 0.011), or standardizing the bag means with
// the instances' statistics (mutagenesis -0.012 +- 0.009, musk1 -0.006).
// Warm starts along the lambda path save little on the max pooling: the
// nonconvex problem needs rho to start low again to move (carried over at
// 25% of its last value the fits took 4x fewer iterations but lost 0.03
// to 0.06 AUC on fox), so DefaultSearch restarts it at 2%. One FitCV
// costs 4 to 13 Fits of CPU time, summed over 50 folds on one core: fox
// 7.9, vaccine 8.5, musk1 8.9, mutagenesis 4.7 (11.7, 10.6, 11.9 and 8.1
// before the mean pooling was solved on the bag means); the most, 12.6,
// on the two-witness set, where ensembles of two or three settings (below)
// are refitted.
//
// Ensembles. Where no single setting expresses the rule, the mean of
// several settings' bag scores can: on a synthetic family whose label
// needs two different witnesses (an instance high on one direction and
// one high on another; 300 bags, 40 features, 10% label noise) the mean
// of the best max- and mean-pooling fits scores 0.691 AUC against 0.644
// for FitCV's single choice and 0.683 for the best fixed setting.
// FitCV scores every ensemble of two or three fully run settings from
// the test-fold scores its cross-validation already has (no extra fit)
// and takes the best when it beats the chosen setting's CV AUC by more
// than EnsembleMargin (0.01). Measured (10-fold CV x5, paired against
// FitCV without ensembles, mean +- standard error over 50 folds):
// two-witness family +0.043 +- 0.011 (seed 1) and 0.000 +- 0.007 (seed
// 2), fox -0.001 +- 0.005 (8 of 50 folds ensembled), vaccine +0.0001 +-
// 0.0001 (1 of 50), synthetic max and mean families 0.000 +- 0.003.
// Without the margin the ensembles were picked on noise: -0.010 +- 0.003
// on the mean family, -0.006 on fox.
//
// Scoring by the deviance. The mean of five test-fold AUCs, each over 17
// (musk1) to 54 (synthetic sets) bags, moves only when two bags swap
// ranks, and the AUC criterion chose among settings whose test AUCs differ
// by less than its noise (on musk1 the fixed mean pooling at lambda 0.03
// scored 0.926, FitCV 0.909). DefaultSearch scores a setting instead by
// its mean test-fold deviance (Search.Criterion = CriterionDeviance): the
// fits' own loss, class-weighted as in the fit, on the held-out bags,
// which moves with every bag's score and also rewards a calibrated one;
// the standard-error rules (PreferMean, PreferBase) apply to it in its
// units. The ensemble of the smallest deviance is taken when its deviance
// is smaller than the chosen setting's and, as before, its CV AUC is
// larger by more than EnsembleMargin (0.01): an ensemble's log-odds
// average always lowers the deviance (the log-loss is convex), so a margin
// on the deviance alone either takes ensembles on noise or none. Paired
// against the AUC criterion (the same folds; 50 folds, mean +- standard
// error): musk1 +0.010 +- 0.004 (folds seed 2: +0.011 +- 0.008),
// mutagenesis +0.004 +- 0.006 (+0.008 +- 0.008), fox +0.002 +- 0.002,
// vaccine +0.0004 +- 0.0004, the synthetic two-witness rule +0.002 +-
// 0.007 (data seed 2: -0.002 +- 0.007), max rule -0.003 +- 0.002, mean
// rule -0.001 +- 0.001; no fit is added (the deviance comes from the
// test-fold scores the AUC needs), and one FitCV costs the same: the
// cross-validation is unchanged and only the refit of a chosen ensemble
// differs (CPU per fold, the least of 3 FitCVs over the least of 5 Fits,
// at a load of 2 to 8: musk1 9.7 Fits on average and 14.7 at most, fox
// 9.2 and 14.8, the largest on a fold whose refit is the same single fit
// as before, i.e. timing noise).
// Without PreferBase the deviance picks lambda 0.003 with the max pooling
// and loses 0.037 +- 0.007 on the max rule and 0.005 +- 0.002 on vaccine.
// Measured not to help as much (simulated from every setting's stored
// inner and outer scores, exact against FitCV): the AUC of all folds'
// scores ranked together (musk1 +0.002 and +0.012, two witnesses -0.006
// and -0.005), the AUC with the deviance as a one-standard-error tie-break
// (-0.002 to +0.009), choosing the ensembles by a deviance margin (0.005
// nats: the max rule -0.004 +- 0.003, the mean rule -0.002 +- 0.001; 0.02:
// two witnesses -0.036 +- 0.011), and the Brier score in place of the
// deviance (within 0.004 of it on every set).
// Averaging log-odds (the parts' raw scores) did as well as averaging
// standardized scores or ranks; averaging all settings or always the
// best max- and mean-pooling pair lost 0.03 to 0.10 on fox.
//
// # Errors
//
// Errors that input, data or options cause wrap ErrBadInput (and
// ErrTooLarge for sizes beyond a cap, ErrOneClass for training bags of
// one class), matched with errors.Is: invalid Options or Search, a nil
// dataset or model, buffers of the wrong length given to the Model's *To
// methods, a bag score that is not finite (features so large that the
// products overflow; the outputs of those bags are NaN, or -1 for
// witnesses), and Fit's memory estimate above Options.MaxBytes
// (DefaultMaxBytes, 2 GiB, unless raised). Cancelling a Fit's or FitCV's
// context returns ctx's error (wrapped) within milliseconds: setup and
// every iteration check it. Nothing in the learner panics on input; only
// the low-level Dataset products (MulVec, MulTransVec, Gram) panic on
// mismatched lengths, as programmer errors.
//
// # Defaults, and why they differ from the paper
//
// PaperOptions is the paper's setting (summed loss, lambda = 1, fixed
// rho = 0.1, 100 iterations). DefaultOptions changes it where
// measurements on vaccine.svm and fox.csv (10-fold cross-validation
// repeated 5 times, seed 1, unless noted) showed a better fit:
//
//   - Mean loss, lambda = 0.01: a summed loss makes lambda's strength
//     depend on the number of bags (lambda = 1 per bag zeroes every
//     coefficient); lambda = 0.01 per bag suits both data sets, which
//     differ 8x in size. Vaccine AUC over lambda = 0.003, 0.01, 0.03:
//     0.856, 0.860, 0.852 (2 repeats), a flat optimum.
//   - A growing rho (x1.02 per iteration from 0.03): with a fixed rho the
//     residuals stall (fox, rho = 1: primal residual 2.6 after 600
//     iterations, objective still falling); growing, it vanishes
//     geometrically. The start 0.03 gave the lowest training objective
//     among 0.01, 0.03 and 0.1 on both data sets (mean over the CV fits:
//     fox 0.5099, 0.5097, 0.5150; vaccine 0.4567, 0.4547, 0.4581).
//   - Balanced class weights: vaccine has 36% positive bags; weighting the
//     classes equally raised its CV AUC from 0.858 to 0.865, accuracy from
//     0.780 to 0.804 and F1 from 0.637 to 0.758 (rho from 0.1); fox is
//     balanced, so nothing changes there.
//   - Stopping: the primal residual below 1e-3 per row and the objective
//     stable to 1e-5 over 10 iterations (350 to 450 iterations here).
//   - At most 30 FISTA steps per beta-update, warm-started: the same
//     objective as 100 steps (mean over 20 CV fits: fox 0.5108 vs 0.5110,
//     vaccine 0.4542 vs 0.4545) with 3x fewer steps on fox.
//
// Results (bench mil: one 80/20 split, seed 1; mean +- std over the 50
// folds of 10-fold CV x5; and mean +- std over the 80/20 splits of seeds
// 1 to 20, measured with a throwaway loop over PaperSplit(seed)):
//
//	                 vaccine AUC            fox AUC
//	paper, Table 1   0.890 (80/20)          0.542 (80/20)
//	PaperOptions     0.897 (80/20, seed 1)  0.613 (80/20, seed 1)
//	                 0.849 +- 0.027 (1-20)  0.585 +- 0.071 (1-20)
//	                 0.847 +- 0.031 CV      0.584 +- 0.115 CV
//	DefaultOptions   0.906 (80/20, seed 1)  0.663 (80/20, seed 1)
//	                 0.869 +- 0.025 (1-20)  0.607 +- 0.079 (1-20)
//	                 0.871 +- 0.026 CV      0.615 +- 0.101 CV
//
// One 80/20 split is a noisy measurement, and seed 1 is a lucky one: over
// seeds 1 to 20 the defaults' test AUC runs from 0.822 to 0.914 on
// vaccine (above the paper's 0.890 for 3 seeds) and from 0.353 to 0.763
// on fox (above 0.542 for 18), where 40 test bags leave a standard error
// near 0.09. (Fox's worst split, seed 6, is hard for any model: its test
// bags score 0.42 even when each is predicted by a model trained on all
// 199 other bags; the fits themselves converge normally.) The defaults
// beat the paper's AUC on fox on average under both protocols; on vaccine
// the paper's single split lies one standard deviation above the mean of
// either protocol, which no setting tried (lambda 0.005 to 0.03, scaling,
// rho schedule, weights) reached.
//
// # What convergence means here
//
// Under a growing rho the primal residual (the constraints) goes to zero
// and the objective settles, but the dual residual of the engine does not:
// the iterates move by O(1/rho) per iteration, so rho times their change
// stays O(1) (fox: 5 to 7 after 300 to 600 iterations, in the summed
// scale), and the limit is not a stationary point of the objective. At the
// returned model, coordinate directional derivatives of the objective
// reach -0.07 on fox and -0.03 on vaccine: ties in the maxima of positive
// bags, where moving either way raises the bag score, are left in place.
// Capping rho (at 2 or 10) and running 3000 iterations lowers the fox
// objective by 2-3% without reaching stationarity either; plain proximal
// gradient from the returned model makes no progress (it cannot see
// through the kinks). Fit therefore stops on the primal residual and the
// objective (Options.ObjTol, FitResult.Stalled) and reports both
// residuals; the tests check the residual, the objective (evaluated
// independently of the solver) and the planted witnesses of synthetic
// bags, not just an AUC, which unconverged iterates can also reach. The
// iteration is also sensitive to rounding: an ulp-level change (another
// architecture, FMA) can move the result by a few thousandths of AUC.
//
// # Cost
//
// On this machine (2 shared cores, AMD EPYC, AVX2; timings vary up to 2x
// with the load of other processes) a default fit on the training bags of
// the 80/20 split takes 0.35 to 0.75 s on vaccine (sparse products, 1258
// bags, 33k instances, about 400 outer iterations of 1 to 1.9 ms, split
// q-update 15-20%, beta-update 23%, t-update 33%, engine residuals 25%)
// and 0.1 to 0.15 s on fox (dense, 0.27 to 0.39 ms per iteration, 60% in
// the beta-update's FISTA steps on the 231 x 231 Gram matrix). The Gram
// matrix makes the beta-update 10x (fox) to 20x (vaccine) faster than the
// direct products. See BenchmarkFitVaccine and BenchmarkFitFox.
//
// Time against size (bench scaling: dense synthetic bags of 1 to 9
// instances, 100 iterations per fit; three runs) is near linear but not
// a clean slope 1. Against the number of bags (500 to 8000, 50 features)
// the fitted log-log slopes are 1.16 to 1.23 (Gram) and 1.18 to 1.24
// (direct). The q-update, which does not touch the features, scales with
// slope 1.00 and the products near 1.1 up to 4000 bags; at 8000 bags the
// products over the 16 MB feature matrix (out of cache) slow down per bag,
// and the Gram path's time per bag rises from 33-41 to 53-65
// microseconds. Against the number of features (25 to 400, 1000 bags)
// the slopes are 0.69 to 0.79 (Gram) and 0.86 to 0.93 (direct), below 1
// because part of each iteration does not depend on the number of
// features: the q-update costs the same 18 ms per 100 iterations at every
// size, over half of a Gram fit at 25 features and a fifth at 200; beyond
// 200 the Gram matrix (O(I D^2) setup) takes over. Slopes fitted to the
// timings of this shared machine move with its load (an earlier audit
// measured 0.76 and 0.96 against bags).
package mil
