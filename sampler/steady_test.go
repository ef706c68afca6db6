package sampler

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"
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
// file allocates nothing: an idle program with 1,000 parked goroutines,
// each generation from the fifth on. A generation in which the test process
// starts a goroutine or shows a new stack (a timer, the test runner) is not
// the steady state and is not judged; if no generation is steady, the trace
// is recorded again. (Reading the trace is left out: golang.org/x/exp/trace
// allocates each generation's batches afresh, as the runtime itself
// allocates while writing them; bench.BenchmarkIdle measures the whole
// process.)
func TestSteadyStateAllocs(t *testing.T) {
	// Every allocation is recorded with its stack, so that the process's
	// others (the test runner, the runtime) are told apart from ours.
	defer func(rate int) { runtime.MemProfileRate = rate }(runtime.MemProfileRate)
	runtime.MemProfileRate = 1
	for try := 1; ; try++ {
		judged := steadyAllocs(t)
		if judged > 0 || t.Failed() {
			return
		}
		if try == 3 {
			t.Fatal("no generation without a new goroutine or stack in 3 recordings")
		}
	}
}

// steadyAllocs records an idle trace, folds it, fails t for each steady
// generation that allocated and returns how many generations it judged.
func steadyAllocs(t *testing.T) (judged int) {
	evs := readEvents(t, recordIdleTrace(t, 1000, 6500*time.Millisecond))
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
	defer w.Close()
	em := newEmitter(Config{Mode: Wall, Rate: 100}, w)
	tb := newTraceBackend(em, nil, time.Now())
	// Four generations in, the writer has flushed its record buffer (300 KB
	// of samples per generation) and every stack has been seen.
	for i := range evs[:syncs[4]] {
		tb.handle(&evs[i])
	}
	for k := 4; k+1 < len(syncs); k++ {
		from, to := syncs[k], syncs[k+1]
		samples, stacks, gs, counted := em.samples, len(tb.known), len(tb.gs), em.goroutines
		before := ownAllocs(t)
		for i := from; i < to; i++ {
			tb.handle(&evs[i])
		}
		n := ownAllocs(t) - before
		if len(tb.known) != stacks || len(tb.gs) != gs || em.goroutines != counted || len(tb.ended) > 0 {
			continue // a goroutine or a stack came or went: not the steady state
		}
		if em.samples == samples {
			t.Fatalf("generation %d wrote no samples", k+1)
		}
		judged++
		if n > 0 {
			t.Errorf("generation %d: %d allocations in the sampler or the writer folding %d events into %d samples, want 0",
				k+1, n, to-from, em.samples-samples)
		}
	}
	return judged
}

// ownAllocs returns the number of objects allocated so far (as of a
// collection it runs) by the sampler's and the writer's code: allocations
// whose stack holds one of their methods.
func ownAllocs(t *testing.T) int64 {
	runtime.GC()
	var buf bytes.Buffer
	if err := pprof.Lookup("allocs").WriteTo(&buf, 0); err != nil {
		t.Fatal(err)
	}
	p, err := profile.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, s := range p.Sample {
		if ours(s) {
			n += s.Value[0] // alloc_objects
		}
	}
	return n
}

// ours reports whether a sample's stack holds a method of the sampler's or
// the writer's (the test's own functions are plain functions).
func ours(s *profile.Sample) bool {
	for _, loc := range s.Location {
		for _, l := range loc.Line {
			if l.Function == nil {
				continue
			}
			name := l.Function.Name
			if strings.HasPrefix(name, "github.com/gotachyon/profiler/sampler.(") ||
				strings.HasPrefix(name, "github.com/gotachyon/profiler/sampler.stackTable.") ||
				strings.HasPrefix(name, "github.com/gotachyon/profiler/writer.") {
				return true
			}
		}
	}
	return false
}
