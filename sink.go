package profiler

import (
	"github.com/gotachyon/profiler/internal/checkpoint"
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

// numbered is a writer whose threads can be numbered: a writer.Writer,
// or the stream of a checkpoint.Writer.
type numbered interface {
	Frame(tachyon.Frame) uint32
	NewThread(id uint64, interp uint32) *writer.Thread
	NewThreadNo(id uint64, interp uint32) writer.ThreadNo
	WriteNo(n writer.ThreadNo, ts uint64, status tachyon.Status, stack []uint32) error
	RepeatEveryNo(n writer.ThreadNo, ts, step uint64, count int, status tachyon.Status) error
	FlushNo(n writer.ThreadNo)
	RepeatFlushNo(n writer.ThreadNo, ts, step uint64, count int, status tachyon.Status) error
	ForgetNo(n writer.ThreadNo)
}

// numberedSink is the sampler.Sink of a numbered writer. It implements
// sampler.Streams: the sampler keeps each goroutine's thread number in its
// record of the goroutine, off the Go heap, and neither it nor the writer
// keeps a handle per goroutine.
type numberedSink struct{ w numbered }

// Frame interns f.
func (s numberedSink) Frame(f tachyon.Frame) uint32 { return s.w.Frame(f) }

// Goroutine returns a handle of goroutine id's thread, for a sink that
// wraps this one without Streams (recent.Tee).
func (s numberedSink) Goroutine(id uint64) sampler.Goroutine { return s.w.NewThread(id, 0) }

// Stream returns the number of goroutine id's thread.
func (s numberedSink) Stream(id uint64) uint32 { return uint32(s.w.NewThreadNo(id, 0)) }

// WriteStream writes a sample of thread n.
func (s numberedSink) WriteStream(n uint32, ts uint64, status tachyon.Status, stack []uint32) error {
	return s.w.WriteNo(writer.ThreadNo(n), ts, status, stack)
}

// RepeatStream writes a run of thread n.
func (s numberedSink) RepeatStream(n uint32, ts, step uint64, count int, status tachyon.Status) error {
	return s.w.RepeatEveryNo(writer.ThreadNo(n), ts, step, count, status)
}

// FlushStream ends thread n's pending run.
func (s numberedSink) FlushStream(n uint32) { s.w.FlushNo(writer.ThreadNo(n)) }

// RepeatFlushStream writes a run of thread n and ends it.
func (s numberedSink) RepeatFlushStream(n uint32, ts, step uint64, count int, status tachyon.Status) error {
	return s.w.RepeatFlushNo(writer.ThreadNo(n), ts, step, count, status)
}

// ForgetStream releases thread n.
func (s numberedSink) ForgetStream(n uint32) { s.w.ForgetNo(writer.ThreadNo(n)) }

// watermarkedNumbered is a numberedSink that takes watermarks.
type watermarkedNumbered struct {
	numberedSink
	watermark func(ts uint64)
}

// Watermark passes ts on.
func (w watermarkedNumbered) Watermark(ts uint64) { w.watermark(ts) }

// The sinks of writers hand out numbers.
var (
	_ sampler.Streams     = numberedSink{}
	_ sampler.RunFlusher  = numberedSink{}
	_ sampler.Watermarker = watermarkedNumbered{}
	_ sampler.Streams     = watermarkedNumbered{}
	_ sampler.RunFlusher  = watermarkedNumbered{}
)

// writerSink returns the sampler.Sink of w, whose goroutines' threads are
// numbered.
func writerSink(w *writer.Writer) sampler.Sink { return numberedSink{w} }

// checkpointSink returns the sampler.Sink of c, whose goroutines' threads
// are numbered, and which takes watermarks (where it takes checkpoints).
func checkpointSink(c *checkpoint.Writer) sampler.Sink {
	return watermarkedNumbered{numberedSink{c}, c.Watermark}
}

// segmentSink is the sampler.Sink of a segment Writer, which takes
// watermarks. The sampler asks once for each goroutine's handle and keeps
// it, so the Writer need not keep the handles by id.
type segmentSink struct{ s *segment.Writer }

// Frame interns f.
func (s segmentSink) Frame(f tachyon.Frame) uint32 { return s.s.Frame(f) }

// Goroutine returns the handle of goroutine id's thread.
func (s segmentSink) Goroutine(id uint64) sampler.Goroutine { return s.s.NewThread(id, 0) }

// Watermark passes ts on.
func (s segmentSink) Watermark(ts uint64) { s.s.Watermark(ts) }
