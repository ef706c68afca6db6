package segment_test

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/gotachyon/profiler/segment"
	"github.com/gotachyon/profiler/tachyon"
)

// BenchmarkSegmentLate writes what the trace backend writes for 1,000
// goroutines at 100 Hz, one generation (a second) per iteration: each
// generation a quarter of the goroutines have their ticks since their last
// write written, up to four seconds late (a stack change for one in ten),
// after the watermark of the oldest tick still to come; 2-second segments.
// Besides samples/s and the rollovers' pauses, it reports the Writer's
// live heap at the end (heap-MiB, after a GC, less the heap before New),
// which holds every open segment's writer.
func BenchmarkSegmentLate(b *testing.B) {
	const threads = 1000
	base := heapAlloc()
	s, err := segment.New(segment.Options{Dir: b.TempDir(), StartTime: segStart, Period: 2 * time.Second,
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
	due := make([]uint64, threads) // each goroutine's first tick not written
	for i := range hs {
		hs[i] = s.Thread(uint64(i+1), 0)
	}
	b.ResetTimer()
	for gen := range b.N {
		now := uint64(gen+1) * genTicks
		oldest := now
		for _, d := range due {
			oldest = min(oldest, d)
		}
		s.Watermark(segStart + oldest*segStep)
		for i, h := range hs {
			if (i+gen)%4 != 0 {
				continue
			}
			ts, n := segStart+due[i]*segStep, int(now-due[i])
			if due[i] == 0 || (i+gen)%10 == 0 {
				if err := h.Write(ts, 0, stacks[(i+gen)%len(stacks)]); err != nil {
					b.Fatal(err)
				}
				ts, n = ts+segStep, n-1
			}
			if err := h.RepeatEvery(ts, segStep, n, 0); err != nil {
				b.Fatal(err)
			}
			h.Flush()
			due[i] = now
		}
		if gen%2 == 1 {
			// Two seconds pass between rollovers: let the finalization
			// and the opening ahead run as they would meanwhile.
			b.StopTimer()
			time.Sleep(20 * time.Millisecond)
			b.StartTimer()
		}
	}
	b.StopTimer()
	heap := heapAlloc() - min(base, heapAlloc())
	runtime.KeepAlive(hs)
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	st := s.Stats()
	b.ReportMetric(float64(b.N)*threads*genTicks/b.Elapsed().Seconds(), "samples/s")
	b.ReportMetric(float64(st.MaxPause.Microseconds()), "max-rollover-µs")
	b.ReportMetric(float64(heap)/(1<<20), "heap-MiB")
	b.ReportMetric(float64(st.PeakOpen), "peak-open")
	if st.Rollovers > 0 {
		b.ReportMetric(float64(st.Pauses.Microseconds())/float64(st.Rollovers), "mean-rollover-µs")
	}
}

// heapAlloc returns the live heap after a collection.
func heapAlloc() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
