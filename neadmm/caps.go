package neadmm

import "reflect"

// A type assertion to an interface (p.(Starter)) may allocate: on a miss
// of its call site's cache the runtime rebuilds that cache about once in
// 1024 calls, at random, until the type is in it. A Solver reused on one
// problem would then allocate once at an unpredictable call (seen after
// hundreds of onebit.Recover calls). The solvers therefore assert once per
// problem: lastCaps keeps the optional interfaces of the last problem, and
// a later solve of the same problem (the same pointer) reuses them.

// lastCaps is the optional interfaces V of the last problem of type P
// that a solver saw.
type lastCaps[P, V any] struct {
	p    P    // the last problem, if a pointer
	kept bool // p is set
	v    V
}

// of returns the optional interfaces of p, calling assert only when p is
// not the last problem seen.
func (c *lastCaps[P, V]) of(p P, assert func(P) V) V {
	if c.kept && samePointer(c.p, p) {
		return c.v
	}
	var none P
	c.v, c.p, c.kept = assert(p), none, false
	if reflect.TypeOf(p).Kind() == reflect.Pointer {
		c.p, c.kept = p, true
	}
	return c.v
}

// problemCaps is the optional interfaces of a Problem.
type problemCaps struct {
	obj     Objectiver
	starter Starter
}

func problemCapsOf(p Problem) problemCaps {
	obj, _ := p.(Objectiver)
	st, _ := p.(Starter)
	return problemCaps{obj, st}
}

// nonsmoothOf is the optional interface of a FISTAProblem.
func nonsmoothOf(p FISTAProblem) NonsmoothValuer {
	ng, _ := p.(NonsmoothValuer)
	return ng
}

// samePointer reports whether a and b hold the same pointer of the same
// type. Only pointer types are compared, which cannot panic (comparing
// interfaces that hold, say, a struct with a slice field would).
func samePointer[T any](a, b T) bool {
	ta := reflect.TypeOf(a)
	return ta == reflect.TypeOf(b) && ta.Kind() == reflect.Pointer && any(a) == any(b)
}
