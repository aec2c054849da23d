package guard

import "unsafe"

func uintptrOf(s []float64) uintptr { return uintptr(unsafe.Pointer(&s[0])) }
