package mil

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestWorkers: the option when > 0, else GOMAXPROCS, never more than the
// tasks and at least 1.
func TestWorkers(t *testing.T) {
	procs := runtime.GOMAXPROCS(0)
	assert.Equal(t, procs, workers(0, procs+5))
	assert.Equal(t, procs, workers(-1, procs+5))
	assert.Equal(t, 3, workers(3, 10))
	assert.Equal(t, 2, workers(3, 2))
	assert.Equal(t, 1, workers(3, 0))
	assert.Equal(t, 1, workers(0, 0))
}
