package sampler

import (
	"github.com/gotachyon/profiler/internal/chunked"
	"github.com/gotachyon/profiler/tachyon"
)

// A Sink receives the samples. The sampler calls a Sink, and the
// Goroutines it gives out, from one goroutine at a time: the running
// backend's, which may change (Auto switches backends). Stop returns once
// the last call has returned.
//
// The sampler interns frames through Frame and caches the indices by
// where it met each frame (a PC of the trace, a line of a dump), so that
// steady-state sampling seldom calls Frame; it may intern a frame it met
// before (the same line at another PC), and Frame must then return the
// same index. A stack is those indices, innermost first. It asks for a
// goroutine's handle with Goroutine when it first writes a sample of it,
// and keeps the handle until the goroutine ends, across Auto's switches
// of backend. The first error a Goroutine's method returns stops the
// sampling: nothing more is written, and Stop returns that error.
type Sink interface {
	// Frame interns f and returns its index, one for equal frames.
	Frame(f tachyon.Frame) uint32
	// Goroutine returns the handle of goroutine id's samples. Goroutine
	// ids are never reused in a process, and the sampler asks once for
	// each: the handle serves every backend that writes the goroutine's
	// samples, before and after Auto switches.
	Goroutine(id uint64) Goroutine
}

// A Goroutine is one goroutine's stream of samples, a handle a Sink gives
// out. The sampler writes a goroutine's sample with Write when its stack
// changes and the unchanged samples that follow as one RepeatEvery.
// Timestamps are microseconds since the Unix epoch, non-decreasing for a
// goroutine.
type Goroutine interface {
	// Write writes a sample at ts with status and stack (indices from the
	// Sink's Frame, innermost first), which it must not retain.
	Write(ts uint64, status tachyon.Status, stack []uint32) error
	// RepeatEvery writes n samples at ts, ts+step, ..., ts+(n-1)*step,
	// with status and the stack of the goroutine's latest sample.
	RepeatEvery(ts, step uint64, n int, status tachyon.Status) error
	// Flush says that a batch of the goroutine's samples has been written:
	// the trace backend writes each goroutine's samples in batches, one
	// every few generations (a second each), and flushes the goroutine
	// after each, so that a sink holding a run of repeats can write it out
	// and reuse its buffer for the next batch.
	Flush()
	// Forget says that the goroutine ended: the sampler uses the handle
	// no more, and the sink can release its state.
	Forget()
}

// Streams is an optional interface of a Sink whose goroutine handles are
// numbers: the sampler then keeps each goroutine's number in its record of
// the goroutine, which lies off the Go heap, where a Goroutine value cannot
// (the collector must see it), and the sink needs no handle per goroutine
// beside its own record of it. Stream returns the number of goroutine id's
// handle, never 0, where Goroutine would return the handle, and the
// sampler asks for it as it would for the handle; the other methods are
// Goroutine's, for the handle numbered n.
type Streams interface {
	Stream(id uint64) uint32
	WriteStream(n uint32, ts uint64, status tachyon.Status, stack []uint32) error
	RepeatStream(n uint32, ts, step uint64, count int, status tachyon.Status) error
	FlushStream(n uint32)
	ForgetStream(n uint32)
}

// RunFlusher is an optional interface of a Sink that implements Streams:
// RepeatFlushStream is RepeatStream, then FlushStream if it returned no
// error, in one call. The trace backend writes a goroutine's last run of a
// settle that way, most often a parked goroutine's ticks since the last.
type RunFlusher interface {
	RepeatFlushStream(n uint32, ts, step uint64, count int, status tachyon.Status) error
}

// Watermarker is an optional interface of a Sink that wants to know how
// late samples may come, such as a sink that splits the samples into
// files by time: Watermark(ts) says that no sample older than ts will be
// written from now on. The trace backend calls it once a generation (with
// ts 0, which says nothing of the samples, before the third); the snapshot
// backend after each dump. A sink may act on the call itself, as the end
// of a batch of samples.
type Watermarker interface {
	Watermark(ts uint64)
}

// handles numbers the handles of a Sink that does not implement Streams,
// for the emitter: a handle lies in a chunk of them, by number less one,
// and an ended goroutine's number goes to the next new one.
type handles struct {
	sink Sink
	hs   chunked.Array[Goroutine]
	free []uint32
}

// Stream returns the number of a new handle of goroutine id.
func (h *handles) Stream(id uint64) uint32 {
	var i uint32
	if k := len(h.free); k > 0 {
		i = h.free[k-1]
		h.free = h.free[:k-1]
	} else {
		i = h.hs.Grow()
	}
	*h.hs.At(i) = h.sink.Goroutine(id)
	return i + 1
}

// WriteStream is Goroutine.Write for handle n.
func (h *handles) WriteStream(n uint32, ts uint64, status tachyon.Status, stack []uint32) error {
	return (*h.hs.At(n - 1)).Write(ts, status, stack)
}

// RepeatStream is Goroutine.RepeatEvery for handle n.
func (h *handles) RepeatStream(n uint32, ts, step uint64, count int, status tachyon.Status) error {
	return (*h.hs.At(n - 1)).RepeatEvery(ts, step, count, status)
}

// FlushStream is Goroutine.Flush for handle n.
func (h *handles) FlushStream(n uint32) { (*h.hs.At(n - 1)).Flush() }

// ForgetStream is Goroutine.Forget for handle n, whose number goes to the
// next new handle.
func (h *handles) ForgetStream(n uint32) {
	g := h.hs.At(n - 1)
	(*g).Forget()
	*g = nil
	h.free = append(h.free, n-1)
}
