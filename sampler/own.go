package sampler

import (
	"github.com/gotachyon/profiler/internal/own"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
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
// profiler's for a while only. The emitter calls it, and LeafPC, from one
// goroutine at a time.
type ownSink struct {
	Sink
	em *emitter
	// lost holds the stack left out last of each thread whose samples are
	// left out no longer: the emitter repeats it without writing it again.
	lost map[*writer.Thread][]uint32
	// hidden counts the samples left out, for Stats.Samples; uncounted
	// holds the goroutines the emitter counted in Stats.Goroutines on a
	// sample left out, and has not shown a sample of since.
	hidden    uint64
	uncounted map[uint64]struct{}
	// hid says the latest write was left out: the emitter passes the leaf
	// PCs of a write to LeafPC right after it.
	hid bool
}

// newOwnSink returns sink wrapped, and the sink the emitter is to take:
// the wrapper, a watermarker if sink is one.
func newOwnSink(sink Sink) (*ownSink, Sink) {
	o := &ownSink{Sink: sink, lost: make(map[*writer.Thread][]uint32), uncounted: make(map[uint64]struct{})}
	if wm, ok := sink.(watermarker); ok {
		return o, ownWatermarker{o, wm}
	}
	return o, o
}

// ownWatermarker is an ownSink of a sink that takes watermarks.
type ownWatermarker struct {
	*ownSink
	wm watermarker
}

// Watermark passes ts on.
func (w ownWatermarker) Watermark(ts uint64) { w.wm.Watermark(ts) }

// leafPC returns f, called only for the writes not left out.
func (o *ownSink) leafPC(f func(pc uintptr)) func(pc uintptr) {
	if f == nil {
		return nil
	}
	return func(pc uintptr) {
		if !o.hid {
			f(pc)
		}
	}
}

// WriteThreadStack writes the sample unless t's goroutine is the
// profiler's.
func (o *ownSink) WriteThreadStack(t *writer.Thread, ts uint64, status tachyon.Status, stack []uint32) error {
	if o.hide(t, 1) {
		o.lost[t] = stack
		return nil
	}
	if len(o.lost) > 0 {
		delete(o.lost, t) // a new stack: the one left out is not repeated
	}
	return o.Sink.WriteThreadStack(t, ts, status, stack)
}

// RepeatEvery writes the samples unless t's goroutine is the profiler's;
// the first of a thread whose stack was left out carries that stack.
func (o *ownSink) RepeatEvery(t *writer.Thread, ts, step uint64, n int, status tachyon.Status) error {
	if n <= 0 || o.hide(t, n) {
		return nil
	}
	if len(o.lost) > 0 {
		if stack, ok := o.lost[t]; ok {
			delete(o.lost, t)
			if err := o.Sink.WriteThreadStack(t, ts, status, stack); err != nil || n == 1 {
				return err
			}
			ts, n = ts+step, n-1
		}
	}
	return o.Sink.RepeatEvery(t, ts, step, n, status)
}

// Forget forgets t.
func (o *ownSink) Forget(t *writer.Thread) {
	delete(o.lost, t)
	o.Sink.Forget(t)
}

// hide reports whether the n samples of t about to be written are to be
// left out, and keeps the counts.
func (o *ownSink) hide(t *writer.Thread, n int) bool {
	id := t.ID()
	o.hid = own.Has(id)
	if !o.hid {
		if len(o.uncounted) > 0 {
			delete(o.uncounted, id)
		}
		return false
	}
	o.hidden += uint64(n)
	if _, counted := o.em.seen[id]; !counted {
		o.uncounted[id] = struct{}{}
	}
	return true
}
