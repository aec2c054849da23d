//go:build (amd64 || arm64) && gc && !purego

package vec_test

// hasAssembly says whether this build of vec has assembly kernels.
const hasAssembly = true
