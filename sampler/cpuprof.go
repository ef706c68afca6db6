package sampler

import (
	"fmt"
	"io"
	"reflect"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gotachyon/profiler/internal/own"
)

// The CPU profiler beside the trace. A process has one CPU profile,
// started with pprof.StartCPUProfile and stopped with
// pprof.StopCPUProfile, whoever started it; its samples reach the
// execution trace with goroutine ids whoever started it. A trace backend
// takes it for its run if it is free. If the application runs its own CPU
// profile at that moment, the backend shares it: the samples come at the
// application's rate, and stop when the application stops its profile.
// The application may also stop the backend's own (a deferred
// pprof.StopCPUProfile after its pprof.StartCPUProfile failed). A watcher
// goroutine checks a few times a second whether the CPU profile stopped,
// and then starts it again, at the mode's rate, so that the samples keep
// coming. Stats says what happened, Config.Log at once.
//
// Where the runtime's profiling timer can be read (Linux, getitimer of
// ITIMER_PROF), the watcher starts it again only once the timer has been
// off for cpuFreeFor: an application that stops a CPU profile and starts
// the next at once (a continuous profiler) finds the CPU profiler free
// again, as it would without this package. Elsewhere it can only try to
// start one: the first check that finds the CPU profiler free takes it.

const (
	// pprofHz is the rate pprof.StartCPUProfile sets.
	pprofHz = 100
	// cpuCheckEvery is how often the watcher looks while the CPU profile
	// is off or the application's runs: how soon it takes the profiler
	// once free.
	cpuCheckEvery = 50 * time.Millisecond
	// cpuOwnedCheckEvery is how often it looks while the backend's own
	// profile runs, which stops only if the application stops it (the
	// sample gap that follows is reported, Stats.CPUGap). Each look wakes
	// an idle process, whose runtime then spins and polls for a while:
	// looked at every cpuCheckEvery, that was most of the profiler's
	// wakeups.
	cpuOwnedCheckEvery = 250 * time.Millisecond
	// cpuFreeFor is how long the profiling timer must have been seen off
	// before the watcher starts the CPU profiler again.
	cpuFreeFor = 100 * time.Millisecond
	// unknownHz is what cpuTimerHz returns where the timer cannot be read.
	unknownHz = -1
)

// cpuProfiler is a trace backend's use of the CPU profiler, owned or
// shared with the application's, and its watcher. The watcher owns lastOn
// and owned until done is closed.
type cpuProfiler struct {
	mode     Mode
	hz       int
	rec      *cpuRecord
	owned    atomic.Bool // the backend started the CPU profile running now
	lastOn   time.Time   // the latest sight of a CPU profile running
	awaiting bool        // the CPU profiler is left free for the application's (Config.AwaitCPUProfile)
	quit     chan struct{}
	done     chan struct{}
}

// startCPUProfiler takes the CPU profiler at hz, or shares the
// application's, and starts the watcher. Until rec.awaitUntil, it leaves
// a free CPU profiler to the application, and the watcher shares the
// application's once it runs.
func startCPUProfiler(mode Mode, hz int, rec *cpuRecord) *cpuProfiler {
	c := &cpuProfiler{mode: mode, hz: hz, rec: rec, lastOn: time.Now(), quit: make(chan struct{}), done: make(chan struct{})}
	if time.Now().Before(rec.awaitUntil) && cpuTimerHz() <= 0 {
		c.awaiting = true // and an unreadable timer is not probed: that would take it
	} else {
		c.owned.Store(takeCPU(hz))
		if !c.owned.Load() {
			rec.share(mode, cpuTimerHz(), hz)
		}
	}
	own.Go(func() { watchCPU(c) })
	return c
}

// rate is the rate of the CPU samples now: the backend's while it owns the
// CPU profiler, else the application's (pprof's unless known otherwise).
func (c *cpuProfiler) rate() int {
	if c.owned.Load() {
		return c.hz
	}
	c.rec.mu.Lock()
	defer c.rec.mu.Unlock()
	if c.rec.appHz > 0 {
		return c.rec.appHz
	}
	return pprofHz
}

// stop stops the watcher, records whether the CPU profile stopped since
// its latest look, and stops the CPU profiler if this backend started it.
func (c *cpuProfiler) stop() {
	close(c.quit)
	<-c.done
	if cpuTimerHz() == 0 && !c.awaiting {
		c.rec.stoppedBeforeEnd(time.Since(c.lastOn))
	}
	if c.owned.Load() {
		pprof.StopCPUProfile()
	}
}

// takeCPU starts the CPU profiler at hz into io.Discard, and reports
// whether it did. pprof.StartCPUProfile sets its own rate; the runtime
// keeps a rate set before it (and prints a warning), so another rate is
// set first, but only when the CPU profiler is free: setting it while the
// application profiles would print that warning to no purpose.
func takeCPU(hz int) bool {
	if hz != pprofHz {
		switch cpuTimerHz() {
		case 0:
		case unknownHz:
			// Starting a profile at pprof's rate is the only way to
			// learn that the CPU profiler is free.
			if pprof.StartCPUProfile(io.Discard) != nil {
				return false
			}
			pprof.StopCPUProfile()
		default:
			return false
		}
		runtime.SetCPUProfileRate(hz)
	}
	return pprof.StartCPUProfile(io.Discard) == nil
}

// watchCPU is the watcher's goroutine: it starts the CPU profiler again
// whenever the CPU profile has stopped. It runs on a goroutine of
// own.Go, which the sampler hides by its id.
func watchCPU(c *cpuProfiler) {
	defer close(c.done)
	look := time.NewTimer(nextLook(c.owned.Load() && !c.awaiting))
	defer look.Stop()
	var offSince time.Time
	for {
		select {
		case <-c.quit:
			return
		case <-look.C:
		}
		look.Reset(nextLook(c.look(time.Now(), &offSince)))
	}
}

// nextLook is the time to the watcher's next look: cpuOwnedCheckEvery
// once it saw the backend's own profile running, else cpuCheckEvery.
func nextLook(ownRunning bool) time.Duration {
	if ownRunning {
		return cpuOwnedCheckEvery
	}
	return cpuCheckEvery
}

// look is one look of the watcher at now; offSince is when it first saw
// the CPU profile off since it last ran. It reports whether the backend's
// own profile runs.
func (c *cpuProfiler) look(now time.Time, offSince *time.Time) bool {
	hz := cpuTimerHz()
	switch {
	case hz > 0:
		c.awaited(hz)
		c.lastOn, *offSince = now, time.Time{}
		return c.owned.Load()
	case c.awaiting && now.Before(c.rec.awaitUntil):
		return false // left free for the application's profile
	case hz == 0:
		if offSince.IsZero() {
			*offSince = now
		}
		if now.Sub(*offSince) < cpuFreeFor {
			return false
		}
	}
	if !takeCPU(c.hz) {
		// A CPU profile runs (the backend's, or the application's).
		c.awaited(hz)
		c.lastOn, *offSince = now, time.Time{}
		return false
	}
	c.owned.Store(true)
	if c.awaiting {
		c.awaiting = false
		c.rec.notAwaited(now)
	} else {
		c.rec.restarted(now, now.Sub(c.lastOn))
	}
	c.lastOn, *offSince = now, time.Time{}
	return true
}

// awaited records, when the CPU profiler was left free for the
// application's, that the application's profile runs (at hz, if known):
// the backend shares it.
func (c *cpuProfiler) awaited(hz int) {
	if c.awaiting {
		c.awaiting = false
		c.rec.share(c.mode, hz, c.hz)
	}
}

// watchCPUName is watchCPU's name, which roleOf still hides as a start
// function; started by own.Go, the watcher's goroutine no longer starts
// there, and is hidden by its id.
var watchCPUName = runtime.FuncForPC(reflect.ValueOf(watchCPU).Pointer()).Name()

// cpuRecord is the sampler's account of the CPU profiler across its trace
// backends, for Stats.CPUProfile and Stats.CPUGap.
type cpuRecord struct {
	mu         sync.Mutex
	log        func(string)
	start      time.Time
	awaitUntil time.Time // Config.AwaitCPUProfile after start; set before any backend runs
	awaitGap   time.Duration
	shared     bool // a backend shared the application's CPU profile
	appHz      int  // its rate, where known (0 if not)
	restarts   int
	firstAt    time.Duration // since start, the first restart
	restartGap time.Duration // summed bounds of the time without samples before each restart
	endGap     time.Duration // the same, before a backend stopped
}

// share records that a backend shares the application's CPU profile,
// running at hz (unknownHz if the timer cannot be read), and says so in
// the log.
func (r *cpuRecord) share(mode Mode, hz, want int) {
	r.mu.Lock()
	r.shared = true
	if hz > 0 {
		r.appHz = hz
	}
	log := r.log
	r.mu.Unlock()
	if log == nil {
		return
	}
	msg := "the application runs a CPU profile: the sampler shares it"
	if note := rateNote(mode, hz, want); note != "" {
		msg += " (" + note + ")"
	}
	log(msg + ", and takes the CPU profiler over if the application stops it")
}

// rateNote says, in CPU mode, that shared samples come at hz (the
// application's rate, unknownHz or 0 if not known) rather than want.
func rateNote(mode Mode, hz, want int) string {
	switch {
	case mode != CPU:
	case hz > 0 && hz != want:
		return fmt.Sprintf("samples come at %d Hz, not %d Hz", hz, want)
	case hz <= 0 && want != pprofHz:
		return fmt.Sprintf("samples come at the application's rate (pprof's %d Hz unless it set another), not %d Hz", pprofHz, want)
	}
	return ""
}

// restarted records that the sampler started the CPU profiler again at
// now, after at most gap without samples, and says so in the log.
func (r *cpuRecord) restarted(now time.Time, gap time.Duration) {
	r.mu.Lock()
	r.restarts++
	at := now.Sub(r.start)
	if r.restarts == 1 {
		r.firstAt = at
	}
	r.restartGap += gap
	log := r.log
	r.mu.Unlock()
	if log != nil {
		log(fmt.Sprintf("the CPU profile stopped (the application called pprof.StopCPUProfile); the sampler started it again at %v, after at most %v without CPU samples: the application's pprof.StartCPUProfile fails until the profile stops",
			at.Round(time.Millisecond), gap.Round(time.Millisecond)))
	}
}

// notAwaited records that the CPU profiler left free for the
// application's (Config.AwaitCPUProfile) was still free at its end, and
// that the sampler took it at now; it says so in the log.
func (r *cpuRecord) notAwaited(now time.Time) {
	r.mu.Lock()
	r.awaitGap = now.Sub(r.start)
	log := r.log
	r.mu.Unlock()
	if log != nil {
		log(fmt.Sprintf("no CPU profile of the application's started in the %v the CPU profiler was left free for it: the sampler took it", r.awaitGap.Round(time.Millisecond)))
	}
}

// stoppedBeforeEnd records that the application stopped the CPU profile
// the sampler shared at most d before the backend stopped.
func (r *cpuRecord) stoppedBeforeEnd(d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.endGap += d
}

// describe returns Stats.CPUProfile and Stats.CPUGap for a profile in
// mode at hz.
func (r *cpuRecord) describe(mode Mode, hz int) (string, time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var parts []string
	if r.shared {
		rate := "at its rate"
		if r.appHz > 0 {
			rate = fmt.Sprintf("at %d Hz", r.appHz)
		}
		parts = append(parts, "shared the application's CPU profile ("+rate+")")
	}
	switch {
	case r.restarts == 1:
		parts = append(parts, fmt.Sprintf("the application stopped the CPU profile and the sampler started it again at %v, after at most %v without CPU samples",
			r.firstAt.Round(time.Millisecond), r.restartGap.Round(time.Millisecond)))
	case r.restarts > 1:
		parts = append(parts, fmt.Sprintf("the application stopped the CPU profile %d times and the sampler started it again, first at %v, after at most %v without CPU samples in all",
			r.restarts, r.firstAt.Round(time.Millisecond), r.restartGap.Round(time.Millisecond)))
	}
	if r.awaitGap > 0 {
		parts = append(parts, fmt.Sprintf("the CPU profiler, left free for the application's profile, which did not start, was taken after %v without CPU samples", r.awaitGap.Round(time.Millisecond)))
	}
	if r.endGap > 0 {
		parts = append(parts, fmt.Sprintf("the application stopped the CPU profile and no CPU samples came for the last %v (at most) before the trace backend stopped", r.endGap.Round(time.Millisecond)))
	}
	if note := rateNote(mode, r.appHz, hz); r.shared && note != "" {
		parts = append(parts, "while shared, "+note)
	}
	return strings.Join(parts, "; "), r.awaitGap + r.restartGap + r.endGap
}
