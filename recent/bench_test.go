package recent

import (
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/testing/seekbuf"
	"github.com/gotachyon/profiler/sampler"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// BenchmarkSink writes a sampler's steady state, 1,000 goroutines of
// which 10 run (a new stack every tick) and the others stay parked,
// written in batches as the trace backend writes them, into a file's
// writer alone ("writer") and into the same writer and a window of a
// minute through Tee ("tee"): the window's cost per sample is the
// difference. An op is one generation (100 ticks, 100,000 samples).
func BenchmarkSink(b *testing.B) {
	for _, kind := range []string{"writer", "tee"} {
		b.Run(kind, func(b *testing.B) {
			pw, err := writer.New(&seekbuf.Discard{}, writer.Options{StartTime: t0, Interval: step, Compression: tachyon.CompressionZstd})
			if err != nil {
				b.Fatal(err)
			}
			var sink sampler.Sink = primarySink{pw}
			if kind == "tee" {
				w, err := New(Options{Duration: time.Minute, StartTime: t0, Interval: step})
				if err != nil {
					b.Fatal(err)
				}
				sink = Tee(sink, w)
			}
			s := newSim(sink, t0, step, 500, false)
			for i := range 1000 {
				s.spawn(i%100 == 0, 0)
			}
			for range 20 { // past a window's first chunks
				s.generation(gen)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				s.generation(gen)
			}
			b.StopTimer()
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*gen*1000), "ns/sample")
		})
	}
}
