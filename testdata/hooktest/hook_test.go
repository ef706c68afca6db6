// Package hooktest is a tiny package whose TestMain uses profiler.RunTests;
// profiler's TestRunTestsHook runs "go test" on it with PROFILE_OUT set.
package hooktest

import (
	"os"
	"testing"
	"time"

	"github.com/gotachyon/profiler"
)

func TestMain(m *testing.M) { os.Exit(profiler.RunTests(m)) }

//go:noinline
func spin(d time.Duration) int {
	n := 0
	for end := time.Now().Add(d); time.Now().Before(end); n++ {
	}
	return n
}

func TestSpin(t *testing.T) {
	if spin(300*time.Millisecond) == 0 {
		t.Fatal("no work done")
	}
}
