// Package onebit is 1-bit compressive sensing with neADMM: recovering the
// direction of a sparse signal x from the signs y = sign(Phi x) of M random
// measurements (section 3.1, Algorithm 2 and section 4.1 of Wang and Zhao,
// "Nonconvex generalization of ADMM for nonlinear equality constrained
// problems"), with the standard baselines, a generator for the standard
// protocol and its metrics.
//
// # Two tasks
//
// Solver.Solve solves the paper's problem at a given lambda,
//
//	min_x ||x||_1 + (lambda/2) sum_i min(y_i (Phi x)_i, 0)^2  s.t. ||x||_2 = 1,
//
// by Algorithm 2: neADMM (package neadmm) on the split w = x, ||w||^2 = 1,
// with the x-update (eq. 4) solved by FISTA (soft-thresholding prox, step
// 1/L with L = lambda*||Phi||_2^2 + rho, ||Phi||_2^2 from a power iteration
// done once per Problem) warm-started from the previous iterate, and the
// w-update (eq. 5) solved exactly by neadmm.SphereProx.
//
// Solver.Recover estimates a sparse direction without being told its
// sparsity: a continuation in lambda over warm-started solves, reweighted
// L1, and a consistency refit on the support found. Use it to recover
// signals; use Solve to minimize the paper's objective.
//
// BIHT (told the sparsity K) and Passive are the baselines; Generate draws
// instances of the standard protocol; AngularError, SNR, Problem.Hamming and
// Problem.Objective are the metrics. Matrices are flat row-major []float64.
//
// The authors' MATLAB code differs in three places, all deliberate here:
// its sphere update uses a wrong stationarity formula (here the exact
// global minimizer, neadmm.SphereProx), its FISTA step is a fixed 1e-9 (here
// 1/L with a real Lipschitz constant), and its measurements are Phi x
// without the sign (here y = sign(Phi x)).
//
// # The default rho (measured)
//
// The paper fixes rho = 1. On the paper's grid (N = 512, M = 50, 100, ...,
// 500, K = 16, 32, 48, 64, three instances per cell, lambda = 0.01, 100
// iterations, start Phi^T y/||Phi^T y||) that never converges: w flips sign
// between iterations and ||r|| stays near 1.3 (also in the notes'
// prototypes). Per rho schedule, the number of the 120 instances where it
// reached the lowest objective of all schedules, the mean ratio of its
// objective to the best signed coordinate vector's, and convergence:
//
//	schedule               lowest   obj/best ±e_j  converged  products
//	fixed 1 (the paper)      0/120      1.2915        0/120      5808
//	geometric from 1         1/120      1.2460      120/120      2374
//	geometric from 5        45/120      1.1007      120/120       403
//	geometric from 10      116/120      1.0162      116/120       718
//	fixed 5                 45/120      1.1007      119/120       422
//	fixed 10               119/120      1.0132      120/120       648
//	fixed 20               116/120      1.0157      116/120       902
//	residual balancing 10   19/120      2.5174       17/120      2822
//	fixed 10, random start   5/120      1.2582      120/120       588
//
// (ONEBIT_SWEEP=1 go test ./onebit -run RhoSweep -v reruns it.) So
// DefaultOptions uses a fixed rho = 10 (with the paper's lambda and 100
// iterations); PaperOptions keeps the paper's rho = 1. A growing rho, the
// neadmm package's general default, reaches the same points from rho0 = 10
// but its dual residual rho*||w - w_old|| then stalls and it stops by the
// iteration cap more often. The absolute value matters, not its ratio to
// lambda*||Phi||^2: fixed rho = 10 also gave the lowest objective in all 8
// cells tried at each of lambda = 0.001, 0.1 and 1, while rho = 3, 30 or 100
// and rho proportional to lambda*||Phi||^2 did no better and mostly worse.
// The scale is set by the unit weight of ||x||_1 and the unit sphere: the
// x-update soft-thresholds at 1/rho, which at rho = 1 is as large as any
// coordinate of a unit vector.
//
// At lambda = 0.01 the paper's problem is degenerate for recovery: its
// minimizer is (nearly) 1-sparse, whatever the signal. No schedule ever
// went below the best signed coordinate vector (Problem.BestCoordinate),
// and in 51 of the 120 instances none reached it; the ground truth's
// objective is 2.5 to 6 times higher. Solve from a random start ends at worse
// local minima.
//
// # Recovery (measured)
//
// Recovery needs lambda to grow. Recover runs a continuation lambda = 100,
// 300, ..., 1e6 in units of the mean loss (the paper's objective with
// Phi/sqrt(M); below about 30 the solution collapses to a coordinate
// vector), each stage warm-started with a fixed rho = sqrt(lambda). A rho
// proportional to lambda (0.1 lambda, as in the notes' prototype) stops
// converging above lambda = 2700 (the dual residual stalls at 0.01-0.1 for
// 50 iterations per stage); rho = sqrt(lambda) converged in 3-20 iterations
// at every stage with a quarter fewer FISTA steps (one instance at M/N = 1;
// the final errors agree).
//
// The continuation's limit is biased towards small L1 norms and carries
// many tiny coefficients (60-100 at N = 1000) that fix tiny sign
// violations. Four rounds of reweighted L1 (weights 1/(|x_j|/max|x| + 0.01))
// prune them; the consistency refit then runs BIHT's iteration restricted
// to the support found (from zero, so it is not biased towards the
// continuation's estimate), adds the coordinate with the largest BIHT
// gradient while the fit is inconsistent, and drops the smallest
// coefficient while the fit stays consistent. No K is given anywhere.
//
// On the standard protocol (N = 1000, K = 10, 20 instances per ratio;
// go run ./bench onebit), mean ± std of the angular error arccos(<x, x_hat>)/pi,
// and the number of instances where Recover's error is at most BIHT's:
//
//	M/N    Recover (K unknown)  BIHT (K known)     passive          Recover <= BIHT
//	0.25   0.0759 ± 0.030       0.0484 ± 0.023     0.151 ± 0.028     5/20
//	0.5    0.0259 ± 0.019       0.0210 ± 0.011     0.0959 ± 0.021    8/20
//	1      0.0089 ± 0.0059      0.0068 ± 0.0042    0.0730 ± 0.014   11/20
//	1.5    0.0043 ± 0.0026      0.0047 ± 0.0029    0.0616 ± 0.011   16/20
//	2      0.0039 ± 0.0029      0.0035 ± 0.0020    0.0511 ± 0.014   13/20
//
// (passive: threshold sqrt(log N / M)). From M/N = 1 on, Recover is level
// with BIHT without knowing K (within a third of a standard deviation; ahead
// at 1.5); with fewer measurements it is behind: consistency no longer
// pins the support, so the refit keeps a support with misses or extras
// that BIHT's known K avoids. Where the support found is the true one, the
// refit reproduces BIHT's estimate exactly (BIHT then keeps the same K
// coordinates at every iteration). Each stage matters: at M/N = 0.5, 1, 2
// on 5 instances (refits capped at 200 iterations) the continuation alone gave 0.032, 0.030, 0.012, with
// reweighting 0.025, 0.013, 0.0075, with the refit 0.027, 0.0088, 0.0030
// and with pruning 0.028, 0.0088, 0.0025.
//
// # Cost
//
// The unit of cost is one product with Phi or Phi^T (Result.Products); at
// N = M = 1000 one takes about 80 µs here (AVX2 kernels, 2 cores shared
// with other work, so timings are noisy). A Solve with DefaultOptions at
// that size (BenchmarkSolve, K = 10) takes 100 iterations, 1352 FISTA steps
// and 2705 products (1353 Phi x, 1352 Phi^T r): 0.22-0.23 s in the two
// least loaded of six runs, of which 92-97% is spent in the products
// (their count times their time measured apart) and 6-20 ms in the rest
// (FISTA's vector work, the soft-threshold, the sphere prox, the engine's
// residuals). Its objective settles within about 20 iterations; the others
// shrink the dual residual. BIHT takes 1.3 ms (10 products) on that
// instance; NewProblem's power iteration about 35 ms. Recover costs
// 19000-28000 products (medians over the protocol's ratios), 200-550 times
// BIHT: the continuation about 10000-13000, reweighting about 8000-10000,
// the refits the rest.
package onebit
