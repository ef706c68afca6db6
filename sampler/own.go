package sampler

import (
	"slices"

	"github.com/gotachyon/profiler/internal/own"
)

// The emitter leaves out the samples of the goroutines package own says
// are the profiler's at the moment they are written (emitter.write; the
// Sampler's emitter has hideOwn set). The backends leave such goroutines out when
// they meet them (the trace backend at a goroutine's first event, the
// snapshot backend at each dump); this catches the others, whose samples
// are written later than their events, the trace being read late: a
// goroutine the trace backend met before it was registered (one own.Go
// started, in the moment before it ran; a connection's goroutine before
// the httpprof handler it runs called own.Enter), and a goroutine while it
// is the profiler's for a while only. A stack whose samples were all left
// out is written with the first sample that is not (track.last is the
// latest stack written); a goroutine is counted in Stats.Goroutines by a
// sample written. In wall mode a CPU sample is judged by its own time
// before it is placed (leaveOutOwn): the tick it pays for may come after
// the goroutine left.

// hideOwn returns how many of the n samples of goroutine id about to be
// written, at ts, ts+step, ..., are to be left out: the first ones, those
// of the times it was the profiler's.
func hideOwn(id, ts, step uint64, n int) int {
	k := 0
	for k < n && own.HadAt(id, ts+uint64(k)*step) {
		k++
		if k == 1 && own.HadAt(id, ts+uint64(n-1)*step) {
			k = n // the profiler's at both ends: at every time between
		}
	}
	return k
}

// leaveOutOwn drops from hits, in place, the CPU samples of goroutine id
// taken while it was the profiler's, judged by each sample's time. In
// wall mode a CPU sample pays for the running tick nearest in time, or
// lends its stack to an unpaid one, and that tick may lie after the
// goroutine left (plus own.Margin), where the emitter's check by the
// tick's time would write the profiler's stack as the program's.
func (tb *traceBackend) leaveOutOwn(id uint64, hits []cpuHit) []cpuHit {
	return slices.DeleteFunc(hits, func(h cpuHit) bool { return own.HadAt(id, tb.micros(h.at)) })
}
