package sampler

import (
	"bytes"
	"runtime/pprof"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/pprof/profile"
	"github.com/gotachyon/profiler/internal/testing/testutil"
)

// TestAwaitCPUProfile is a test binary's -test.cpuprofile: the sampler
// starts first, and the application's pprof.StartCPUProfile must still
// work and get a whole profile, while the sampler's CPU samples come from
// it.
func TestAwaitCPUProfile(t *testing.T) {
	var logMu sync.Mutex
	var logs []string
	sink := newMemSink()
	s, err := Start(Config{Mode: CPU, Backend: Trace, AwaitCPUProfile: 5 * time.Second,
		Log: func(m string) { logMu.Lock(); logs = append(logs, m); logMu.Unlock() }}, sink)
	if err != nil {
		t.Fatal(err)
	}
	var app bytes.Buffer
	appErr := pprof.StartCPUProfile(&app)
	id, stopSpin := testutil.Spin(spin)
	time.Sleep(time.Second)
	cpu := stopSpin()
	if appErr == nil {
		pprof.StopCPUProfile()
	}
	st, err := s.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if appErr != nil {
		t.Fatalf("the application's pprof.StartCPUProfile after the sampler's Start: %v", appErr)
	}
	if prof, err := profile.Parse(&app); err != nil || len(prof.Sample) == 0 {
		t.Errorf("the application's CPU profile: %v (%d bytes)", err, app.Len())
	}
	n := len(sink.of(id))
	want := cpu.Seconds() * pprofHz
	logMu.Lock()
	defer logMu.Unlock()
	t.Logf("%d spinner samples for %v of CPU (%.0f expected); CPUProfile %q; log %q", n, cpu, want, st.CPUProfile, logs)
	if float64(n) < 0.5*want {
		t.Errorf("%d spinner samples for %v of CPU, want about %.0f: the shared profile's samples did not come", n, cpu, want)
	}
	if !strings.HasPrefix(st.CPUProfile, "shared the application's CPU profile") {
		t.Errorf("Stats.CPUProfile %q, want shared", st.CPUProfile)
	}
}

// TestAwaitCPUProfileExpires checks that a CPU profiler left free for an
// application that never starts its profile is taken when the time is
// up, and that Stats says so.
func TestAwaitCPUProfileExpires(t *testing.T) {
	sink := newMemSink()
	s, err := Start(Config{Mode: CPU, Backend: Trace, AwaitCPUProfile: 300 * time.Millisecond}, sink)
	if err != nil {
		t.Fatal(err)
	}
	id, stopSpin := testutil.Spin(spin)
	time.Sleep(1500 * time.Millisecond)
	cpu := stopSpin()
	st, err := s.Stop()
	if err != nil {
		t.Fatal(err)
	}
	n := len(sink.of(id))
	t.Logf("%d spinner samples for %v of CPU; CPUProfile %q; CPUGap %v", n, cpu, st.CPUProfile, st.CPUGap)
	if n == 0 {
		t.Error("no spinner samples: the sampler did not take the CPU profiler")
	}
	if !strings.Contains(st.CPUProfile, "did not start") || st.CPUGap < 300*time.Millisecond {
		t.Errorf("Stats.CPUProfile %q, CPUGap %v: want the wait said and counted", st.CPUProfile, st.CPUGap)
	}
	if h := cpuTimerHz(); h > 0 {
		t.Errorf("CPU profiling timer at %d Hz after Stop, want off", h)
	}
}
