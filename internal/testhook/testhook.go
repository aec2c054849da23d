// Package testhook lets tests and fuzz targets outside a package switch that
// package's kernels between the accelerated and the generic implementation
// in one process. It is not for production use: flipping a switch while
// kernels run on other goroutines is a data race.
package testhook

// VecGeneric, set by package vec at init, forces vec's generic kernels when
// called with true and restores the start-up choice with false. It returns
// whether an accelerated implementation exists on this machine at all.
var VecGeneric func(generic bool) (hasAccel bool)
