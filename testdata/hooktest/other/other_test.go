// Package other is a second package whose TestMain uses profiler.RunTests:
// profiler's TestRunTestsHookPerPackage runs "go test" on both with one
// PROFILE_OUT.
package other

import (
	"os"
	"testing"
	"time"

	"github.com/gotachyon/profiler"
)

func TestMain(m *testing.M) { os.Exit(profiler.RunTests(m)) }

func TestSleep(t *testing.T) { time.Sleep(200 * time.Millisecond) }
