package writer_test

import (
	"io"
	"runtime"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/seekbuf"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// BenchmarkCloseParked times the Close that ends a Stop with 100,000
// parked goroutines: each thread has a run of 50 ticks pending (half a
// generation at 100 Hz), which Close writes, one REPEAT record a thread.
// serial compresses on the writer's goroutine; finishing is Stop's case,
// Finishing called first, which compresses full buffers on several
// cores. ns/thread is Close's time per thread; the threads' first
// samples, written before, are not timed.
func BenchmarkCloseParked(b *testing.B) {
	const goroutines, ticks = 100000, 50
	for _, c := range []struct {
		name      string
		finishing bool
	}{{"serial", false}, {"finishing", true}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				w := parkedWriter(b, &seekbuf.Discard{}, tachyon.CompressionZstd, goroutines, ticks, false)
				if c.finishing {
					w.Finishing()
				}
				runtime.GC() // the threads' garbage, not Close's
				b.StartTimer()
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/goroutines, "ns/thread")
		})
	}
}

// parkedWriter returns a writer into dst with goroutines threads, each
// with a first sample and then a parked run of ticks samples 10 ms apart,
// pending or, if flush, written.
func parkedWriter(b *testing.B, dst io.WriteSeeker, c tachyon.Compression, goroutines, ticks int, flush bool) *writer.Writer {
	b.Helper()
	const step = 10000
	w, err := writer.New(dst, writer.Options{Compression: c})
	if err != nil {
		b.Fatal(err)
	}
	for _, h := range parkedThreads(b, w, goroutines) {
		if err := h.RepeatEvery(step, step, ticks, 0); err != nil {
			b.Fatal(err)
		}
		if flush {
			h.Flush()
		}
	}
	return w
}
