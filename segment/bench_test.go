package segment_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/gotachyon/profiler/segment"
	"github.com/gotachyon/profiler/tachyon"
)

// BenchmarkSegmentRollover writes what a wall profile of 1,000 (and
// 100,000) goroutines at 100 Hz writes in one second per iteration (each
// goroutine's run of 100 samples, a stack change for one in ten), in
// 10-second segments. It reports samples/s, the mean and longest pause a
// rollover made on the writing goroutine (renaming the segment opened
// ahead and handing the finished one over; closing its writer, the
// finalization and the opening run on the Writer's goroutine, given 20 ms
// between rollovers outside the timer, and as long again for each 10,000
// goroutines), the bytes per segment, and the Writer's live heap at the
// end (heap-MiB, as BenchmarkSegmentLate).
func BenchmarkSegmentRollover(b *testing.B) {
	for _, threads := range []int{1000, 100_000} {
		b.Run(fmt.Sprintf("threads=%d", threads), func(b *testing.B) { benchRollover(b, threads) })
	}
}

func benchRollover(b *testing.B, threads int) {
	base := heapAlloc()
	s, err := segment.New(segment.Options{Dir: b.TempDir(), StartTime: segStart, Period: 10 * time.Second,
		Interval: segStep, Compression: tachyon.CompressionZstd, KeepFiles: 2})
	if err != nil {
		b.Fatal(err)
	}
	var stacks [8][]uint32
	for i := range stacks {
		for d := range 20 {
			stacks[i] = append(stacks[i], s.Frame(tachyon.Frame{File: "f.go", Func: fmt.Sprintf("pkg.fn%d", d+i), Line: int32(d)}))
		}
	}
	hs := make([]*segment.Thread, threads)
	for i := range hs {
		hs[i] = s.Thread(uint64(i+1), 0)
	}
	b.ResetTimer()
	for gen := range b.N {
		base := segStart + uint64(gen)*100*segStep
		s.Watermark(base)
		for i, h := range hs {
			ts, n := base, 100
			if gen == 0 || (i+gen)%10 == 0 {
				if err := h.Write(ts, 0, stacks[(i+gen)%len(stacks)]); err != nil {
					b.Fatal(err)
				}
				ts, n = ts+segStep, n-1
			}
			if err := h.RepeatEvery(ts, segStep, n, 0); err != nil {
				b.Fatal(err)
			}
			h.Flush()
		}
		if gen%10 == 9 {
			// Ten seconds pass between rollovers: let the finalization
			// and the opening ahead run as they would meanwhile.
			b.StopTimer()
			time.Sleep(20 * time.Millisecond * time.Duration(1+threads/10_000))
			b.StartTimer()
		}
	}
	b.StopTimer()
	heap := heapAlloc() - min(base, heapAlloc())
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	st := s.Stats()
	b.ReportMetric(float64(b.N*threads*100)/b.Elapsed().Seconds(), "samples/s")
	b.ReportMetric(float64(st.MaxPause.Microseconds()), "max-rollover-µs")
	b.ReportMetric(float64(st.Bytes)/float64(st.Written), "bytes/segment")
	b.ReportMetric(float64(heap)/(1<<20), "heap-MiB")
	b.ReportMetric(float64(st.PeakOpen), "peak-open")
	if st.Rollovers > 0 {
		b.ReportMetric(float64(st.Pauses.Microseconds())/float64(st.Rollovers), "mean-rollover-µs")
		b.ReportMetric(float64(st.Unprepared)/float64(st.Rollovers), "unprepared/rollover")
	}
}
