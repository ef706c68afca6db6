package auto

import (
	"testing"

	"github.com/gotachyon/profiler/internal/testing/testutil"
)

// TestBuildsWithoutUnixSignals cross-compiles the package for a system
// with no kill(2) (Windows) and one with no signals at all (js): a
// program that imports it must build wherever Go does.
func TestBuildsWithoutUnixSignals(t *testing.T) {
	for _, target := range [][2]string{{"windows", "amd64"}, {"js", "wasm"}} {
		t.Run(target[0], func(t *testing.T) { testutil.CrossBuild(t, target[0], target[1]) })
	}
}
