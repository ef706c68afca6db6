package sampler

import (
	"io"
	"os"
	"runtime/metrics"
	"syscall"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/gotrace"
	"github.com/gotachyon/profiler/internal/handoff"
)

// BenchmarkHandoff pushes a recorded trace from a writer goroutine, which
// writes it as the runtime's trace writer does (a write per batch, from a
// buffer it reuses), through the hand-off to the parser, which reads its
// events with gotrace: through an io.Pipe and a bufio.Reader (the
// hand-off before issue 31: a goroutine switch and two copies a write) and
// through handoff.Pipe (one copy, one wake-up a generation), side by side;
// -count alternates them. It reports ns/event, MB/s, allocations, the
// goroutine switches the scheduler counted (gswitch/op) and the OS
// threads' context switches (ctxsw/op). TRACE_BENCH=FILE pushes a saved
// trace instead (such as one bench/service -savetrace wrote).
func BenchmarkHandoff(b *testing.B) {
	var data []byte
	if path := os.Getenv("TRACE_BENCH"); path != "" {
		var err error
		if data, err = os.ReadFile(path); err != nil {
			b.Fatal(err)
		}
	} else {
		data = recordBusyTrace(b, 1200*time.Millisecond)
	}
	events := 0
	for _, via := range []string{"io.Pipe", "handoff"} {
		b.Run(via, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			sw0, cs0 := gSwitches(), ctxSwitches()
			b.ResetTimer()
			for range b.N {
				var w io.WriteCloser
				var r io.Reader
				if via == "io.Pipe" {
					pr, pw := io.Pipe()
					r, w = pr, pw
				} else {
					p := handoff.New(pipeMaxBytes)
					r, w = p, p
				}
				go func() {
					handoff.Replay(w, data)
					w.Close()
				}()
				n, err := readEvents(r)
				if err != nil {
					b.Fatal(err)
				}
				events = n
			}
			b.StopTimer()
			ops := float64(b.N)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/ops/float64(events), "ns/event")
			b.ReportMetric(float64(gSwitches()-sw0)/ops, "gswitch/op")
			b.ReportMetric(float64(ctxSwitches()-cs0)/ops, "ctxsw/op")
		})
	}
}

// readEvents reads r's trace to its end with the backend's source and
// returns its number of events.
func readEvents(r io.Reader) (int, error) {
	src, err := newSource(r)
	if err != nil {
		return 0, err
	}
	var ev gotrace.Event
	for n := 0; ; n++ {
		if err := src.Next(&ev); err == io.EOF {
			return n, nil
		} else if err != nil {
			return n, err
		}
	}
}

// gSwitches returns the goroutine switches the scheduler has counted: it
// records one in schedTrackingPeriod in /sched/latencies:seconds.
func gSwitches() uint64 {
	s := []metrics.Sample{{Name: "/sched/latencies:seconds"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64Histogram {
		return 0
	}
	var n uint64
	for _, c := range s[0].Value.Float64Histogram().Counts {
		n += c
	}
	return n * schedTrackingPeriod
}

// ctxSwitches returns the process's context switches, voluntary and not.
func ctxSwitches() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Nvcsw + ru.Nivcsw
}
