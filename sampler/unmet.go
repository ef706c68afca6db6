package sampler

import (
	"runtime"
	"time"

	"github.com/gotachyon/profiler/internal/gotrace"
)

// Goroutines a cut parse never met.
//
// A goroutine parked since before the trace has no event until the
// runtime reports it, at the end of a generation: in a profile shorter
// than one, after the Stop request. When MaxStopParse cuts the parse
// first, none of its samples is written (Stats.Unmet). They are counted
// against one instant just after the tracer started, start: the
// goroutines live then (runtime.NumGoroutine), less those of them the
// parse met. A goroutine met was live at start if it was there before
// the trace or created before start, and did not end before start; one
// met only at its end, if that end is after start.

// markStart records, just after the tracer started, the instant start and
// how many goroutines were live then.
func (tb *traceBackend) markStart() {
	tb.liveWall.Store(time.Now().UnixNano())
	tb.liveGs.Store(int64(runtime.NumGoroutine()))
}

// beforeStart reports whether trace time t is before start (false if
// start is not known yet).
func (tb *traceBackend) beforeStart(t gotrace.Time) bool {
	w := tb.liveWall.Load()
	return w != 0 && tb.clockSet && t < tb.traceTime(w)
}

// metAtStart counts g, just met, as live at start.
func (tb *traceBackend) metAtStart(g *tgor) {
	if !g.has(fAtStart) {
		g.set(fAtStart)
		tb.atStart++
	}
}

// endedAt takes g, counted live at start, out of the count if it ended
// at t, before start.
func (tb *traceBackend) endedAt(g *tgor, t gotrace.Time) {
	if g.has(fAtStart) && tb.beforeStart(t) {
		tb.atStart--
	}
}

// unmet returns how many goroutines live at start the parse has not met.
func (tb *traceBackend) unmet() int {
	n := tb.liveGs.Load()
	if n == 0 {
		return 0
	}
	met := tb.atStart
	for g := range tb.lives {
		if g.role == roleRuntime && g.has(fAtStart) {
			met-- // runtime.NumGoroutine leaves the runtime's own out
		}
	}
	return max(int(n)-met, 0)
}
