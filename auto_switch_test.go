package profiler

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/proftest"
	"github.com/gotachyon/profiler/internal/testutil"
	"github.com/gotachyon/profiler/sampler"
)

// TestAutoSwitchFileValidates: under a goroutine ping-pong the default Auto
// backend switches from the trace to snapshots mid-profile; the file holding
// both backends' samples passes the Go reader's Verify and the reference
// validator.
func TestAutoSwitchFileValidates(t *testing.T) {
	defer testutil.PingPong(2)()

	path := filepath.Join(t.TempDir(), "auto.bin")
	p := Start(WithPath(path), WithQuiet(true))
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for p.Backend() != sampler.Snapshot && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	st := p.Stats()
	if len(st.Switches) == 0 {
		t.Fatalf("no switch under ping-pong: %+v", st)
	}
	if n := proftest.Validate(t, path); n == 0 {
		t.Fatal("empty profile")
	}
}
