package sampler

import (
	"fmt"
	"strings"
	"sync"
	"time"
)

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
	stopTakes  int           // takes that waited on an application's pprof.StopCPUProfile and got the CPU profiler, given back at once
	learnt     time.Duration // the watchers' wait after a stop learnt from such takes (0: cpuFreeFor)
	renewals   int           // the backends' own profiles stopped and started again (cpuRenewEvery)
	renewGap   time.Duration // the time the renewals took, without CPU samples
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

// freeFor is how long the profiling timer must have been off before a
// watcher takes the CPU profiler.
func (r *cpuRecord) freeFor() time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return max(r.learnt, cpuFreeFor)
}

// waitedOnStop records a take that waited for waited on an application's
// pprof.StopCPUProfile, the timer having been off for off when it
// returned, and got the CPU profiler if took (the caller gives it back at
// once). The watchers wait twice off after a stop from then on, up to
// cpuFreeForMax. It says so in the log.
func (r *cpuRecord) waitedOnStop(off, waited time.Duration, took bool) {
	r.mu.Lock()
	if took {
		r.stopTakes++
	}
	r.learnt = min(max(r.learnt, cpuFreeFor, 2*off), cpuFreeForMax)
	freeFor, log := r.learnt, r.log
	r.mu.Unlock()
	if log == nil {
		return
	}
	msg := fmt.Sprintf("the sampler's pprof.StartCPUProfile waited %v (on the application's pprof.StopCPUProfile, or on a loaded machine)", waited.Round(time.Millisecond))
	if took {
		msg += " and got the CPU profiler; the sampler gave it back at once, for the application's next pprof.StartCPUProfile (one made in that moment would have failed)"
	} else {
		msg += "; the application's next profile got the CPU profiler"
	}
	log(fmt.Sprintf("%s; the sampler now waits %v after a stop before it takes the CPU profiler", msg, freeFor.Round(time.Millisecond)))
}

// renewed records that a backend stopped its own CPU profile and started
// the next, which took d.
func (r *cpuRecord) renewed(d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.renewals++
	r.renewGap += d
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
	if r.stopTakes > 0 {
		parts = append(parts, fmt.Sprintf("%d of the sampler's takes of the CPU profiler waited on the application's pprof.StopCPUProfile and got it, and the sampler gave it back at once (a pprof.StartCPUProfile of the application's in that moment would have failed)", r.stopTakes))
	}
	if r.renewals > 0 {
		parts = append(parts, fmt.Sprintf("the sampler renewed its own CPU profile %d times, so that pprof let go of the stacks and labels it keeps until a profile stops, without CPU samples for at most %v in all", r.renewals, r.renewGap.Round(time.Microsecond)))
	}
	if r.endGap > 0 {
		parts = append(parts, fmt.Sprintf("the application stopped the CPU profile and no CPU samples came for the last %v (at most) before the trace backend stopped", r.endGap.Round(time.Millisecond)))
	}
	if note := rateNote(mode, r.appHz, hz); r.shared && note != "" {
		parts = append(parts, "while shared, "+note)
	}
	return strings.Join(parts, "; "), r.awaitGap + r.restartGap + r.endGap + r.renewGap
}
