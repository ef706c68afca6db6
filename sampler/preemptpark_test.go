package sampler

import (
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/gotrace"
	"github.com/gotachyon/profiler/tachyon"
)

// preemptSource is a knownSource whose wait reason 1 is the trace's
// "preempted".
type preemptSource struct{ knownSource }

func (s *preemptSource) Reason(i uint32) string {
	if i == 1 {
		return "preempted"
	}
	return ""
}

// TestPreemptedParkIsRunnable: the trace reports a goroutine the runtime
// suspends (for the GC's scan of its stack) as waiting for "preempted";
// it waits for nothing of the program's, and runtime.Stack says
// "preempted", which the snapshot backend reads as runnable. Its ticks are
// runnable in the trace backend too, not blocked under a [preempted] frame.
func TestPreemptedParkIsRunnable(t *testing.T) {
	const g = 7
	src := &preemptSource{knownSource{known: map[uint64]bool{g: true}, users: map[uint64]uint32{}}}
	mem := newMemSink()
	start := time.Now().Add(-time.Second) // trace time 1
	tb := newTraceBackend(newEmitter(Config{Mode: Wall, Rate: 100}, mem), src, start)
	ms := gotrace.Time(time.Millisecond)
	tb.handle(&gotrace.Event{Kind: gotrace.Sync, Time: 1})
	tb.handle(&gotrace.Event{Kind: gotrace.Transition, Time: 1 * ms, G: g, From: gotrace.GoUndetermined, To: gotrace.GoRunnable, Stack: 1})
	u := src.users[g]
	tb.handle(&gotrace.Event{Kind: gotrace.Transition, Time: 10 * ms, G: g, User: u, From: gotrace.GoRunnable, To: gotrace.GoRunning})
	tb.handle(&gotrace.Event{Kind: gotrace.Transition, Time: 100 * ms, G: g, User: u, From: gotrace.GoRunning, To: gotrace.GoWaiting, Reason: 1, Stack: 1})
	tb.handle(&gotrace.Event{Kind: gotrace.Transition, Time: 300 * ms, G: g, User: u, From: gotrace.GoWaiting, To: gotrace.GoRunnable})
	tb.handle(&gotrace.Event{Kind: gotrace.Transition, Time: 400 * ms, G: g, User: u, From: gotrace.GoRunnable, To: gotrace.GoRunning})
	tb.handle(&gotrace.Event{Kind: gotrace.Sync, Time: 500 * ms})
	tb.finish(false)

	from, to := uint64(start.Add(110*time.Millisecond).UnixMicro()), uint64(start.Add(290*time.Millisecond).UnixMicro())
	n := 0
	for _, sm := range mem.of(g) {
		if sm.ts < from || sm.ts >= to {
			continue
		}
		n++
		if st := sm.status.State(); st != tachyon.Runnable {
			t.Fatalf("a tick at %d µs, suspended by the runtime, is %v (stack %v), want runnable", sm.ts, st, sm.stack)
		}
	}
	if n == 0 {
		t.Fatal("no tick while suspended")
	}
}
