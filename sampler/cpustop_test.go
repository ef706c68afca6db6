package sampler

import (
	"bytes"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/testing/testutil"
)

// slowProfile is an application's CPU profile destination whose first
// write takes d. pprof.StopCPUProfile writes the profile with the
// profiling timer already off and pprof's lock held, so each stop lasts
// at least d: a continuous profiler that uploads as it writes, or one on
// a loaded machine.
type slowProfile struct {
	d    time.Duration
	once sync.Once
}

func (w *slowProfile) Write(p []byte) (int, error) {
	w.once.Do(func() { time.Sleep(w.d) })
	return len(p), nil
}

// timerReadable reports whether the CPU profiling timer can be read here;
// where it cannot, the watcher cannot tell a stop, and says so.
func timerReadable(t *testing.T) bool {
	if cpuTimerHz() == unknownHz {
		t.Logf("the CPU profiling timer cannot be read on %s: a restart may find the sampler's", runtime.GOOS)
		return false
	}
	return true
}

// appRestartsSlowly runs an application that restarts its CPU profile
// restarts times, each pause after a stop that lasts stop and a profile
// long enough for the watcher to see it run, beside a
// sampler in CPU mode. It returns the index of each restart that failed,
// the Stats and the log.
func appRestartsSlowly(t *testing.T, stop, pause time.Duration, restarts int) ([]int, Stats, []string) {
	t.Helper()
	if err := pprof.StartCPUProfile(&slowProfile{d: stop}); err != nil {
		t.Fatalf("the application's CPU profile: %v", err)
	}
	var logMu sync.Mutex
	var logs []string
	s, err := Start(Config{Mode: CPU, Backend: Trace, Log: func(m string) { logMu.Lock(); logs = append(logs, m); logMu.Unlock() }}, newMemSink())
	if err != nil {
		pprof.StopCPUProfile()
		t.Fatal(err)
	}
	var failed []int
	running := true
	for i := 1; i <= restarts; i++ {
		time.Sleep(4 * cpuCheckEvery) // a profile the watcher sees running
		if running {
			pprof.StopCPUProfile()
		}
		time.Sleep(pause)
		err := pprof.StartCPUProfile(&slowProfile{d: stop})
		if running = err == nil; !running {
			failed = append(failed, i)
		}
	}
	st, err := s.Stop()
	if running {
		pprof.StopCPUProfile()
	}
	if err != nil {
		t.Fatal(err)
	}
	logMu.Lock()
	defer logMu.Unlock()
	t.Logf("restarts that failed %v; Stats.CPUProfile %q, CPUGap %v; log %q", failed, st.CPUProfile, st.CPUGap, logs)
	return failed, st, logs
}

// TestAppSlowStopKeepsProfiler checks an application whose every
// pprof.StopCPUProfile lasts half of cpuFreeFor, past the timer: the
// sampler must never take the CPU profiler in that time, so every restart
// of the application's keeps its profile.
func TestAppSlowStopKeepsProfiler(t *testing.T) {
	if !timerReadable(t) {
		return
	}
	failed, st, logs := appRestartsSlowly(t, cpuFreeFor/2, 0, 4)
	if len(failed) > 0 {
		t.Errorf("the application's restarts %v failed", failed)
	}
	if strings.Contains(st.CPUProfile, "again") || len(logs) != 1 {
		t.Errorf("Stats.CPUProfile %q, log %q: want shared, without a takeover", st.CPUProfile, logs)
	}
}

// TestAppSlowerStopTeaches checks an application whose stops last twice
// cpuFreeFor, and which restarts its profile at once after each: the
// sampler's take waits on the first stop and says so at once, and every
// restart keeps its profile.
func TestAppSlowerStopTeaches(t *testing.T) {
	if !timerReadable(t) {
		return
	}
	checkSlowerStop(t, 0)
}

// TestAppSlowerStopTaken is TestAppSlowerStopTeaches with an application
// that restarts its profile a moment after each stop: the sampler's take,
// waiting on the first stop, gets the CPU profiler, and must give it back
// in that moment.
func TestAppSlowerStopTaken(t *testing.T) {
	if !timerReadable(t) {
		return
	}
	if took := checkSlowerStop(t, 5*cpuTakeWaited); !took {
		t.Errorf("the sampler's take did not get the CPU profiler before the application's restart %v later", 5*cpuTakeWaited)
	}
}

// checkSlowerStop runs TestAppSlowerStopTeaches's scenario with a pause
// between the application's stop and its restart, checks it, and reports
// whether the take that waited got the CPU profiler.
func checkSlowerStop(t *testing.T, pause time.Duration) bool {
	failed, st, logs := appRestartsSlowly(t, 2*cpuFreeFor, pause, 4)
	if len(failed) > 0 {
		t.Errorf("the application's restarts %v failed", failed)
	}
	if len(logs) < 2 || !strings.Contains(logs[1], "waited") || !strings.Contains(logs[1], "now waits") {
		t.Fatalf("log %q: want the take that waited on the application's stop, and the longer wait", logs)
	}
	for _, l := range logs[2:] {
		if strings.Contains(l, "waited") || strings.Contains(l, "again") {
			t.Errorf("a take waited on a stop again, or kept the CPU profiler: %q", l)
		}
	}
	took := strings.Contains(logs[1], "and got the CPU profiler")
	if took != strings.Contains(st.CPUProfile, "1 of the sampler's takes of the CPU profiler waited") || strings.Contains(st.CPUProfile, "again") {
		t.Errorf("log %q, Stats.CPUProfile %q: they disagree on whether the sampler took the CPU profiler, or it kept it", logs[1], st.CPUProfile)
	}
	return took
}

// TestWaitedOnStopLearns checks the wait learnt from a take that waited:
// twice the time the timer was off, never shorter than before, never past
// cpuFreeForMax.
func TestWaitedOnStopLearns(t *testing.T) {
	r := &cpuRecord{}
	if r.freeFor() != cpuFreeFor {
		t.Fatalf("wait %v before any take waited, want %v", r.freeFor(), cpuFreeFor)
	}
	for _, tc := range []struct {
		off, want time.Duration
	}{
		{cpuFreeFor / 4, cpuFreeFor},
		{cpuFreeFor, 2 * cpuFreeFor},
		{cpuFreeFor / 2, 2 * cpuFreeFor},
		{cpuFreeForMax, cpuFreeForMax},
	} {
		r.waitedOnStop(tc.off, cpuTakeWaited, false)
		if r.freeFor() != tc.want {
			t.Errorf("after a stop of %v: wait %v, want %v", tc.off, r.freeFor(), tc.want)
		}
	}
	if r.stopTakes != 0 {
		t.Errorf("%d takes recorded, want none", r.stopTakes)
	}
	r.waitedOnStop(time.Second, time.Second, true)
	if got, _ := r.describe(CPU, 100); !strings.Contains(got, "1 of the sampler's takes of the CPU profiler waited") {
		t.Errorf("describe = %q, want the take that waited", got)
	}
}

// gatedProfile is an application's CPU profile destination whose first
// write waits until release is closed: pprof.StopCPUProfile holds pprof's
// lock, with the profiling timer off, until then.
type gatedProfile struct {
	release chan struct{}
	once    sync.Once
}

func (w *gatedProfile) Write(p []byte) (int, error) {
	w.once.Do(func() { <-w.release })
	return len(p), nil
}

// inStartCPUProfile reports whether a goroutine is in
// pprof.StartCPUProfile.
func inStartCPUProfile() bool {
	buf := make([]byte, 1<<20)
	return bytes.Contains(buf[:runtime.Stack(buf, true)], []byte("runtime/pprof.StartCPUProfile("))
}

// TestStartWaitsOnAppStop checks a backend that starts while the
// application's pprof.StopCPUProfile writes its profile: its take waits
// on pprof's lock and gets the CPU profiler, and the log and Stats say so.
// The application's write lasts until the take has waited on the lock
// past cpuTakeWaited, however long the backend's start takes to get there
// on a loaded machine.
func TestStartWaitsOnAppStop(t *testing.T) {
	app := &gatedProfile{release: make(chan struct{})}
	if err := pprof.StartCPUProfile(app); err != nil {
		t.Fatalf("the application's CPU profile: %v", err)
	}
	stopped := make(chan struct{})
	go func() { pprof.StopCPUProfile(); close(stopped) }()
	defer func() { <-stopped }()
	released := false
	release := func() {
		if !released {
			released = true
			close(app.release)
		}
	}
	defer release()
	for cpuTimerHz() > 0 {
		time.Sleep(time.Millisecond)
	}
	var logMu sync.Mutex
	var logs []string
	type started struct {
		s   *Sampler
		err error
	}
	start := make(chan started, 1)
	go func() {
		s, err := Start(Config{Mode: CPU, Backend: Trace, Log: func(m string) { logMu.Lock(); logs = append(logs, m); logMu.Unlock() }}, newMemSink())
		start <- started{s, err}
	}()
	if testutil.WaitFor(time.Minute, func() bool { return len(start) > 0 || inStartCPUProfile() }) {
		time.Sleep(2 * cpuTakeWaited) // the take waits on pprof's lock all this time
	}
	release()
	<-stopped
	r := <-start
	if r.err != nil {
		t.Fatal(r.err)
	}
	st, err := r.s.Stop()
	if err != nil {
		t.Fatal(err)
	}
	logMu.Lock()
	defer logMu.Unlock()
	t.Logf("Stats.CPUProfile %q; log %q", st.CPUProfile, logs)
	if len(logs) != 1 || !strings.Contains(logs[0], "waited") || !strings.Contains(logs[0], "and got the CPU profiler") {
		t.Errorf("log %q: want the take that waited on the application's stop", logs)
	}
	if !strings.Contains(st.CPUProfile, "1 of the sampler's takes of the CPU profiler waited") {
		t.Errorf("Stats.CPUProfile %q: want the take that waited", st.CPUProfile)
	}
}

// TestAppReplacesSamplerCPUProfile checks an application that stops the
// sampler's CPU profile and starts its own at once, before the watcher
// sees the timer off: the sampler must share the application's profile
// from then on, and its Stop must leave that profile running.
func TestAppReplacesSamplerCPUProfile(t *testing.T) {
	if !timerReadable(t) {
		return
	}
	var logMu sync.Mutex
	var logs []string
	s, err := Start(Config{Mode: CPU, Backend: Trace, Log: func(m string) { logMu.Lock(); logs = append(logs, m); logMu.Unlock() }}, newMemSink())
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(cpuCheckEvery)
	pprof.StopCPUProfile()
	var app bytes.Buffer
	if err := pprof.StartCPUProfile(&app); err != nil {
		s.Stop()
		t.Fatalf("the application's CPU profile, after it stopped the sampler's: %v", err)
	}
	time.Sleep(2 * cpuOwnedCheckEvery)
	st, err := s.Stop()
	running := cpuTimerHz() > 0
	pprof.StopCPUProfile()
	if err != nil {
		t.Fatal(err)
	}
	logMu.Lock()
	defer logMu.Unlock()
	t.Logf("Stats.CPUProfile %q; log %q; the application's profile %d bytes", st.CPUProfile, logs, app.Len())
	if !running {
		t.Errorf("the sampler's Stop stopped the application's CPU profile")
	}
	if !strings.HasPrefix(st.CPUProfile, "shared the application's CPU profile") || len(logs) != 1 || !strings.Contains(logs[0], "shares it") {
		t.Errorf("Stats.CPUProfile %q, log %q: want the application's profile shared", st.CPUProfile, logs)
	}
	if app.Len() == 0 {
		t.Errorf("the application's CPU profile is empty")
	}
}

// TestRenewsOwnCPUProfile checks that the backend stops its own CPU
// profile and starts the next every cpuRenewEvery, that the samples keep
// coming, and that Stats says so. The gap is bounded loosely, a tenth of
// the profile: each renewal waits for pprof's writer, which a loaded
// machine slows, and the spinner's samples check that the profile goes
// on.
func TestRenewsOwnCPUProfile(t *testing.T) {
	defer func(d time.Duration) { cpuRenewEvery = d }(cpuRenewEvery)
	cpuRenewEvery = 300 * time.Millisecond
	sink := newMemSink()
	s, err := Start(Config{Mode: CPU, Backend: Trace}, sink)
	if err != nil {
		t.Fatal(err)
	}
	id, stopSpin := testutil.Spin(spin)
	time.Sleep(2 * time.Second)
	cpu := stopSpin()
	st, err := s.Stop()
	if err != nil {
		t.Fatal(err)
	}
	n, want := len(sink.of(id)), cpu.Seconds()*DefaultRate
	t.Logf("%d spinner samples for %v of CPU (%.0f expected); Stats.CPUProfile %q, CPUGap %v", n, cpu, want, st.CPUProfile, st.CPUGap)
	if !strings.Contains(st.CPUProfile, "renewed its own CPU profile") || st.CPUGap <= 0 || st.CPUGap > 200*time.Millisecond {
		t.Errorf("Stats.CPUProfile %q, CPUGap %v: want renewals, with a short gap", st.CPUProfile, st.CPUGap)
	}
	if float64(n) < 0.8*want {
		t.Errorf("%d spinner samples for %v of CPU, want about %.0f", n, cpu, want)
	}
	if h := cpuTimerHz(); h > 0 {
		t.Errorf("CPU profiling timer at %d Hz after Stop, want off", h)
	}
}
