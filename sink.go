package profiler

import (
	"github.com/gotachyon/profiler/sampler"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// The sampler writes into a Tachyon writer: a goroutine is a thread of
// interpreter 0, whose handle is the goroutine's stream.

// A Writer's thread handle is a goroutine's stream as it is.
var _ sampler.Goroutine = (*writer.Thread)(nil)

// sink is the sampler.Sink of a writer that interns frames with frame and
// gives out a thread's handle with thread.
type sink[T sampler.Goroutine] struct {
	frame  func(tachyon.Frame) uint32
	thread func(id uint64, interp uint32) T
}

// sinkOf returns the sampler.Sink of frame and thread; watermark, if not
// nil, makes it a sampler.Watermarker.
func sinkOf[T sampler.Goroutine](frame func(tachyon.Frame) uint32, thread func(id uint64, interp uint32) T, watermark func(ts uint64)) sampler.Sink {
	s := sink[T]{frame, thread}
	if watermark == nil {
		return s
	}
	return watermarked{s, watermark}
}

// Frame interns f.
func (s sink[T]) Frame(f tachyon.Frame) uint32 { return s.frame(f) }

// Goroutine returns the handle of goroutine id's thread.
func (s sink[T]) Goroutine(id uint64) sampler.Goroutine { return s.thread(id, 0) }

// watermarked is a sink that takes watermarks.
type watermarked struct {
	sampler.Sink
	watermark func(ts uint64)
}

// Watermark passes ts on.
func (w watermarked) Watermark(ts uint64) { w.watermark(ts) }

// writerSink returns the sampler.Sink of w.
func writerSink(w *writer.Writer) sampler.Sink { return sinkOf(w.Frame, w.Thread, nil) }

// segmenterSink returns the sampler.Sink of s, which takes watermarks.
func segmenterSink(s *writer.Segmenter) sampler.Sink {
	return sinkOf(s.Frame, func(id uint64, interp uint32) segThread { return segThread{s, s.Thread(id, interp)} }, s.Watermark)
}

// segThread is a thread of a Segmenter, whose methods take its handle.
type segThread struct {
	s *writer.Segmenter
	t *writer.Thread
}

// Write writes a sample of the thread.
func (g segThread) Write(ts uint64, status tachyon.Status, stack []uint32) error {
	return g.s.WriteThreadStack(g.t, ts, status, stack)
}

// RepeatEvery repeats the thread's latest sample n times.
func (g segThread) RepeatEvery(ts, step uint64, n int, status tachyon.Status) error {
	return g.s.RepeatEvery(g.t, ts, step, n, status)
}

// Flush writes the thread's pending run.
func (g segThread) Flush() { g.s.FlushThread(g.t) }

// Forget releases the thread.
func (g segThread) Forget() { g.s.Forget(g.t) }
