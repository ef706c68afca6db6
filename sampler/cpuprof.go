package sampler

import (
	"io"
	"reflect"
	"runtime"
	"runtime/pprof"
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
// coming. The backend's own profile goes to a writer of its own, which
// pprof writes to only once that profile has stopped: a profile running
// after that is the application's, which the backend shares and never
// stops. Stats says what happened, Config.Log at once.
//
// Where the runtime's profiling timer can be read (Linux, getitimer of
// ITIMER_PROF), the watcher starts it again only once the timer has been
// off for cpuFreeFor: an application that stops a CPU profile and starts
// the next at once (a continuous profiler) finds the CPU profiler free
// again, as it would without this package. pprof.StopCPUProfile turns the
// timer off before it writes the profile, under pprof's lock: a take that
// waited on that lock gives back what it got, at once, and has measured
// how long the application's stops last; the watcher waits twice that
// from then on. Elsewhere it can only try to
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
	// cpuFreeFor is how long the profiling timer must first have been seen
	// off before the watcher starts the CPU profiler again.
	// pprof.StopCPUProfile turns the timer off, then holds pprof's lock
	// while it writes the profile; a pprof.StartCPUProfile of the
	// watcher's in that time waits on the lock and may get it before the
	// application's next one, which then fails.
	cpuFreeFor = 300 * time.Millisecond
	// cpuTakeWaited is how long a take of the watcher's may last before it
	// counts as having waited on an application's pprof.StopCPUProfile.
	cpuTakeWaited = 20 * time.Millisecond
	// cpuFreeForMax bounds the wait learnt from such a take: twice the
	// time the timer had been off when the take returned.
	cpuFreeForMax = 3 * time.Second
	// unknownHz is what cpuTimerHz returns where the timer cannot be read.
	unknownHz = -1
)

// cpuRenewEvery is how long the backend's own CPU profile runs before the
// watcher stops it and starts the next. Until a profile stops, pprof keeps
// every distinct stack and label set of its samples: with labels that
// change from request to request, memory that grows for as long as the
// profile runs. A variable for the tests.
var cpuRenewEvery = time.Minute

// cpuProfiler is a trace backend's use of the CPU profiler, owned or
// shared with the application's, and its watcher. The watcher owns lastOn
// and own until done is closed.
type cpuProfiler struct {
	mode     Mode
	hz       int
	rec      *cpuRecord
	own      atomic.Pointer[ownProfile] // the backend's latest CPU profile, if it started one since it last shared
	ownSince time.Time                  // when it started it
	lastOn   time.Time                  // the latest sight of a CPU profile running
	awaiting bool                       // the CPU profiler is left free for the application's (Config.AwaitCPUProfile)
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
		// Given back, the watcher takes it once the timer has been off
		// long enough.
		p, gaveBack, at := c.take(time.Now())
		c.own.Store(p)
		c.ownSince = at
		if p == nil && !gaveBack {
			rec.share(mode, cpuTimerHz(), hz)
		}
	}
	own.Go(func() { watchCPU(c) })
	return c
}

// rate is the rate of the CPU samples now: the backend's while it owns the
// CPU profiler, else the application's (pprof's unless known otherwise).
func (c *cpuProfiler) rate() int {
	if c.ownRunning() {
		return c.hz
	}
	c.rec.mu.Lock()
	defer c.rec.mu.Unlock()
	if c.rec.appHz > 0 {
		return c.rec.appHz
	}
	return pprofHz
}

// ownRunning reports whether the backend's own CPU profile may be running:
// it started one, which has not ended.
func (c *cpuProfiler) ownRunning() bool {
	p := c.own.Load()
	return p != nil && !p.ended.Load()
}

// stop stops the watcher, records whether the CPU profile stopped since
// its latest look, and stops the CPU profiler if the profile running is
// the one this backend started: not once it ended, and not while the
// timer is off (the application's pprof.StopCPUProfile of it under way),
// after which a profile may be the application's.
func (c *cpuProfiler) stop() {
	close(c.quit)
	<-c.done
	hz := cpuTimerHz()
	if hz == 0 && !c.awaiting {
		c.rec.stoppedBeforeEnd(time.Since(c.lastOn))
	}
	if hz != 0 && c.ownRunning() {
		pprof.StopCPUProfile()
	}
}

// ownProfile is where the backend's own CPU profile goes. pprof writes a
// profile once it has stopped, so a write says that the profile, whoever
// stopped it, has ended: one running after it is the application's.
type ownProfile struct{ ended atomic.Bool }

// Write records that the profile ended, and discards p.
func (o *ownProfile) Write(p []byte) (int, error) {
	o.ended.Store(true)
	return len(p), nil
}

// takeCPU starts the CPU profiler at hz, and returns where its profile
// goes; nil if it could not. pprof.StartCPUProfile sets its own rate; the
// runtime keeps a rate set before it (and prints a warning), so another
// rate is set first, but only when the CPU profiler is free: setting it
// while the application profiles would print that warning to no purpose.
func takeCPU(hz int) *ownProfile {
	if hz != pprofHz {
		switch cpuTimerHz() {
		case 0:
		case unknownHz:
			// Starting a profile at pprof's rate is the only way to
			// learn that the CPU profiler is free.
			if pprof.StartCPUProfile(io.Discard) != nil {
				return nil
			}
			pprof.StopCPUProfile()
		default:
			return nil
		}
		runtime.SetCPUProfileRate(hz)
	}
	p := &ownProfile{}
	if pprof.StartCPUProfile(p) != nil {
		return nil
	}
	return p
}

// renew stops the backend's own CPU profile and starts the next, so that
// pprof lets go of what it kept of the samples; if the application's
// start comes in between, the backend shares its profile.
func (c *cpuProfiler) renew() {
	t := time.Now()
	pprof.StopCPUProfile()
	p := takeCPU(c.hz)
	at := time.Now()
	c.own.Store(p)
	c.ownSince, c.lastOn = at, at
	c.rec.renewed(at.Sub(t))
	if p == nil {
		c.rec.share(c.mode, cpuTimerHz(), c.hz)
	}
}

// take takes the CPU profiler at c.hz, and returns the profile started
// (nil if none), whether it gave it back, and when the take ended. A take
// that lasts past cpuTakeWaited waited on an application's
// pprof.StopCPUProfile, the timer being off since since (where known:
// not zero). It may have got the CPU profiler just before the
// application's next pprof.StartCPUProfile, which would then fail until
// the backend stops: it gives back what it got at once, and the record
// learns the longer wait.
func (c *cpuProfiler) take(since time.Time) (*ownProfile, bool, time.Time) {
	t := time.Now()
	p := takeCPU(c.hz)
	at := time.Now()
	if at.Sub(t) <= cpuTakeWaited || since.IsZero() {
		return p, false, at
	}
	c.rec.waitedOnStop(at.Sub(since), at.Sub(t), p != nil)
	if p == nil {
		return nil, false, at
	}
	pprof.StopCPUProfile()
	return nil, true, at
}

// watchCPU is the watcher's goroutine: it starts the CPU profiler again
// whenever the CPU profile has stopped. It runs on a goroutine of
// own.Go, which the sampler hides by its id.
func watchCPU(c *cpuProfiler) {
	defer close(c.done)
	look := time.NewTimer(nextLook(c.ownRunning() && !c.awaiting))
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
		if p := c.own.Load(); p != nil && p.ended.Load() {
			// The application stopped the backend's profile and
			// started its own before the watcher saw the timer off.
			c.own.Store(nil)
			c.rec.share(c.mode, hz, c.hz)
		}
		c.awaited(hz)
		c.lastOn, *offSince = now, time.Time{}
		if c.ownRunning() && now.Sub(c.ownSince) >= cpuRenewEvery {
			c.renew()
		}
		return c.ownRunning()
	case c.awaiting && now.Before(c.rec.awaitUntil):
		return false // left free for the application's profile
	case hz == 0:
		if offSince.IsZero() {
			*offSince = now
		}
		if now.Sub(*offSince) < c.rec.freeFor() {
			return false
		}
	}
	p, gaveBack, at := c.take(*offSince)
	if gaveBack {
		return false // the timer is off again, and still off since offSince
	}
	if p == nil {
		// A CPU profile runs (the backend's, or the application's).
		c.awaited(hz)
		c.lastOn, *offSince = at, time.Time{}
		return false
	}
	c.own.Store(p)
	c.ownSince = at
	if c.awaiting {
		c.awaiting = false
		c.rec.notAwaited(at)
	} else {
		c.rec.restarted(at, at.Sub(c.lastOn))
	}
	c.lastOn, *offSince = at, time.Time{}
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
