package buf

import "testing"

// TestGrow checks that Grow reuses b's array whenever its capacity holds n
// (the solvers' zero-allocation promise rests on it) and allocates exactly
// n otherwise.
func TestGrow(t *testing.T) {
	b := make([]float64, 2, 5)
	for _, n := range []int{0, 3, 5} {
		g := Grow(b, n)
		if len(g) != n || cap(g) != 5 || &g[:1][0] != &b[:1][0] {
			t.Errorf("Grow(len 2 cap 5, %d): len %d cap %d, same array %v; want len %d on b's array", n, len(g), cap(g), &g[:1][0] == &b[:1][0], n)
		}
	}
	g := Grow(b, 6)
	if len(g) != 6 || cap(g) != 6 || &g[0] == &b[:1][0] {
		t.Errorf("Grow(cap 5, 6): len %d cap %d; want a new array of 6", len(g), cap(g))
	}
	if g := Grow(nil, 0); len(g) != 0 {
		t.Errorf("Grow(nil, 0): len %d", len(g))
	}
	if a := testing.AllocsPerRun(100, func() { b = Grow(b, 4) }); a != 0 {
		t.Errorf("Grow within capacity allocates %v times", a)
	}
}
