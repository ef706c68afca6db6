package sampler

import (
	"io"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/testing/testutil"
)

// appStopsCPU runs the scenario of an application that profiles the CPU
// when the sampler starts and stops its profile after stopAfter, while a
// goroutine locked to its thread spins for total. It returns the sink,
// the Stats, the spinner's id and its CPU time.
func appStopsCPU(t *testing.T, cfg Config, stopAfter, total time.Duration) (*memSink, Stats, uint64, time.Duration) {
	t.Helper()
	if err := pprof.StartCPUProfile(io.Discard); err != nil {
		t.Fatalf("the application's CPU profile: %v", err)
	}
	appStopped := false
	defer func() {
		if !appStopped {
			pprof.StopCPUProfile()
		}
	}()
	var logMu sync.Mutex
	var logs []string
	cfg.Log = func(m string) { logMu.Lock(); logs = append(logs, m); logMu.Unlock() }
	sink := newMemSink()
	s, err := Start(cfg, sink)
	if err != nil {
		t.Fatal(err)
	}
	if b := s.Backend(); b != Trace {
		s.Stop()
		t.Fatalf("backend %v, want trace", b)
	}
	id, stopSpin := testutil.Spin(spin)
	time.Sleep(stopAfter)
	pprof.StopCPUProfile()
	appStopped = true
	time.Sleep(total - stopAfter)
	cpu := stopSpin()
	st, err := s.Stop()
	if err != nil {
		t.Fatalf("Stop: %v", err)
	}
	logMu.Lock()
	defer logMu.Unlock()
	t.Logf("spinner CPU %v; CPU samples %d; CPUProfile %q; CPUGap %v; log %q", cpu, st.CPUSamples, st.CPUProfile, st.CPUGap, logs)
	if !strings.HasPrefix(st.CPUProfile, "shared the application's CPU profile") || !strings.Contains(st.CPUProfile, "started it again") || st.CPUGap <= 0 || st.CPUGap > time.Second {
		t.Errorf("Stats.CPUProfile %q, CPUGap %v: want a takeover after a gap under a second", st.CPUProfile, st.CPUGap)
	}
	if len(logs) != 2 || !strings.Contains(logs[0], "shares it") || !strings.Contains(logs[1], "started it again") {
		t.Errorf("Config.Log got %q, want a line on sharing and one on the takeover", logs)
	}
	return sink, st, id, cpu
}

// TestAppStopsCPUProfile is issue 25's scenario in CPU mode: the
// application's CPU profile runs when the sampler starts and stops after
// half a second of three; the spinner's samples must still number about
// its CPU time at 100 Hz, and Stats must say what happened.
func TestAppStopsCPUProfile(t *testing.T) {
	sink, _, id, cpu := appStopsCPU(t, Config{Mode: CPU, Backend: Trace}, 500*time.Millisecond, 3*time.Second)
	n := 0
	for _, s := range sink.of(id) {
		if s.status.OnCPU() {
			n++
		}
	}
	want := cpu.Seconds() * DefaultRate
	t.Logf("%d spinner samples for %v of CPU (%.0f expected)", n, cpu, want)
	if float64(n) < 0.6*want || float64(n) > 1.3*want+10 {
		t.Fatalf("%d spinner samples for %v of CPU, want about %.0f", n, cpu, want)
	}
}

// TestAppStopsCPUProfileWall is the same scenario in wall mode: the CPU
// samples that place running goroutines must keep coming after the
// application stops its profile. The watcher that takes the CPU profiler
// over is the sampler's own: no sample shows it.
func TestAppStopsCPUProfileWall(t *testing.T) {
	sink, st, _, cpu := appStopsCPU(t, Config{Mode: Wall, Backend: Trace}, 500*time.Millisecond, 3*time.Second)
	want := cpu.Seconds() * wallCPUHz // the spinner's alone: the trace carries more
	if float64(st.CPUSamples) < 0.6*want {
		t.Fatalf("%d CPU samples in the trace for the spinner's %v of CPU, want at least %.0f", st.CPUSamples, cpu, 0.6*want)
	}
	for _, s := range sink.all() {
		if s.hasFunc("sampler.watchCPU") {
			t.Fatalf("the CPU profiler's watcher sampled: %v", s)
		}
	}
}

// TestAppRestartsCPUProfile checks that an application that stops a CPU
// profile and starts the next at once, as continuous profilers do, keeps
// its CPU profiles while the sampler shares them, and that Stats says the
// sampler shared it.
func TestAppRestartsCPUProfile(t *testing.T) {
	if !timerReadable(t) {
		return
	}
	if err := pprof.StartCPUProfile(io.Discard); err != nil {
		t.Fatalf("the application's CPU profile: %v", err)
	}
	s, err := Start(Config{Mode: CPU, Backend: Trace}, newMemSink())
	if err != nil {
		pprof.StopCPUProfile()
		t.Fatal(err)
	}
	var failed []error
	deadline := time.Now().Add(1500 * time.Millisecond)
	restarts := 0
	for time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		pprof.StopCPUProfile()
		if err := pprof.StartCPUProfile(io.Discard); err != nil {
			failed = append(failed, err)
			break
		}
		restarts++
	}
	st, err := s.Stop()
	if len(failed) == 0 {
		pprof.StopCPUProfile()
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(failed) > 0 {
		t.Fatalf("the application's restart %d failed: %v (Stats.CPUProfile %q)", restarts+1, failed[0], st.CPUProfile)
	}
	if !strings.HasPrefix(st.CPUProfile, "shared the application's CPU profile (at 100 Hz)") || strings.Contains(st.CPUProfile, "again") {
		t.Fatalf("Stats.CPUProfile %q, want shared without a takeover", st.CPUProfile)
	}
	t.Logf("%d restarts; Stats.CPUProfile %q, CPUGap %v", restarts, st.CPUProfile, st.CPUGap)
}

// TestCPURecordDescribe checks Stats.CPUProfile's account of each case.
func TestCPURecordDescribe(t *testing.T) {
	for _, tc := range []struct {
		name string
		rec  *cpuRecord
		mode Mode
		hz   int
		want []string
	}{
		{"owned", &cpuRecord{}, CPU, 1000, nil},
		{"shared throughout", &cpuRecord{shared: true, appHz: 100}, CPU, 100, []string{"shared the application's CPU profile (at 100 Hz)"}},
		{"shared at another rate", &cpuRecord{shared: true, appHz: 100}, CPU, 1000, []string{"samples come at 100 Hz, not 1000 Hz"}},
		{"shared at an unknown rate", &cpuRecord{shared: true}, CPU, 250, []string{"at its rate", "not 250 Hz"}},
		{"wall ignores the rate", &cpuRecord{shared: true, appHz: 250}, Wall, 100, []string{"(at 250 Hz)"}},
		{"took over", &cpuRecord{shared: true, appHz: 100, restarts: 1, firstAt: 512 * time.Millisecond, restartGap: 80 * time.Millisecond},
			CPU, 100, []string{"started it again at 512ms, after at most 80ms without CPU samples"}},
		{"took over twice", &cpuRecord{shared: true, restarts: 2, firstAt: time.Second, restartGap: 150 * time.Millisecond},
			Wall, 100, []string{"stopped the CPU profile 2 times and the sampler started it again, first at 1s, after at most 150ms"}},
		{"stopped before the end", &cpuRecord{shared: true, appHz: 100, endGap: 30 * time.Millisecond},
			CPU, 100, []string{"no CPU samples came for the last 30ms (at most)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, gap := tc.rec.describe(tc.mode, tc.hz)
			if tc.want == nil && got != "" || gap != tc.rec.restartGap+tc.rec.endGap {
				t.Fatalf("describe = %q, %v", got, gap)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("describe = %q, want %q in it", got, w)
				}
			}
			if strings.Contains(got, "not") != (tc.name == "shared at another rate" || tc.name == "shared at an unknown rate") {
				t.Errorf("describe = %q: rate warning where none is due, or none where due", got)
			}
		})
	}
}

// TestTakeoverRate checks that a CPU-mode takeover runs the CPU profiler
// at the profile's rate, not pprof's, and that Stats says the shared
// samples came at the application's rate.
func TestTakeoverRate(t *testing.T) {
	if cpuTimerHz() == unknownHz {
		t.Logf("the CPU profiling timer cannot be read on %s", runtime.GOOS)
		return
	}
	const hz = 250
	if err := pprof.StartCPUProfile(io.Discard); err != nil {
		t.Fatalf("the application's CPU profile: %v", err)
	}
	s, err := Start(Config{Mode: CPU, Backend: Trace, Rate: hz}, newMemSink())
	if err != nil {
		pprof.StopCPUProfile()
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	pprof.StopCPUProfile()
	got := 0
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline) && got == 0; {
		time.Sleep(20 * time.Millisecond)
		got = cpuTimerHz()
	}
	st, err := s.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if got != hz {
		t.Errorf("CPU profiling timer at %d Hz after the takeover, want %d", got, hz)
	}
	if !strings.Contains(st.CPUProfile, "started it again") || !strings.Contains(st.CPUProfile, "samples come at 100 Hz, not 250 Hz") {
		t.Errorf("Stats.CPUProfile %q, want a takeover and the shared samples' rate", st.CPUProfile)
	}
	if h := cpuTimerHz(); h != 0 {
		t.Errorf("CPU profiling timer at %d Hz after Stop, want off", h)
	}
}

// TestAppStopsSamplerCPUProfile checks the converse: the sampler holds the
// CPU profile and the application stops it (pprof.StopCPUProfile stops
// whichever profile runs); the sampler starts it again, and says so.
func TestAppStopsSamplerCPUProfile(t *testing.T) {
	sink := newMemSink()
	var logMu sync.Mutex
	var logs []string
	s, err := Start(Config{Mode: CPU, Backend: Trace, Log: func(m string) { logMu.Lock(); logs = append(logs, m); logMu.Unlock() }}, sink)
	if err != nil {
		t.Fatal(err)
	}
	id, stopSpin := testutil.Spin(spin)
	time.Sleep(300 * time.Millisecond)
	pprof.StopCPUProfile()
	time.Sleep(1700 * time.Millisecond)
	cpu := stopSpin()
	st, err := s.Stop()
	if err != nil {
		t.Fatal(err)
	}
	n := len(sink.of(id))
	want := cpu.Seconds() * DefaultRate
	logMu.Lock()
	defer logMu.Unlock()
	t.Logf("%d spinner samples for %v of CPU (%.0f expected); CPUProfile %q; CPUGap %v; log %q", n, cpu, want, st.CPUProfile, st.CPUGap, logs)
	if float64(n) < 0.6*want {
		t.Errorf("%d spinner samples for %v of CPU, want about %.0f", n, cpu, want)
	}
	if !strings.HasPrefix(st.CPUProfile, "the application stopped the CPU profile and the sampler started it again") || st.CPUGap <= 0 || st.CPUGap > time.Second {
		t.Errorf("Stats.CPUProfile %q, CPUGap %v: want a restart after a gap under a second", st.CPUProfile, st.CPUGap)
	}
	if len(logs) != 1 || !strings.Contains(logs[0], "started it again") {
		t.Errorf("Config.Log got %q, want one line on the restart", logs)
	}
	if h := cpuTimerHz(); h > 0 {
		t.Errorf("CPU profiling timer at %d Hz after Stop, want off", h)
	}
}

// The watcher looks less often while the backend's own profile runs, and
// at once at the usual pace when it finds it stopped: the first look after
// the application's stop comes within cpuOwnedCheckEvery, the restart
// within cpuFreeFor and a look more.
func TestWatcherPace(t *testing.T) {
	if nextLook(true) != cpuOwnedCheckEvery || nextLook(false) != cpuCheckEvery {
		t.Fatalf("nextLook: %v and %v, want %v while owned and running, %v otherwise",
			nextLook(true), nextLook(false), cpuOwnedCheckEvery, cpuCheckEvery)
	}
	if cpuOwnedCheckEvery+cpuFreeFor+cpuCheckEvery >= time.Second {
		t.Fatalf("a restart can come %v after the stop: past the second TestAppStopsSamplerCPUProfile allows",
			cpuOwnedCheckEvery+cpuFreeFor+cpuCheckEvery)
	}
}
