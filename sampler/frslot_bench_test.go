package sampler

import (
	"flag"
	"io"
	"runtime"
	rtrace "runtime/trace"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/gotrace"
	"github.com/gotachyon/profiler/internal/handoff"
	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/internal/workload/benchload"
)

var (
	slotPark   = flag.Int("slot.park", 10000, "BenchmarkSlot: parked goroutines")
	slotChurn  = flag.Int("slot.churn", 0, "BenchmarkSlot: goroutines started a second")
	slotWindow = flag.Duration("slot.window", 3*time.Second, "BenchmarkSlot: measured window")
	slotEvery  = flag.Duration("slot.every", 0, "BenchmarkSlot: frEvery")
	slotAge    = flag.Duration("slot.age", 0, "BenchmarkSlot: frMinAge")
	slotSettle = flag.Duration("slot.settle", 2*time.Second, "BenchmarkSlot: time from Start to the window")
)

// BenchmarkSlot compares the trace backend's two ways to the trace, the
// trace.Start slot and the flight recorder's, in alternating order: CPU in
// ms per second, heap allocation in KB per second and the heap in use at
// the window's end, medians over the iterations:
//
//	go test ./sampler -run '^$' -bench Slot -benchtime 5x
func BenchmarkSlot(b *testing.B) {
	release := benchload.Park(*slotPark)
	defer release()
	if *slotChurn > 0 {
		defer benchload.Churn(*slotChurn)()
	}
	defer func(was bool, n int) { frSlot, frMaxGoroutines = was, n }(frSlot, frMaxGoroutines)
	frMaxGoroutines = 1 << 30
	if *slotEvery > 0 {
		frEvery = *slotEvery
	}
	if *slotAge > 0 {
		frMinAge = *slotAge
	}
	names := []string{"start", "fr"}
	cpu := make([][]float64, 2)
	alloc := make([][]float64, 2)
	heap := make([][]float64, 2)
	for i := range b.N {
		for k := range 2 {
			j := (k + i) % 2
			frSlot = j == 1
			s, err := Start(Config{Backend: Trace}, newDropSink())
			if err != nil {
				b.Fatal(err)
			}
			time.Sleep(*slotSettle)
			c0, a0, t0 := rusage(), testutil.HeapAllocBytes(), time.Now()
			time.Sleep(*slotWindow)
			secs := time.Since(t0).Seconds()
			cpu[j] = append(cpu[j], float64(rusage()-c0)/1e6/secs)
			alloc[j] = append(alloc[j], float64(testutil.HeapAllocBytes()-a0)/1024/secs)
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			heap[j] = append(heap[j], float64(ms.HeapInuse)/(1<<20))
			st, err := s.Stop()
			if err != nil || st.Backend != Trace {
				b.Fatalf("%v %v", st.Backend, err)
			}
		}
	}
	for k, n := range names {
		b.ReportMetric(benchload.Median(cpu[k]), n+"-cpu-ms/s")
		b.ReportMetric(benchload.Median(alloc[k]), n+"-alloc-KB/s")
		b.ReportMetric(benchload.Median(heap[k]), n+"-heap-MB")
	}
	b.ReportMetric(0, "ns/op")
}

// rusage returns the process's user+system CPU time.
func rusage() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkSlotFloor is BenchmarkSlot's runtime side alone, no parser:
// trace.Start into io.Discard against a flight recorder snapshotted into
// io.Discard every -slot.every (default frEvery).
func BenchmarkSlotFloor(b *testing.B) {
	release := benchload.Park(*slotPark)
	defer release()
	every := frEvery
	if *slotEvery > 0 {
		every = *slotEvery
	}
	names := []string{"start", "fr"}
	cpu := make([][]float64, 2)
	alloc := make([][]float64, 2)
	for i := range b.N {
		for k := range 2 {
			j := (k + i) % 2
			var stop func()
			if j == 0 {
				if err := rtrace.Start(io.Discard); err != nil {
					b.Fatal(err)
				}
				stop = rtrace.Stop
			} else {
				fr := rtrace.NewFlightRecorder(rtrace.FlightRecorderConfig{MinAge: frMinAge, MaxBytes: frMaxBytes})
				if err := fr.Start(); err != nil {
					b.Fatal(err)
				}
				quit, done := make(chan struct{}), make(chan struct{})
				go func() {
					defer close(done)
					t := time.NewTicker(every)
					defer t.Stop()
					for {
						select {
						case <-quit:
							return
						case <-t.C:
							fr.WriteTo(io.Discard)
						}
					}
				}()
				stop = func() { close(quit); <-done; fr.Stop() }
			}
			time.Sleep(*slotSettle)
			c0, a0, t0 := rusage(), testutil.HeapAllocBytes(), time.Now()
			time.Sleep(*slotWindow)
			secs := time.Since(t0).Seconds()
			cpu[j] = append(cpu[j], float64(rusage()-c0)/1e6/secs)
			alloc[j] = append(alloc[j], float64(testutil.HeapAllocBytes()-a0)/1024/secs)
			stop()
		}
	}
	for k, n := range names {
		b.ReportMetric(benchload.Median(cpu[k]), n+"-cpu-ms/s")
		b.ReportMetric(benchload.Median(alloc[k]), n+"-alloc-KB/s")
	}
	b.ReportMetric(0, "ns/op")
}

// BenchmarkSlotLatency measures how old the trace's events are when the
// parser reads them, through each slot, under a churn of goroutines: the
// median and the largest age over one -slot.window per slot and
// iteration, the parser reading flat out.
func BenchmarkSlotLatency(b *testing.B) {
	defer benchload.Churn(2000)()
	defer func(was bool) { frSlot = was }(frSlot)
	names := []string{"start", "fr"}
	med := make([][]float64, 2)
	most := make([][]float64, 2)
	for i := range b.N {
		for k := range 2 {
			j := (k + i) % 2
			frSlot = j == 1
			ages := eventAges(b)
			slices.Sort(ages)
			med[j] = append(med[j], ages[len(ages)/2])
			most[j] = append(most[j], ages[len(ages)-1])
		}
	}
	for k, n := range names {
		b.ReportMetric(benchload.Median(med[k]), n+"-median-age-ms")
		b.ReportMetric(benchload.Median(most[k]), n+"-max-age-ms")
	}
	b.ReportMetric(0, "ns/op")
}

// eventAges reads the trace for -slot.window and returns the age in ms of
// every 64th event when it was read.
func eventAges(b *testing.B) []float64 {
	pipe := handoff.New(pipeMaxBytes)
	tb := &traceBackend{pipe: pipe}
	if err := tb.startTracer(); err != nil {
		b.Fatal(err)
	}
	stopped := make(chan struct{})
	go func() {
		time.Sleep(*slotWindow)
		tb.stopTracer()
		pipe.Close()
		close(stopped)
	}()
	rd, err := gotrace.NewReader(pipe)
	if err != nil {
		b.Fatal(err)
	}
	var ages []float64
	var ev gotrace.Event
	var clock gotrace.Clock
	for n := 0; ; n++ {
		if err := rd.Next(&ev); err != nil {
			if err != io.EOF {
				b.Fatal(err)
			}
			break
		}
		if ev.Kind == gotrace.Sync {
			clock, _ = rd.Clock()
		}
		if n%64 == 0 && clock.Wall != 0 {
			wall := clock.Wall + int64(ev.Time-clock.Trace)
			ages = append(ages, float64(time.Now().UnixNano()-wall)/1e6)
		}
	}
	<-stopped
	return ages
}
