// Package num holds the small numeric predicates shared by the packages of
// this module, so that each is written (and tested) once.
package num

// Finite reports whether v is neither NaN nor ±Inf. v-v is 0 exactly for
// finite v and NaN otherwise, so one subtraction and one compare decide it.
func Finite(v float64) bool { return v-v == 0 }

// AllFinite reports whether every x[i] is finite (true for an empty x).
func AllFinite(x []float64) bool {
	for _, v := range x {
		if v-v != 0 {
			return false
		}
	}
	return true
}
