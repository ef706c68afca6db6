package bench

import (
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/cputime"
	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/internal/workload/benchload"
)

// BenchmarkIdle measures what profiling costs a process that does nothing:
// -idle goroutines (10,000) parked ten frames deep. Each iteration starts
// each peer in turn (none, trace-floor, trace+cpu-floor, tachyon), lets
// -settle pass (7 s: the first five generations carry every goroutine's
// first stack, a quarter of them in each), then measures one -window of the
// steady state, and stops it. It reports per peer the median CPU in ms per
// second and heap allocation in KB per second (runtime/metrics; the
// runtime's trace itself allocates about 180 bytes a goroutine a second),
// and tachyon's paired excess over trace+cpu-floor in both:
//
//	go test ./bench -run '^$' -bench Idle -benchtime 5x -window 5s
func BenchmarkIdle(b *testing.B) {
	release := benchload.Park(*idleN)
	defer release()
	time.Sleep(200 * time.Millisecond)
	runs := []peer{{"none", func(*testing.B) func() float64 { return func() float64 { return 0 } }},
		peerNamed("trace-floor"), peerNamed("trace+cpu-floor"), peerNamed("tachyon")}
	cpu := make([][]float64, len(runs))
	alloc := make([][]float64, len(runs))
	var over, overAlloc []float64
	b.ResetTimer()
	for i := range b.N {
		for k := range runs {
			j := (k + i) % len(runs)
			stop := runs[j].start(b)
			time.Sleep(*settle)
			c0, a0, t0 := cputime.Process(), testutil.HeapAllocBytes(), time.Now()
			time.Sleep(*window)
			secs := time.Since(t0).Seconds()
			cpu[j] = append(cpu[j], float64(cputime.Process()-c0)/1e6/secs)
			alloc[j] = append(alloc[j], float64(testutil.HeapAllocBytes()-a0)/1024/secs)
			stop()
		}
		over = append(over, cpu[3][i]-cpu[2][i])
		overAlloc = append(overAlloc, alloc[3][i]-alloc[2][i])
	}
	b.StopTimer()
	for k, r := range runs {
		b.ReportMetric(benchload.Median(cpu[k]), r.name+"-cpu-ms/s")
		b.ReportMetric(benchload.Median(alloc[k]), r.name+"-alloc-KB/s")
	}
	b.ReportMetric(benchload.Median(over), "above-floor-ms/s")
	b.ReportMetric(benchload.Median(overAlloc), "above-floor-alloc-KB/s")
	b.ReportMetric(0, "ns/op")
}
