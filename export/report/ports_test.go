package report

import (
	"testing"

	"github.com/gotachyon/profiler/internal/testing/testutil"
)

// TestBuildsOn32Bit cross-compiles the package for a 32-bit system, where
// int holds 31 bits: an Options bound that int cannot hold would keep it,
// and the tachyon command, from building there.
func TestBuildsOn32Bit(t *testing.T) {
	testutil.CrossBuild(t, "linux", "386")
}
