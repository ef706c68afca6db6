package sampler

import (
	"errors"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/tachyon"
)

// TestCPUModeRuntimeSamples: in CPU mode, the CPU samples taken outside
// any goroutine (a ping-pong's scheduler, searching for work and waking
// threads) are written on RuntimeThread under the runtime's frame, as
// runtime/pprof counts them, and that thread is not counted as a goroutine.
// A run without one is retried longer: a loaded machine gives a few a
// second.
func TestCPUModeRuntimeSamples(t *testing.T) {
	testutil.Retry(t, 2*time.Second, 3, func(d time.Duration) error {
		sink := newMemSink()
		s, err := Start(Config{Backend: Trace, Mode: CPU}, sink)
		if err != nil {
			t.Fatal(err)
		}
		stop := testutil.PingPong(2)
		time.Sleep(d)
		stop()
		st, err := s.Stop()
		if err != nil {
			t.Fatal(err)
		}
		if st.Backend != Trace {
			t.Fatalf("backend %v (%s)", st.Backend, st.Fallback)
		}
		ids := map[uint64]bool{}
		runtimeSamples := 0
		for _, smp := range sink.all() {
			ids[smp.gid] = true
			if smp.gid != RuntimeThread {
				continue
			}
			runtimeSamples++
			if n := len(smp.stack); n == 0 || smp.stack[n-1].Func != tachyon.RuntimeRoot || smp.status.State() != tachyon.Running {
				t.Errorf("a sample outside any goroutine: %v, want one on CPU under %s", smp, tachyon.RuntimeRoot)
			}
		}
		t.Logf("%v: %d of %d samples outside any goroutine; %d goroutines", d, runtimeSamples, len(sink.all()), st.Goroutines)
		if ids[RuntimeThread] && st.Goroutines != len(ids)-1 {
			t.Errorf("Stats.Goroutines %d, want the %d goroutines with samples, not the runtime's thread", st.Goroutines, len(ids)-1)
		}
		if runtimeSamples == 0 {
			return errors.New("no sample outside any goroutine: the scheduler's CPU is missing")
		}
		return nil
	})
}
