package sampler

import (
	"github.com/gotachyon/profiler/internal/gotrace"
)

// Wall mode samples every goroutine at ticks of a fixed grid; the trace's
// clock is mapped onto the wall clock for them and for the records' times.

// micros maps a trace time onto wall-clock microseconds since the epoch.
func (tb *traceBackend) micros(t gotrace.Time) uint64 {
	ns := tb.wallNS(t)
	if ns < 0 {
		return 0
	}
	return uint64(ns / 1000)
}

// wallNS maps a trace time onto wall-clock nanoseconds since the epoch.
func (tb *traceBackend) wallNS(t gotrace.Time) int64 {
	if !tb.clockSet {
		tb.baseTrace, tb.baseWall, tb.clockSet = t, tb.startWall.UnixNano(), true
	}
	return tb.baseWall + int64(t-tb.baseTrace)
}

// advance passes the wall-mode ticks up to and including trace time t, and
// none past the Stop request: the runtime goes on tracing while it stops
// (with a million goroutines, for seconds), and no tick after the request
// is sampled. A tick writes nothing by itself: each goroutine's ticks are
// written when its stack over them is known, so a tick costs the same with
// 10 or 10,000 goroutines and a parked goroutine costs a few bytes of
// copying per tick.
func (tb *traceBackend) advance(t gotrace.Time) {
	if tb.em.cfg.Mode != Wall {
		return
	}
	if !tb.ticks.started {
		tb.ticks.start(t, tb.micros(t))
		tb.em.grids++
	}
	if !tb.ticks.due(t) {
		return
	}
	if w := tb.em.stopWall.Load(); w != 0 {
		t = max(min(t, tb.traceTime(w)), tb.ticks.first)
	}
	tb.em.ticks += tb.ticks.advance(t)
}

// traceTime maps wall-clock nanoseconds since the epoch onto trace time.
func (tb *traceBackend) traceTime(wallNS int64) gotrace.Time {
	return tb.baseTrace + gotrace.Time(wallNS-tb.baseWall)
}

// tickGrid is the wall-mode ticks: tick k is at trace time first + k*step
// and wall time firstUS + k*stepUS. The step is a whole number of
// microseconds, so that a run of ticks is one RepeatEvery.
type tickGrid struct {
	started bool
	first   gotrace.Time
	firstUS uint64
	stepUS  uint64
	n       uint64       // ticks passed: those at or before the latest event
	next    gotrace.Time // time of tick n (the first not passed), once n > 0
}

func (g *tickGrid) start(t gotrace.Time, us uint64) {
	g.started, g.first, g.firstUS = true, t, us
}

func (g *tickGrid) step() gotrace.Time { return gotrace.Time(g.stepUS * 1000) }

// due reports whether t is at or past the first tick not passed yet: most
// events fall between two ticks, and one comparison says so.
func (g *tickGrid) due(t gotrace.Time) bool { return g.n == 0 || t >= g.next }

// advance passes the ticks at or before t and returns how many it passed.
func (g *tickGrid) advance(t gotrace.Time) uint64 {
	if !g.due(t) {
		return 0
	}
	n := g.upTo(t)
	if n <= g.n {
		return 0
	}
	d := n - g.n
	g.n = n
	g.next = g.first + gotrace.Time(n)*g.step()
	return d
}

// upTo returns the number of ticks at or before t.
func (g *tickGrid) upTo(t gotrace.Time) uint64 {
	if !g.started || t < g.first {
		return 0
	}
	return uint64((t-g.first)/g.step()) + 1
}

// span returns the ticks [from, to) as a span of samples.
func (g *tickGrid) span(from, to uint64) span {
	return span{ts: g.firstUS + from*g.stepUS, step: g.stepUS, n: int(to - from)}
}
