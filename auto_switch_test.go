package profiler

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/sampler"
)

// TestAutoSwitchFileValidates: under a goroutine ping-pong the default Auto
// backend switches from the trace to snapshots mid-profile; the file holding
// both backends' samples passes the Go reader's Verify and the reference
// validator. Another process's load can slow the ping-pong enough that the
// trace is cheap and Auto keeps it: a run that saw no switch within d is
// retried with a longer one.
func TestAutoSwitchFileValidates(t *testing.T) {
	defer testutil.PingPong(2)()

	testutil.Retry(t, 5*time.Second, 3, func(d time.Duration) error {
		path := filepath.Join(t.TempDir(), "auto.bin")
		p := Start(WithPath(path), WithQuiet(true))
		if err := p.Err(); err != nil {
			t.Fatal(err)
		}
		if testutil.WaitFor(d, func() bool { return p.Backend() == sampler.Snapshot }) {
			time.Sleep(200 * time.Millisecond) // some snapshots after the trace
		}
		if err := p.Stop(); err != nil {
			t.Fatal(err)
		}
		if n := proftest.Validate(t, path); n == 0 {
			t.Fatal("empty profile")
		}
		if st := p.Stats(); len(st.Switches) == 0 {
			return fmt.Errorf("no switch under ping-pong in %v: %+v", d, st)
		}
		return nil
	})
}
