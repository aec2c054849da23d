//go:build unix

package mil

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLoadFileRefusesFIFO: a named pipe with no writer, which blocked
// LoadFile forever in open(2), is refused at once.
func TestLoadFileRefusesFIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fifo.csv")
	require.NoError(t, syscall.Mkfifo(path, 0o600))
	d, err := loadWithin(t, path, 10*time.Second)
	assert.Nil(t, d)
	requireBadInput(t, err, false, "fifo.csv is not a regular file (mode p")
}
