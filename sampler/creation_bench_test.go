package sampler

import (
	"bytes"
	"io"
	"runtime"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/workload/benchload"
)

// recordChurnTrace records d of execution trace with CPU samples while
// goroutines start and end at 2,000 a second (benchload.Churn) and 1,000
// goroutines are created and parked during it: creations whose sites the
// sampler reads.
func recordChurnTrace(tb testing.TB, d time.Duration) []byte {
	stopChurn := benchload.Churn(2000)
	defer stopChurn()
	var release func()
	go func() { time.Sleep(d / 4); release = benchload.Park(1000) }()
	data := traceFor(tb, d)
	for release == nil {
		time.Sleep(time.Millisecond)
	}
	release()
	return data
}

// BenchmarkCreationLabels parses one recorded trace of goroutine churn
// (recordChurnTrace, 1.2 s) through the wall-mode state machine with the
// creation-site labels (on) and without (off), alternately, each
// iteration one parse of each in turn first, so that a change of the
// machine's load weighs on both: the cost of the label per trace event
// (on-ns/event against off-ns/event) and in allocations (allocs/op are
// those of the pair).
func BenchmarkCreationLabels(b *testing.B) {
	data := recordChurnTrace(b, 1200*time.Millisecond)
	events, _ := readOnly(b, data)
	var took [2]time.Duration
	parse := func(off bool) {
		rd, err := newSource(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		em := newEmitter(Config{Mode: Wall, Rate: 100, NoCreationLabels: off}, newDropSink())
		tb := newTraceBackend(em, rd, time.Now())
		t0 := time.Now()
		if err := tb.consume(); err != nil {
			b.Fatal(err)
		}
		d := time.Since(t0)
		if off {
			took[1] += d
		} else {
			took[0] += d
		}
	}
	b.ReportAllocs()
	for i := range b.N {
		parse(i%2 == 0)
		parse(i%2 != 0)
	}
	b.ReportMetric(float64(took[0].Nanoseconds())/float64(b.N)/float64(events), "on-ns/event")
	b.ReportMetric(float64(took[1].Nanoseconds())/float64(b.N)/float64(events), "off-ns/event")
	b.ReportMetric(float64(events), "events")
}

// BenchmarkLeakProfile measures the two parts of a goroutine leak
// profile as the sampler takes it, with 10,000 goroutines parked 10
// frames deep (benchload.Park): the leak-finding garbage collection and
// its profile (gc; all there is when nothing leaked), and the dump of
// every goroutine that names the leaked ones when some are (dump:
// runtime.Stack of all goroutines in a buffer that holds it, which stops
// the world throughout). Where the runtime has no such profile (Go
// 1.26), it says so and measures nothing.
func BenchmarkLeakProfile(b *testing.B) {
	if !LeakProfileAvailable() {
		b.Skip("no goroutine leak profile in " + runtime.Version())
	}
	release := benchload.Park(10000)
	defer release()
	b.Run("gc", func(b *testing.B) {
		p := pprof.Lookup("goroutineleak")
		for range b.N {
			if err := p.WriteTo(io.Discard, 1); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("dump", func(b *testing.B) {
		buf := make([]byte, 64<<20)
		n := 0
		for range b.N {
			n = runtime.Stack(buf, true)
		}
		b.ReportMetric(float64(n), "dump-bytes")
	})
}
