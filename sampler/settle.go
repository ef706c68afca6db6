package sampler

import (
	"runtime"

	"github.com/gotachyon/profiler/internal/gotrace"
)

// Settling: how the goroutines' ticks reach the sink while the trace goes
// on (settleShare, settleBucket), and the oldest tick a sink may still be
// given (watermark).

// settleShare writes the ticks passed of a quarter of the goroutines, a
// different quarter each generation, as far as their stack is known, and
// ends each one's run in the sink. A goroutine's ticks thus reach the file
// at least every settleEvery generations (about a second each), in runs
// four times longer than with a settle per generation (a parked
// goroutine's run is a count in the sink, and longer runs compress faster),
// and Stop has at most settleEvery generations of ticks left to write.
func (tb *traceBackend) settleShare() {
	tb.gen++
	tb.settleBucket(int((settleEvery-tb.gen%settleEvery)%settleEvery), false)
}

// settleBucket writes the ticks passed of the goroutines of bucket b and
// ends each one's run in the sink, and reports whether it went through:
// with early set it stops once the trace is whole in the parser's hands
// (handedOver), leaving the bucket's floor as it was, for the last
// generation's parse (bounded by MaxStopParse) to begin, and it yields
// its P between chunks of goroutines: it runs while the runtime stops its
// tracer, and in a busy program the program's goroutines, and the
// runtime's stop itself, go first.
func (tb *traceBackend) settleBucket(b int, early bool) bool {
	floor := tb.ticks.n
	for i := uint32(b); i < tb.recs.made(); i += settleEvery {
		if early && i%(earlyCheckEvery*settleEvery) == uint32(b) {
			if tb.handedOver.Load() != 0 {
				return false
			}
			runtime.Gosched()
		}
		g := tb.recs.rec(i)
		if g.slot == 0 {
			continue // ended
		}
		tb.settle(g)
		floor = min(floor, g.due)
		if pend := tb.pend(g); len(pend) > 0 {
			floor = min(floor, pend[0].from)
		}
	}
	tb.floor[b] = floor
	return true
}

// bucketOf returns g's bucket: the generations gen at which settleShare
// writes g are those at which (slot-1+gen)%settleEvery is 0, and a
// bucket's goroutines are every settleEvery-th record of recs. Numbers
// are given from one up, an ended goroutine's to the next new one, so the
// buckets are about even, as they were by id.
func bucketOf(g *tgor) int { return int((g.slot - 1) % settleEvery) }

// lives yields every live goroutine, in the order of their numbers.
func (tb *traceBackend) lives(yield func(*tgor) bool) { tb.recs.all(yield) }

// watermark tells a sink that takes watermarks the oldest tick that may
// still be written: in wall mode the oldest of the buckets' floors (a
// goroutine's first unwritten tick moves only forward between two
// settleShares of its bucket, and ticks are queued from there: the
// oldest is most often a parked goroutine's, written at its bucket's last
// settleShare, so that the floors cost nothing a goroutine), in CPU mode
// the generation's start (its samples are written as they come).
// Goroutines the runtime has not reported yet are only known after the
// first generation, so before the third it says 0 (nothing yet), which
// still marks the generation's end for a sink that acts on it.
func (tb *traceBackend) watermark(t gotrace.Time) {
	if tb.em.wm == nil {
		return
	}
	switch {
	case tb.gen < 3:
		tb.em.watermark(0)
		return
	case tb.em.cfg.Mode != Wall:
		tb.em.watermark(tb.micros(t))
		return
	case !tb.ticks.started:
		tb.em.watermark(0)
		return
	}
	oldest := tb.ticks.n
	for _, f := range tb.floor {
		oldest = min(oldest, f)
	}
	tb.em.watermark(tb.ticks.span(oldest, oldest).ts)
}

// settleEvery is how many generations apart settleShare writes a goroutine.
const settleEvery = 4
