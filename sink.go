package profiler

import (
	"github.com/gotachyon/profiler/sampler"
	"github.com/gotachyon/profiler/segment"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// The sampler writes into a Tachyon writer: a goroutine is a thread of
// interpreter 0, whose handle is the goroutine's stream.

// A thread handle of a Writer or of a segment Writer is a goroutine's
// stream as it is.
var (
	_ sampler.Goroutine = (*writer.Thread)(nil)
	_ sampler.Goroutine = (*segment.Thread)(nil)
)

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

// writerSink returns the sampler.Sink of w. The sampler asks once for each
// goroutine's handle and keeps it, so w need not keep it by id.
func writerSink(w *writer.Writer) sampler.Sink { return sinkOf(w.Frame, w.NewThread, nil) }

// segmentSink returns the sampler.Sink of s, which takes watermarks. As
// with writerSink, s need not keep the handles by id.
func segmentSink(s *segment.Writer) sampler.Sink { return sinkOf(s.Frame, s.NewThread, s.Watermark) }
