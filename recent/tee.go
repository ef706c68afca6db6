package recent

import (
	"github.com/gotachyon/profiler/sampler"
	"github.com/gotachyon/profiler/tachyon"
)

// Tee returns the sampler.Sink that writes every sample to primary and to
// w, and passes watermarks to both (to primary if it takes them). An
// error of primary's is the sample's error, which stops the sampling; an
// error of the window's stops the window only (Stats.Err, WriteFile's
// error), and the sampling goes on into primary.
//
// Frames are interned in both; the window's indices are primary's
// mapped, which costs nothing while the two number frames alike (both
// number distinct frames in the order first seen, as writer.Writer and
// segment.Writer do), and a copy of each stack written otherwise.
func Tee(primary sampler.Sink, w *Window) sampler.Sink {
	t := &tee{a: primary, w: w, same: true}
	t.wm, _ = primary.(sampler.Watermarker)
	return t
}

// tee is the Sink of Tee.
type tee struct {
	a     sampler.Sink
	wm    sampler.Watermarker // a's, if it takes watermarks
	w     *Window
	remap []uint32 // a's frame index -> w's
	same  bool     // remap is the identity
	stack []uint32
	free  []*teeGoroutine
}

// Frame interns f in both, and returns primary's index.
func (t *tee) Frame(f tachyon.Frame) uint32 {
	i, j := t.a.Frame(f), t.w.Frame(f)
	if int(i) >= len(t.remap) {
		t.remap = growZeroed(t.remap, int(i)+1)
	}
	t.remap[i] = j
	t.same = t.same && i == j
	return i
}

// Goroutine returns the handle of goroutine id in both.
func (t *tee) Goroutine(id uint64) sampler.Goroutine {
	var g *teeGoroutine
	if n := len(t.free); n > 0 {
		g = t.free[n-1]
		t.free[n-1] = nil
		t.free = t.free[:n-1]
	} else {
		g = new(teeGoroutine)
	}
	*g = teeGoroutine{t: t, a: t.a.Goroutine(id), b: t.w.NewThread(id)}
	return g
}

// Watermark passes ts to both.
func (t *tee) Watermark(ts uint64) {
	if t.wm != nil {
		t.wm.Watermark(ts)
	}
	t.w.Watermark(ts)
}

// window maps a stack of primary's frame indices onto the window's.
func (t *tee) window(stack []uint32) []uint32 {
	if t.same {
		return stack
	}
	t.stack = t.stack[:0]
	for _, i := range stack {
		j := uint32(len(t.remap)) // out of range for the window: its error
		if int(i) < len(t.remap) {
			j = t.remap[i]
		}
		t.stack = append(t.stack, j)
	}
	return t.stack
}

// teeGoroutine is a goroutine's handle in both sinks.
type teeGoroutine struct {
	t *tee
	a sampler.Goroutine
	b *Thread
}

// Write writes the sample to both.
func (g *teeGoroutine) Write(ts uint64, status tachyon.Status, stack []uint32) error {
	if err := g.a.Write(ts, status, stack); err != nil {
		return err
	}
	g.b.Write(ts, status, g.t.window(stack)) // an error stops the window alone
	return nil
}

// RepeatEvery writes the samples to both.
func (g *teeGoroutine) RepeatEvery(ts, step uint64, n int, status tachyon.Status) error {
	if err := g.a.RepeatEvery(ts, step, n, status); err != nil {
		return err
	}
	g.b.RepeatEvery(ts, step, n, status)
	return nil
}

// Flush flushes both.
func (g *teeGoroutine) Flush() {
	g.a.Flush()
	g.b.Flush()
}

// maxFreeHandles bounds the handles a tee keeps for reuse.
const maxFreeHandles = 1024

// Forget forgets the goroutine in both, and keeps the handle for reuse.
func (g *teeGoroutine) Forget() {
	g.a.Forget()
	g.b.Forget()
	t := g.t
	*g = teeGoroutine{}
	if len(t.free) < maxFreeHandles {
		t.free = append(t.free, g)
	}
}
