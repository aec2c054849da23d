package neadmm

import "reflect"

// A type assertion to an interface (p.(Starter)) may allocate: on a miss
// of its call site's cache the runtime rebuilds that cache about once in
// 1024 calls, at random, until the type is in it. A Solver reused on one
// problem would then allocate once at an unpredictable call (seen after
// hundreds of onebit.Recover calls). The solvers therefore assert once per
// problem: caps keeps the optional interfaces of the last problem, and a
// later solve of the same problem (the same pointer) reuses them.

// caps is the optional interfaces of the engine's last problem.
type caps struct {
	p       Problem // nil until a pointer problem was seen
	obj     Objectiver
	starter Starter
}

// of returns the optional interfaces of p, asserting only when p is not
// the last problem seen.
func (c *caps) of(p Problem) (Objectiver, Starter) {
	if c.p != nil && samePointer(c.p, p) {
		return c.obj, c.starter
	}
	obj, _ := p.(Objectiver)
	st, _ := p.(Starter)
	c.p, c.obj, c.starter = nil, obj, st
	if reflect.TypeOf(p).Kind() == reflect.Pointer {
		c.p = p
	}
	return obj, st
}

// fistaCaps is caps for FISTA problems.
type fistaCaps struct {
	p  FISTAProblem
	ng NonsmoothValuer
}

func (c *fistaCaps) of(p FISTAProblem) NonsmoothValuer {
	if c.p != nil && samePointer(c.p, p) {
		return c.ng
	}
	ng, _ := p.(NonsmoothValuer)
	c.p, c.ng = nil, ng
	if reflect.TypeOf(p).Kind() == reflect.Pointer {
		c.p = p
	}
	return ng
}

// samePointer reports whether a and b hold the same pointer of the same
// type. Only pointer types are compared, which cannot panic (comparing
// interfaces that hold, say, a struct with a slice field would).
func samePointer[T any](a, b T) bool {
	ta := reflect.TypeOf(a)
	return ta == reflect.TypeOf(b) && ta.Kind() == reflect.Pointer && any(a) == any(b)
}
