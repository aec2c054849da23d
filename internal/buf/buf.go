// Package buf holds the workspace helper shared by the solvers.
package buf

// Grow returns b resliced to length n, reallocating only if its capacity is
// short; the contents are not preserved across a reallocation. Solvers keep
// their workspace in such slices so that repeated solves of one size
// allocate nothing.
func Grow(b []float64, n int) []float64 {
	if cap(b) < n {
		return make([]float64, n)
	}
	return b[:n]
}
