package sampler

import (
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/gotrace"
)

// knownBackend returns a wall-mode trace backend writing to a memSink,
// reading a knownSource that knows no goroutine yet, in its first
// generation.
func knownBackend() (*traceBackend, *knownSource, *memSink) {
	src := &knownSource{known: map[uint64]bool{}, users: map[uint64]uint32{}}
	mem := newMemSink()
	tb := newTraceBackend(newEmitter(Config{Mode: Wall, Rate: 100}, mem), src, time.Now().Add(-time.Second))
	tb.handle(&gotrace.Event{Kind: gotrace.Sync, Time: 1})
	return tb, src, mem
}

// churnThenSample has goroutines first, first+1, ..., first+n-1 created,
// run and end one after another from t on, each known to src while it
// lives, and then a CPU sample of the first ordered after all their ends;
// it returns the time after the sample.
func churnThenSample(tb *traceBackend, src *knownSource, first uint64, n int, t gotrace.Time) gotrace.Time {
	for g := first; g < first+uint64(n); g++ {
		src.known[g] = true
		tb.handle(&gotrace.Event{Kind: gotrace.Transition, Time: t, G: g, From: gotrace.GoNotExist, To: gotrace.GoRunnable, Stack: 1})
		tb.handle(&gotrace.Event{Kind: gotrace.Transition, Time: t + 1, G: g, User: src.users[g], From: gotrace.GoRunnable, To: gotrace.GoRunning})
		tb.handle(&gotrace.Event{Kind: gotrace.Transition, Time: t + 2, G: g, User: src.users[g], From: gotrace.GoRunning, To: gotrace.GoNotExist})
		delete(src.known, g)
		delete(src.users, g)
		t += 3
	}
	tb.handle(&gotrace.Event{Kind: gotrace.Sample, Time: t, G: first, Stack: 1})
	return t + 1
}

// TestLateSampleOfEndedGoroutine: a CPU sample ordered after its
// goroutine's end, with thousands of other goroutines ended between (a
// program that churns them, its samples read late), does not bring the
// goroutine back: not in the first generations, where goroutines running
// since before the trace are met first in their CPU samples, nor later.
// Brought back, it was written again from the first tick, under a second
// handle of the sink: a Tachyon file with two threads of one id, which
// the reader rejects (E_THREAD_COUNT).
func TestLateSampleOfEndedGoroutine(t *testing.T) {
	tb, src, mem := knownBackend()
	ms := gotrace.Time(time.Millisecond)
	at := churnThenSample(tb, src, 100, 10000, 1*ms)
	if tb.recs.live != 0 {
		t.Fatalf("first generation: a sample after its goroutine's end made %d live", tb.recs.live)
	}
	// One there before the trace and met only at its end.
	tb.handle(&gotrace.Event{Kind: gotrace.Transition, Time: at, G: 50, From: gotrace.GoRunning, To: gotrace.GoNotExist, Stack: 1})
	tb.handle(&gotrace.Event{Kind: gotrace.Sample, Time: at + 1, G: 50, Stack: 1})
	if tb.recs.live != 0 {
		t.Fatalf("first generation: a sample after the end of a goroutine met at its end made %d live", tb.recs.live)
	}
	for gen := range 3 {
		tb.handle(&gotrace.Event{Kind: gotrace.Sync, Time: at + gotrace.Time(gen)*ms})
	}
	churnThenSample(tb, src, 20000, 10000, at+5*ms)
	if tb.recs.live != 0 {
		t.Fatalf("fourth generation: a sample after its goroutine's end made %d live", tb.recs.live)
	}
	tb.finish(false)
	if ids := mem.twice(); len(ids) > 0 {
		t.Errorf("goroutines given two handles: %v", ids)
	}
	if st := tb.em.cpuUnplaced; st != 3 {
		t.Errorf("%d CPU samples unplaced, want the 3 of ended goroutines", st)
	}
}

// TestSampleBeforeFirstReport: a goroutine running since before the trace,
// met first in a CPU sample, is sampled from the first tick.
func TestSampleBeforeFirstReport(t *testing.T) {
	tb, _, _ := knownBackend()
	ms := gotrace.Time(time.Millisecond)
	tb.handle(&gotrace.Event{Kind: gotrace.Sample, Time: 5 * ms, G: 7, Stack: 1})
	if tb.recs.live != 1 {
		t.Fatalf("%d live after the sample of a goroutine not reported yet, want 1", tb.recs.live)
	}
}
