package sampler

import (
	"fmt"
	"io"
	"runtime/pprof"
	rtrace "runtime/trace"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/testing/testutil"
)

// TestWallLeavesCPUProfiler checks who holds the process's one CPU profile:
// wall mode takes it unless Config.NoCPUSamples leaves it to the
// application; CPU mode always takes it.
func TestWallLeavesCPUProfiler(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cfg   Config
		taken bool
	}{
		{"wall", Config{Mode: Wall, Backend: Trace}, true},
		{"wall without CPU samples", Config{Mode: Wall, Backend: Trace, NoCPUSamples: true}, false},
		{"cpu", Config{Mode: CPU, Backend: Trace}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Start(tc.cfg, newMemSink())
			if err != nil {
				t.Fatal(err)
			}
			backend := s.Backend()
			time.Sleep(20 * time.Millisecond)
			appErr := pprof.StartCPUProfile(io.Discard)
			if appErr == nil {
				pprof.StopCPUProfile()
			}
			st, err := s.Stop()
			if err != nil {
				t.Fatal(err)
			}
			if backend != Trace {
				t.Skipf("trace backend unavailable: %s", st.Fallback)
			}
			if taken := appErr != nil; taken != tc.taken {
				t.Fatalf("application's StartCPUProfile during %s: %v; want it taken=%v", tc.name, appErr, tc.taken)
			}
		})
	}
}

// TestStopFreesProfilers checks that the CPU profiler and the tracer,
// which Stop stops side by side, are both the application's again the
// moment Stop returns.
func TestStopFreesProfilers(t *testing.T) {
	for _, mode := range []Mode{Wall, CPU} {
		t.Run(mode.String(), func(t *testing.T) {
			sampleFor(t, Config{Mode: mode, Backend: Trace}, 20*time.Millisecond, false, false)
			if err := pprof.StartCPUProfile(io.Discard); err != nil {
				t.Errorf("the application's StartCPUProfile right after Stop: %v", err)
			} else {
				pprof.StopCPUProfile()
			}
			if err := rtrace.Start(io.Discard); err != nil {
				t.Errorf("the application's trace.Start right after Stop: %v", err)
			} else {
				rtrace.Stop()
			}
		})
	}
}

// TestRuntimeStop checks Stats.RuntimeStop and Stats.StopParse: the
// runtime's stop of the tracer, and the parse after it, are timed for
// the trace backend, and there are none for the snapshot backend.
func TestRuntimeStop(t *testing.T) {
	for _, b := range []Backend{Trace, Snapshot} {
		t.Run(b.String(), func(t *testing.T) {
			_, st, _, _ := sampleFor(t, Config{Mode: Wall, Backend: b}, 20*time.Millisecond, false, false)
			want := st.Backend == Trace
			if (st.RuntimeStop > 0) != want {
				t.Errorf("backend %s: Stats.RuntimeStop %v, want it timed: %v", st.Backend, st.RuntimeStop, want)
			}
			if (st.StopParse > 0) != want {
				t.Errorf("backend %s: Stats.StopParse %v, want it timed: %v", st.Backend, st.StopParse, want)
			}
		})
	}
}

// TestWallRunningStacks checks that a goroutine spinning without a single
// scheduler event of its own is seen in its spin loop, with CPU samples and
// from preemption points alone. A loaded machine may keep the spinner
// off CPU and the sampler's ticks apart (6-15 Hz were seen beside other
// test processes), so a short run that sees too little is retried longer.
func TestWallRunningStacks(t *testing.T) {
	for _, withCPU := range []bool{false, true} {
		t.Run(fmt.Sprintf("NoCPUSamples=%v", !withCPU), func(t *testing.T) {
			testutil.Retry(t, 400*time.Millisecond, 4, func(d time.Duration) error {
				sink, _, ids, got := sampleFor(t, Config{Backend: Trace, NoCPUSamples: !withCPU}, d, true, true)
				if got != Trace {
					t.Skip("trace backend unavailable")
				}
				on, inLoop := 0, 0
				for _, s := range sink.of(ids["spin"]) {
					if s.status != onCPU {
						continue
					}
					on++
					if s.hasFunc("sampler.spin") || s.hasFunc("sampler.spinWork") {
						inLoop++
					}
				}
				if on < 10 || inLoop < on*8/10 {
					return fmt.Errorf("%d of the spinner's %d on-CPU samples show its loop, want >= 80%% of at least 10", inLoop, on)
				}
				t.Logf("%d of the spinner's %d on-CPU samples in its loop (%v)", inLoop, on, d)
				return nil
			})
		})
	}
}
