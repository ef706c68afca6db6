package sampler

import (
	"fmt"
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"time"

	"github.com/gotachyon/profiler/internal/goid"
	"github.com/gotachyon/profiler/internal/own"
)

// Auto backend: a supervisor goroutine runs the trace backend and moves to
// the snapshot backend while the trace would cost more than the dumps (a
// program switching goroutines hundreds of thousands of times a second, with
// few goroutines), and back when that stops being true, or as soon as the
// snapshots refuse a dump (MaxSnapshotPause): the trace samples any count.
//
// The trace costs about the same per goroutine switch (the runtime writes a
// few events with stacks, the sampler reads them), so its cost is the
// scheduler's switch rate (runtime metric /sched/latencies:seconds records
// one switch in gTrackingPeriod) times nsPerSwitch, taken at the lower of
// the last two intervals' rates so that a burst does not count as a cost
// that lasts. (The trace's byte count
// is no better a measure: each generation also carries a status event and
// stack for every goroutine, whether it switched or not.) The snapshot's
// cost is measured: two trial dumps before switching, then the time its loop
// spends dumping and parsing.

const (
	// nsPerSwitch is a tunable: the CPU time, in nanoseconds, that the
	// trace is taken to cost per goroutine switch, the runtime writing
	// the events and gotrace reading them. The trace's estimated cost is
	// the switch rate times nsPerSwitch, over the machine's CPUs: too high
	// a value makes Auto leave the trace for snapshots early, too low a
	// value late. Its evidence, and the benchmark that measures it, are in
	// bench/MEASUREMENTS.md.
	nsPerSwitch = 370
	// maxTrialGoroutines bounds the trial dumps: with more goroutines a
	// dump stops the world too long for snapshots to be cheaper.
	maxTrialGoroutines = 1000
	// switchAbove is the trace cost, as a share of the machine, below which
	// the trace is always kept.
	switchAbove = 0.01
	// firstCheck is when the supervisor first looks at the costs, and
	// checkEvery how often after that. A rate must last two intervals to
	// leave the trace, so the first check can only keep it.
	firstCheck = 20 * time.Millisecond
	checkEvery = 100 * time.Millisecond
	// quietCheckEvery is the longest interval between checks: while the
	// trace costs less than half of switchAbove, the interval doubles up
	// to it. Each check is a wake-up, which an idle profiler pays for at
	// every check (bench/MEASUREMENTS.md).
	quietCheckEvery = 800 * time.Millisecond
	// schedTrackingPeriod is the runtime's gTrackingPeriod: one goroutine
	// switch in 8 is recorded in /sched/latencies:seconds.
	schedTrackingPeriod = 8
	// trialBuf bounds the trial dump: a program whose dump does not fit has
	// too many goroutines for the snapshot backend to be cheaper.
	trialBuf = 256 << 10
	// firstTrialGap is the least time between two trials that kept the
	// trace; it doubles after each, up to maxTrialGap, while the trace's
	// cost stays under twice the cost the last trial was weighed against.
	// A trial stops the world twice: under a steady churn of goroutines,
	// whose switches make the trace look dear but whose dumps are dearer
	// still, trials at every check (10 a second) stopped the world 20
	// times a second for nothing.
	firstTrialGap = time.Second
	maxTrialGap   = time.Minute
)

// firstDwell is the least time spent in a backend before leaving it for
// the other's lower cost; it doubles with every switch, so the backends
// cannot flap. A variable for the tests.
var firstDwell = 20 * time.Millisecond

// Switch records one change of backend by the Auto supervisor.
type Switch struct {
	// At is the time since Start.
	At time.Duration
	// To is the backend that took over.
	To Backend
	// Why gives the estimated costs, as shares of the machine's CPU.
	Why string
}

// runner is a running backend.
type runner interface{ stop() }

// adaptive is the Auto supervisor. Its goroutine owns every field but those
// noted.
type adaptive struct {
	em    *emitter
	start time.Time
	quit  chan struct{}
	done  chan struct{}
	force chan Backend // a switch the tests ask for

	cur   runner
	kind  atomic.Uint32 // Backend running now; read by Sampler.Backend
	since time.Time     // when cur started
	dwell time.Duration
	procs float64

	// at the last check
	lastSched   uint64
	lastAt      time.Time
	lastBusy    int64
	lastRefused int64
	// lastRate is the switch rate over the interval before, zero in the
	// first interval of a backend
	lastRate float64

	metric []metrics.Sample
	trial  []byte

	// the last trial that kept the trace: when, against what cost, and
	// how long until the next may run
	trialAt   time.Time
	trialFor  float64
	trialWait time.Duration
	trials    atomic.Int32 // trials run, for tests
	resyncs   atomic.Int32 // resyncs made, for tests

	switches []Switch // written before done is closed; read by Stop after
}

// startAdaptive starts the supervisor, which starts the trace backend; it
// returns the trace backend's error (nothing is left running then).
func startAdaptive(em *emitter) (*adaptive, error) {
	a := &adaptive{
		em: em, start: time.Now(), quit: make(chan struct{}), done: make(chan struct{}),
		force:  make(chan Backend),
		dwell:  firstDwell,
		procs:  float64(runtime.GOMAXPROCS(0)),
		metric: []metrics.Sample{{Name: "/sched/latencies:seconds"}},
	}
	started := make(chan error)
	own.Go(func() { a.loop(started) })
	if err := <-started; err != nil {
		return nil, err
	}
	return a, nil
}

// backend returns the backend running now.
func (a *adaptive) backend() Backend { return Backend(a.kind.Load()) }

// stop stops the supervisor and the backend it runs.
func (a *adaptive) stop() {
	close(a.quit)
	<-a.done
}

func (a *adaptive) loop(started chan<- error) {
	defer close(a.done)
	a.em.helper.Store(goid.Current())
	tb, err := startTrace(a.em, traceOpts{resync: true})
	if err == nil {
		// Before Start returns: Sampler.Backend must never read Auto.
		a.run(tb, Trace)
	}
	started <- err
	if err != nil {
		return
	}
	defer func() {
		if r := recover(); r != nil {
			a.em.setErr(fmt.Errorf("sampler: auto backend panic: %v", r))
		}
		if a.cur != nil {
			a.cur.stop()
		}
	}()
	timer := time.NewTimer(firstCheck)
	defer timer.Stop()
	every := checkEvery
	for {
		select {
		case <-a.quit:
			return
		case kind := <-a.force:
			// As after any switch, the next check judges a whole
			// interval of the new backend.
			a.switchTo(kind, "asked for")
			every = checkEvery
			timer.Reset(every)
		case now := <-timer.C:
			if a.check(now) {
				every = min(2*every, quietCheckEvery)
			} else {
				every = checkEvery
			}
			timer.Reset(every)
		}
	}
}

// run makes r the running backend.
func (a *adaptive) run(r runner, kind Backend) {
	a.cur = r
	a.kind.Store(uint32(kind))
	a.since = time.Now()
	a.lastAt, a.lastSched, a.lastBusy, a.lastRefused = a.since, a.schedCount(), 0, a.em.refusals.Load()
	a.lastRate = 0
}

// check compares the costs over the last interval and switches if needed.
// It reports whether the trace is running and costs less than half of
// switchAbove: the next check can wait longer.
func (a *adaptive) check(now time.Time) (quiet bool) {
	if a.em.failed() {
		return true // the sink failed: the backend has stopped, and stays so
	}
	if tb, ok := a.cur.(*traceBackend); ok && tb.slot != nil && tb.slot.lostSeen(now) {
		// The application's trace.Stop ended the trace: the profile
		// goes on in snapshots (stopTracer logs it), and, whenever a
		// switch back finds the slot free, in the trace again.
		a.switchTo(Snapshot, "the application's trace.Stop ended the trace in trace.Start's slot")
		return false
	}
	if tb, ok := a.cur.(*traceBackend); ok && (tb.behind.Load() || tb.frDear()) {
		why := tb.behindReason()
		if !tb.behind.Load() {
			why = fmt.Sprintf("%d goroutines: the flight recorder's snapshots cost more than trace.Start", runtime.NumGoroutine())
		}
		a.resync(why)
		return false
	}
	sched := a.schedCount()
	dt := now.Sub(a.lastAt).Seconds()
	if dt <= 0 {
		return false
	}
	rate := float64(sched-a.lastSched) * schedTrackingPeriod / dt
	a.lastAt, a.lastSched = now, sched
	// The trace is left only for a rate that lasted two intervals: a burst
	// within one (the collector's sweeper yields thousands of times in a
	// few milliseconds) costs the trace little and passes.
	lasting := min(rate, a.lastRate)
	a.lastRate = rate
	dwelt := now.Sub(a.since) >= a.dwell
	switch r := a.cur.(type) {
	case *traceBackend:
		cost := a.traceCost(lasting)
		if cost <= switchAbove || !dwelt || runtime.NumGoroutine() > maxTrialGoroutines || a.trialFresh(now, cost) {
			return a.traceCost(rate) < switchAbove/2
		}
		snap, hz := a.trialCost()
		if hz < float64(a.em.cfg.Rate)/4 || 2*snap > cost {
			a.trialKept(now, cost)
			return false
		}
		a.switchTo(Snapshot, fmt.Sprintf("trace %.1f%% (%.0f switches/s), snapshot %.2f%% at %.0f Hz", 100*cost, lasting, 100*snap, hz))
	case *snapshot:
		busy := r.busy.Load()
		snap := float64(busy-a.lastBusy) / 1e9 / dt
		a.lastBusy = busy
		refused := a.em.refusals.Load()
		fresh := refused - a.lastRefused
		a.lastRefused = refused
		est := a.traceCost(rate)
		gap := time.Duration(r.gap.Load())
		switch {
		case !dwelt:
		case fresh > 0:
			// Dumps not taken are samples lost, which no cost saved is
			// worth: the trace samples every goroutine at any count.
			a.switchTo(Trace, fmt.Sprintf("snapshot refused %d dumps of %d goroutines (MaxSnapshotPause)", fresh, runtime.NumGoroutine()))
		case gap > 4*time.Second/time.Duration(a.em.cfg.Rate):
			// The governor stretched the dumps below a quarter of the
			// rate, where no trial would have left the trace: each
			// dump then stands for many ticks, seen at one instant.
			a.switchTo(Trace, fmt.Sprintf("snapshot governed to %.1f Hz, under a quarter of the rate", 1/gap.Seconds()))
		case est <= switchAbove || 2*est < snap:
			a.switchTo(Trace, fmt.Sprintf("trace est. %.1f%% (%.0f switches/s), snapshot %.2f%%", 100*est, rate, 100*snap))
		}
	}
	return false
}

// traceCost is the trace's estimated cost at rate switches a second, as a
// share of the machine.
func (a *adaptive) traceCost(rate float64) float64 { return rate * nsPerSwitch / 1e9 / a.procs }

// trialFresh reports whether the last trial that kept the trace still
// holds at now for a trace costing cost: it is recent, and the cost has
// not doubled since.
func (a *adaptive) trialFresh(now time.Time, cost float64) bool {
	return !a.trialAt.IsZero() && now.Sub(a.trialAt) < a.trialWait && cost < 2*a.trialFor
}

// trialKept records a trial at now that kept the trace, costing cost, and
// doubles the wait before the next.
func (a *adaptive) trialKept(now time.Time, cost float64) {
	a.trialAt, a.trialFor = now, cost
	a.trialWait = min(max(2*a.trialWait, firstTrialGap), maxTrialGap)
}

// schedCount returns the runtime's count of tracked goroutine switches.
func (a *adaptive) schedCount() uint64 {
	metrics.Read(a.metric)
	if a.metric[0].Value.Kind() != metrics.KindFloat64Histogram {
		return 0
	}
	var n uint64
	for _, c := range a.metric[0].Value.Float64Histogram().Counts {
		n += c
	}
	return n
}

// trialCost takes two runtime.Stack(all) dumps and returns the rate the
// snapshot backend would keep (its governor stops the world for at most
// stwBudget of the time) and what it would cost there, as a share of the
// machine: the world is stopped during the dump, and parsing takes about
// half as long again.
func (a *adaptive) trialCost() (cost, hz float64) {
	a.trials.Add(1)
	if a.trial == nil {
		a.trial = make([]byte, trialBuf)
	}
	d := time.Duration(1<<63 - 1)
	for range 2 {
		t := time.Now()
		n := runtime.Stack(a.trial, true)
		d = min(d, time.Since(t))
		if n == len(a.trial) {
			return 1, 0
		}
	}
	sec := max(d.Seconds(), 1e-9)
	hz = min(float64(a.em.cfg.Rate), stwBudget/sec)
	return 1.5 * sec * hz, hz
}

// switchTo stops the running backend, after it has emitted everything, and
// starts the other one on the same state.
func (a *adaptive) switchTo(kind Backend, why string) {
	at := time.Since(a.start)
	a.em.handing.Store(true)
	a.cur.stop()
	a.em.handing.Store(false)
	a.cur = nil
	if kind != Trace {
		a.em.handover = nil // stacks of goroutines that will move meanwhile
		a.em.sites = nil    // the snapshots read them off their dumps
		a.em.labels = nil   // the snapshots carry none
	}
	if kind == Trace {
		kind, why = a.startTrace(traceOpts{resync: true}, why)
	} else {
		a.run(startSnapshot(a.em), Snapshot)
	}
	a.dwell *= 2
	a.switches = append(a.switches, Switch{At: at, To: kind, Why: why})
}

// startTrace runs the trace backend, or the snapshot backend if the trace
// is unavailable (the application took both slots); it returns the backend
// that runs and why.
func (a *adaptive) startTrace(o traceOpts, why string) (Backend, string) {
	tb, err := startTrace(a.em, o)
	if err != nil {
		a.run(startSnapshot(a.em), Snapshot)
		return Snapshot, why + "; trace unavailable: " + err.Error()
	}
	a.run(tb, Trace)
	return Trace, why
}

// resync replaces a trace backend whose parser fell behind the trace
// (the flight recorder's window or the pipe's bound: the backend has
// ended, and the profile misses what was dropped), or that reads a flight
// recorder whose snapshots became dear, with one that takes trace.Start's
// slot first, where the pipe keeps every generation until it is read, up
// to its bound.
func (a *adaptive) resync(why string) {
	at := time.Since(a.start)
	a.em.handing.Store(true)
	a.cur.stop()
	a.em.handing.Store(false)
	a.cur = nil
	kind, why := a.startTrace(traceOpts{startFirst: true, resync: true}, why+"; trace.Start from here")
	a.switches = append(a.switches, Switch{At: at, To: kind, Why: why})
	a.resyncs.Add(1)
}
