package onebit_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neadmm/neadmm/neadmm"
	"github.com/neadmm/neadmm/onebit"
)

// TestRhoSweep is the measurement behind DefaultOptions (see the package
// documentation). It takes about a minute, so it only runs with
// ONEBIT_SWEEP=1:
//
//	ONEBIT_SWEEP=1 go test ./onebit -run RhoSweep -v
//
// On the paper's grid (N = 512, M = 50..500, K = 16..64, 3 instances per
// cell, lambda = 0.01, 100 iterations) it solves each instance with several
// rho schedules and reports, per schedule: in how many instances it reached
// the lowest objective of all schedules and the best signed coordinate
// vector's objective (both to 1e-6 relative), the mean ratio of its objective to
// the best coordinate's, how often it converged, and its mean cost.
func TestRhoSweep(t *testing.T) {
	if os.Getenv("ONEBIT_SWEEP") == "" {
		t.Skip("set ONEBIT_SWEEP=1 to run the rho sweep (about a minute)")
	}
	type schedule struct {
		name   string
		policy neadmm.RhoPolicy
		rho    float64
		random bool
	}
	scheds := []schedule{
		{"fixed 1 (paper)", neadmm.RhoFixed, 1, false},
		{"geometric from 1", neadmm.RhoGeometric, 1, false},
		{"geometric from 5", neadmm.RhoGeometric, 5, false},
		{"geometric from 10", neadmm.RhoGeometric, 10, false},
		{"fixed 5", neadmm.RhoFixed, 5, false},
		{"fixed 10 (default)", neadmm.RhoFixed, 10, false},
		{"fixed 20", neadmm.RhoFixed, 20, false},
		{"balance from 10", neadmm.RhoBalance, 10, false},
		{"fixed 10, random start", neadmm.RhoFixed, 10, true},
	}
	type tally struct {
		best, atCoord, converged, products int
		ratio                              float64
	}
	tl := make([]tally, len(scheds))
	var s onebit.Solver
	x := make([]float64, 512)
	cells, noneAtCoord := 0, 0
	for _, k := range []int{16, 32, 48, 64} {
		for m := 50; m <= 500; m += 50 {
			for seed := uint64(0); seed < 3; seed++ {
				p := mustProblem(t, mustGenerate(t, m, 512, k, seed))
				coord := p.BestCoordinate(x, 0.01)
				objs := make([]float64, len(scheds))
				best := math.Inf(1)
				for i, sc := range scheds {
					o := onebit.DefaultOptions()
					// The measurement behind the table in the package doc:
					// neADMM alone, on the full matrix.
					o.WorkingSet, o.CoordinateCheck = false, false
					o.Policy, o.Rho = sc.policy, sc.rho
					if sc.random {
						o.Start, o.Seed = onebit.StartRandom, seed
					}
					r, err := s.Solve(context.Background(), p, x, o)
					require.NoError(t, err)
					objs[i] = r.Objective
					best = min(best, r.Objective)
					if r.Reason == neadmm.StopConverged {
						tl[i].converged++
					}
					tl[i].products += r.Products
				}
				cells++
				at := false
				for i := range scheds {
					if objs[i] <= best*(1+1e-6) {
						tl[i].best++
					}
					if objs[i] <= coord*(1+1e-6) {
						tl[i].atCoord++
						at = true
					}
					tl[i].ratio += objs[i] / coord
				}
				if !at {
					noneAtCoord++
				}
			}
		}
	}
	fmt.Printf("%-24s %8s %8s %14s %9s %9s\n", "schedule", "lowest", "=coord", "obj/coord", "converged", "products")
	for i, sc := range scheds {
		fmt.Printf("%-24s %4d/%d %4d/%d %14.4f %5d/%d %9d\n", sc.name, tl[i].best, cells, tl[i].atCoord, cells,
			tl[i].ratio/float64(cells), tl[i].converged, cells, tl[i].products/cells)
	}
	fmt.Printf("instances where no schedule reached the best coordinate vector: %d of %d\n", noneAtCoord, cells)
}
