package sampler

import (
	"github.com/gotachyon/profiler/internal/own"
	"github.com/gotachyon/profiler/tachyon"
)

// ownSink is the sink as the emitter sees it: it leaves out the samples of
// the goroutines package own says are the profiler's at the moment they
// are written. The backends leave such goroutines out when they meet them
// (the trace backend at a goroutine's first event, the snapshot backend at
// each dump); this catches the others, whose samples are written later
// than their events, the trace being read late: a goroutine the trace
// backend met before it was registered (one own.Go started, in the
// moment before it ran; a connection's goroutine before the httpprof
// handler it runs called own.Enter), and a goroutine while it is the
// profiler's for a while only. The emitter calls it and its handles from
// one goroutine at a time.
type ownSink struct {
	Sink
	em *emitter
	// hidden counts the samples left out, for Stats.Samples; uncounted
	// holds the goroutines the emitter counted in Stats.Goroutines on a
	// sample left out, and has not shown a sample of since.
	hidden    uint64
	uncounted map[uint64]struct{}
	// skipped counts the samples left out since the emitter last reset
	// it: the first ones of its write, which the emitter does not tell
	// the Observer of.
	skipped int
	// free holds handles of goroutines that ended, for reuse: under churn
	// they would otherwise be garbage at every goroutine's end.
	free []*ownGoroutine
}

// ownGoroutine is the handle ownSink gives out: the sink's handle of the
// goroutine, which it writes to unless the goroutine is the profiler's.
type ownGoroutine struct {
	Goroutine
	o  *ownSink
	id uint64
	// lost is the stack left out last, if the samples since have all been
	// left out too: the emitter, which took it as written, repeats it
	// without writing it again once the goroutine is the program's.
	lost []uint32
}

// newOwnSink returns sink wrapped, and the sink the emitter is to take:
// the wrapper, a Watermarker if sink is one.
func newOwnSink(sink Sink) (*ownSink, Sink) {
	o := &ownSink{Sink: sink, uncounted: make(map[uint64]struct{})}
	if wm, ok := sink.(Watermarker); ok {
		return o, ownWatermarker{o, wm}
	}
	return o, o
}

// ownWatermarker is an ownSink of a sink that takes watermarks.
type ownWatermarker struct {
	*ownSink
	wm Watermarker
}

// Watermark passes ts on.
func (w ownWatermarker) Watermark(ts uint64) { w.wm.Watermark(ts) }

// Goroutine returns the handle of goroutine id, wrapping the sink's.
func (o *ownSink) Goroutine(id uint64) Goroutine {
	var g *ownGoroutine
	if n := len(o.free); n > 0 {
		g = o.free[n-1]
		o.free[n-1] = nil
		o.free = o.free[:n-1]
	} else {
		g = new(ownGoroutine)
	}
	*g = ownGoroutine{Goroutine: o.Sink.Goroutine(id), o: o, id: id}
	return g
}

// Write writes the sample unless g was the profiler's at ts.
func (g *ownGoroutine) Write(ts uint64, status tachyon.Status, stack []uint32) error {
	if g.o.hide(g.id, ts, 0, 1) == 1 {
		g.lost = stack
		return nil
	}
	g.lost = nil // a new stack: the one left out is not repeated
	return g.Goroutine.Write(ts, status, stack)
}

// RepeatEvery writes the samples of the times at which g was not the
// profiler's: a goroutine that left is the profiler's until some time, so
// those left out come first. The first written after a stack left out
// carries that stack.
func (g *ownGoroutine) RepeatEvery(ts, step uint64, n int, status tachyon.Status) error {
	if n <= 0 {
		return nil
	}
	k := g.o.hide(g.id, ts, step, n)
	if k == n {
		return nil
	}
	ts, n = ts+uint64(k)*step, n-k
	if stack := g.lost; stack != nil {
		g.lost = nil
		if err := g.Goroutine.Write(ts, status, stack); err != nil || n == 1 {
			return err
		}
		ts, n = ts+step, n-1
	}
	return g.Goroutine.RepeatEvery(ts, step, n, status)
}

// Forget forgets g, and keeps the handle for reuse.
func (g *ownGoroutine) Forget() {
	g.Goroutine.Forget()
	o := g.o
	*g = ownGoroutine{}
	if len(o.free) < maxFree {
		o.free = append(o.free, g)
	}
}

// hide returns how many of the n samples of goroutine id about to be
// written, at ts, ts+step, ..., are to be left out (the first ones: those
// of the times it was the profiler's), and keeps the counts.
func (o *ownSink) hide(id, ts, step uint64, n int) int {
	k := 0
	for k < n && own.HadAt(id, ts+uint64(k)*step) {
		k++
		if k == 1 && own.HadAt(id, ts+uint64(n-1)*step) {
			k = n // the profiler's at both ends: at every time between
		}
	}
	o.skipped += k
	if k == 0 {
		if len(o.uncounted) > 0 {
			delete(o.uncounted, id)
		}
		return 0
	}
	o.hidden += uint64(k)
	if _, counted := o.em.seen[id]; !counted && k == n {
		o.uncounted[id] = struct{}{}
	} else if k < n && len(o.uncounted) > 0 {
		delete(o.uncounted, id)
	}
	return k
}
