package auto

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/internal/testing/testutil"
)

// TestSignalGoroutineHidden: with PROFILE_SIGNALS=on, the goroutine that
// waits for the signal and finalizes the profile is the profiler's, left
// out of the profile it writes (issue 26); the child's own goroutines are
// in it, its init calling profiler.Start included.
func TestSignalGoroutineHidden(t *testing.T) {
	testutil.Retry(t, time.Second, 3, func(d time.Duration) error {
		out, _ := runHelper(t, "signal", syscall.SIGTERM, d)
		bad, test := proftest.ProfilerSamples(t, out, func(fn string) bool {
			// The child's test, and its init (on its main goroutine, the
			// program's) starting the profile.
			return fn == "github.com/gotachyon/profiler/auto.TestHelperProcess" || strings.HasPrefix(fn, "github.com/gotachyon/profiler/auto.init.")
		})
		if len(bad) > 0 {
			t.Fatalf("%d stacks of the profiler's own goroutines, the first:\n%s", len(bad), strings.Join(bad[:min(len(bad), 8)], "\n"))
		}
		if test == 0 {
			return fmt.Errorf("no sample of the child's test goroutine")
		}
		return nil
	})
}
