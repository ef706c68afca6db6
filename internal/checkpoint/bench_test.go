package checkpoint

import (
	"testing"
	"time"

	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// BenchmarkCheckpoint measures a checkpoint's pause of the writing
// goroutine with 100,000 parked threads, each holding a pending run of
// 100 samples since the last one (a second at 100 Hz): writing every run
// out, ending the compressed frame and building the tables. The mark is
// written to disk by the Writer's own goroutine, not measured here.
func BenchmarkCheckpoint(b *testing.B) {
	const threads, ticks = 100_000, 100
	c, err := New(Options{Dir: b.TempDir(), Writer: writer.Options{StartTime: 1, Interval: 10_000, Compression: tachyon.CompressionZstd}, First: time.Hour, Period: time.Hour})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Abort()
	main := c.Frame(tachyon.Frame{File: "main.go", Func: "main.main", Line: 1})
	park := c.Frame(tachyon.Frame{File: "proc.go", Func: "runtime.gopark", Line: 2})
	hs := make([]*writer.Thread, threads)
	for i := range hs {
		hs[i] = c.Thread(uint64(i+1), 0)
		if err := hs[i].Write(1, 0, []uint32{park, main}); err != nil {
			b.Fatal(err)
		}
	}
	ts := uint64(1)
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		for _, h := range hs {
			if err := h.RepeatEvery(ts+10_000, 10_000, ticks, 0); err != nil {
				b.Fatal(err)
			}
			h.Flush()
		}
		ts += ticks * 10_000
		b.StartTimer()
		c.checkpoint(time.Now())
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/threads, "ns/thread")
}
