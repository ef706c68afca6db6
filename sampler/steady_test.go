package sampler

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	xtrace "golang.org/x/exp/trace"

	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// readEvents parses a whole recorded trace.
func readEvents(t testing.TB, data []byte) []xtrace.Event {
	rd, err := xtrace.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var evs []xtrace.Event
	for {
		ev, err := rd.ReadEvent()
		if err == io.EOF {
			return evs
		}
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
	}
}

// recordIdleTrace records d of execution trace with CPU samples while n
// goroutines are blocked.
func recordIdleTrace(tb testing.TB, n int, d time.Duration) []byte {
	stop := make(chan struct{})
	defer close(stop)
	for i := range n {
		go blockChan2(stop, i%7)
	}
	time.Sleep(20 * time.Millisecond)
	return traceFor(tb, d)
}

// TestSteadyStateAllocs checks that, once a program's goroutines and
// stacks have been seen, folding its trace and writing the samples into a
// file allocates nothing: an idle program with 1,000 parked
// goroutines, from its fifth generation on. (Reading the trace is left out:
// golang.org/x/exp/trace allocates each generation's batches afresh, as the
// runtime itself allocates while writing them; bench.BenchmarkIdle
// measures the whole process.)
func TestSteadyStateAllocs(t *testing.T) {
	evs := readEvents(t, recordIdleTrace(t, 1000, 5500*time.Millisecond))
	var syncs []int
	for i := range evs {
		if evs[i].Kind() == xtrace.EventSync {
			syncs = append(syncs, i)
		}
	}
	if len(syncs) < 6 {
		t.Fatalf("%d generations recorded, want >= 6", len(syncs))
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "t.bin"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// Uncompressed: klauspost's zstd encoder grows its tables on demand,
	// a one-time allocation that can fall in any generation.
	w, err := writer.New(f, writer.Options{Compression: tachyon.CompressionNone})
	if err != nil {
		t.Fatal(err)
	}
	em := newEmitter(Config{Mode: Wall, Rate: 100}, w)
	tb := newTraceBackend(em, nil, time.Now())
	// Four generations in, the writer has flushed its record buffer (300 KB
	// of samples per generation) and every stack has been seen.
	warm, end := syncs[4], syncs[len(syncs)-1]
	for i := range evs[:warm] {
		tb.handle(&evs[i])
	}
	samples, stacks, gs := em.samples, len(tb.known), len(tb.gs)
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	for i := range evs[warm:end] {
		tb.handle(&evs[warm+i])
	}
	runtime.ReadMemStats(&m1)
	if em.samples == samples {
		t.Fatal("no samples written in the steady generations")
	}
	// A goroutine or a stack first seen now is not the steady state: the
	// test process may start one (a timer, the test runner); each costs a
	// few allocations (the stack, its frames, its waiting variant, table growth).
	fresh := max(len(tb.known)-stacks, 0) + max(len(tb.gs)-gs, 0)
	if n := m1.Mallocs - m0.Mallocs; n > uint64(8*fresh) {
		t.Errorf("%d allocations (%d bytes) folding %d events of %d generations into %d samples with %d new stacks or goroutines, want at most %d",
			n, m1.TotalAlloc-m0.TotalAlloc, end-warm, len(syncs)-5, em.samples-samples, fresh, 8*fresh)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}
