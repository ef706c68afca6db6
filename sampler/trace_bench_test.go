package sampler

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	xtrace "golang.org/x/exp/trace"

	"github.com/gotachyon/profiler/internal/gotrace"
	"github.com/gotachyon/profiler/internal/testing/testutil"
)

// recordTrace records d of execution trace with CPU samples while n
// goroutines are blocked and one spins.
func recordTrace(tb testing.TB, n int, d time.Duration) []byte {
	stop := make(chan struct{})
	for i := 0; i < n; i++ {
		go func() { blockChan2(stop, i%7) }()
	}
	var spinning atomic.Bool
	go spin(&spinning)
	defer func() { close(stop); spinning.Store(true) }()
	time.Sleep(20 * time.Millisecond)
	return traceFor(tb, d)
}

// traceFor records d of execution trace with the CPU profiler alongside.
func traceFor(tb testing.TB, d time.Duration) []byte { return testutil.Trace(tb, d) }

// BenchmarkTraceWall parses a recorded trace (1000 blocked goroutines, one
// spinner, 300 ms) through the wall-mode state machine at 100 Hz.
func BenchmarkTraceWall(b *testing.B) {
	data := recordTrace(b, 1000, 300*time.Millisecond)
	var samples uint64
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rd, err := newSource(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		st := newEmitter(Config{Mode: Wall, Rate: 100}, newDropSink())
		tb := newTraceBackend(st, rd, time.Now())
		if err := tb.consume(); err != nil {
			b.Fatal(err)
		}
		samples += st.samples
	}
	b.ReportMetric(float64(samples)/b.Elapsed().Seconds(), "samples/s")
	b.ReportMetric(float64(samples)/float64(b.N), "samples/op")
}

// TestTraceReplay checks the state machine on a recorded trace: the parked
// goroutines appear at every tick with their wait reason.
func TestTraceReplay(t *testing.T) {
	data := recordTrace(t, 50, 200*time.Millisecond)
	rd, err := newSource(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	sink := newMemSink()
	st := newEmitter(Config{Mode: Wall, Rate: 100}, sink)
	tb := newTraceBackend(st, rd, time.Now())
	if err := tb.consume(); err != nil {
		t.Fatal(err)
	}
	parked := map[uint64]int{}
	for _, s := range sink.all() {
		if s.hasFunc("sampler.blockChan2") && len(s.stack) > 0 && s.stack[0].Func == "[chan receive]" && s.status == 0 {
			parked[s.gid]++
		}
	}
	if len(parked) < 50 {
		t.Fatalf("%d parked goroutines seen, want >= 50", len(parked))
	}
	for id, n := range parked {
		if uint64(n) < st.ticks*9/10 {
			t.Fatalf("g%d in %d of %d ticks", id, n, st.ticks)
		}
	}
}

// BenchmarkTraceTick measures wall ticks over the goroutines of a replayed
// trace (1000 parked goroutines) into a sink that keeps nothing (package
// writer's BenchmarkWallTick measures writing them): the steady state,
// in which a tick writes nothing and each goroutine's unchanged ticks are
// written once per generation (here every 100 ticks, 1 s at 100 Hz). It must
// not allocate.
func BenchmarkTraceTick(b *testing.B) {
	data := recordTrace(b, 1000, 100*time.Millisecond)
	rd, err := newSource(bytes.NewReader(data))
	if err != nil {
		b.Fatal(err)
	}
	st := newEmitter(Config{Mode: Wall, Rate: 100}, newDropSink())
	tb := newTraceBackend(st, rd, time.Now())
	if err := tb.consume(); err != nil {
		b.Fatal(err)
	}
	n0 := st.samples
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tb.advance(tb.ticks.first + gotrace.Time(tb.ticks.n)*tb.ticks.step())
		if i%100 == 99 {
			tb.settleShare()
		}
	}
	for range settleEvery {
		tb.settleShare()
	}
	n := st.samples - n0
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "samples/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/sample")
}

// recordBusyTrace records d of execution trace with CPU samples while
// 1,000 goroutines are parked and an HTTP client on loopback keeps two
// connections busy against a server in this process: a service's events
// (system calls, network waits, a goroutine per request).
func recordBusyTrace(tb testing.TB, d time.Duration) []byte {
	stop := make(chan struct{})
	for i := range 1000 {
		go blockChan2(stop, i%7)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"key":"k","value":1}`)
	}))
	defer srv.Close()
	var wg sync.WaitGroup
	defer wg.Wait()
	defer close(stop) // before the clients are waited for
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if resp, err := http.Get(srv.URL); err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}
		}()
	}
	time.Sleep(50 * time.Millisecond)
	return traceFor(tb, d)
}

// BenchmarkTraceBusy parses a recorded trace of a busy HTTP service (1.2 s,
// 1,000 parked goroutines) through the wall-mode state machine at 100 Hz
// into a discarding sink, and reports the cost per trace event: ns/event in
// all, read-ns/event of it spent reading the trace (measured by reading
// the same trace alone), and allocations. TRACE_BENCH=FILE parses a saved
// trace instead (such as one of bench/service under churn).
func BenchmarkTraceBusy(b *testing.B) {
	var data []byte
	if path := os.Getenv("TRACE_BENCH"); path != "" {
		var err error
		if data, err = os.ReadFile(path); err != nil {
			b.Fatal(err)
		}
	} else {
		data = recordBusyTrace(b, 1200*time.Millisecond)
	}
	events, read := readOnly(b, data)
	var samples uint64
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		rd, err := newSource(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		em := newEmitter(Config{Mode: Wall, Rate: 100}, newDropSink())
		tb := newTraceBackend(em, rd, time.Now())
		if err := tb.consume(); err != nil {
			b.Fatal(err)
		}
		samples += em.samples
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(events), "ns/event")
	b.ReportMetric(float64(read.Nanoseconds())/float64(events), "read-ns/event")
	b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(samples)/b.Elapsed().Seconds(), "samples/s")
}

// readOnly returns a recorded trace's event count (all of them, as
// golang.org/x/exp/trace counts) and the fastest of a few reads of it by
// the backend's reader alone.
func readOnly(b *testing.B, data []byte) (events int, best time.Duration) {
	rd, err := xtrace.NewReader(bytes.NewReader(data))
	if err != nil {
		b.Fatal(err)
	}
	for {
		if _, err := rd.ReadEvent(); err == io.EOF {
			break
		} else if err != nil {
			b.Fatal(err)
		}
		events++
	}
	for i := range 3 {
		t0 := time.Now()
		src, err := newSource(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		for {
			if _, err := src.NextEvent(); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
		if d := time.Since(t0); i == 0 || d < best {
			best = d
		}
	}
	return events, best
}
