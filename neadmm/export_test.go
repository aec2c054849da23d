package neadmm

// Test helpers shared with the external tests (package neadmm_test).
var (
	RandomMaxCase = randomMaxCase
	MaxObjective  = maxObjective
)
