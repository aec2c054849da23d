//go:build (amd64 || arm64) && gc && !purego

package vectest

// hasAssembly mirrors vec's build sets: vec has assembly in this build.
const hasAssembly = true
