package sampler

import (
	"bytes"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/gotrace"
)

// TestUnmetAtCut: when Stop's bound cuts the parse, the goroutines live
// just after the tracer started that the parse never met (no event, no
// report) are counted in Unmet; not those met by a report, a CPU sample,
// their creation or their end after then, nor one that ended before.
func TestUnmetAtCut(t *testing.T) {
	src := &knownSource{known: map[uint64]bool{1: true, 2: true, 3: true, 6: true, 9: true}, users: map[uint64]uint32{}}
	var logged []string
	em := newEmitter(Config{Mode: Wall, Rate: 100, Log: func(s string) { logged = append(logged, s) }}, newMemSink())
	start := time.Now().Add(-time.Second)
	tb := newTraceBackend(em, src, start)
	ms := gotrace.Time(time.Millisecond)
	tb.handle(&gotrace.Event{Kind: gotrace.Sync, Time: 1})
	// Live at 10 ms: 1, 3, 4, 5, 6 and 9; 4 and 5 are never met.
	tb.liveWall.Store(start.Add(10 * time.Millisecond).UnixNano())
	tb.liveGs.Store(6)
	tb.handle(&gotrace.Event{Kind: gotrace.Transition, Time: 1 * ms, G: 1, From: gotrace.GoUndetermined, To: gotrace.GoWaiting, Stack: 1})
	tb.handle(&gotrace.Event{Kind: gotrace.Transition, Time: 2 * ms, G: 2, From: gotrace.GoRunning, To: gotrace.GoNotExist, Stack: 1})
	tb.handle(&gotrace.Event{Kind: gotrace.Sample, Time: 3 * ms, G: 3, Stack: 1})
	tb.handle(&gotrace.Event{Kind: gotrace.Transition, Time: 4 * ms, G: 9, From: gotrace.GoNotExist, To: gotrace.GoRunnable, Stack: 1})
	tb.handle(&gotrace.Event{Kind: gotrace.Transition, Time: 5 * ms, G: 7, From: gotrace.GoNotExist, To: gotrace.GoRunnable, Stack: 1})
	tb.handle(&gotrace.Event{Kind: gotrace.Transition, Time: 6 * ms, G: 7, From: gotrace.GoRunnable, To: gotrace.GoNotExist, Stack: 1})
	tb.handle(&gotrace.Event{Kind: gotrace.Transition, Time: 20 * ms, G: 6, From: gotrace.GoWaiting, To: gotrace.GoNotExist, Stack: 1})
	tb.handle(&gotrace.Event{Kind: gotrace.Transition, Time: 21 * ms, G: 8, From: gotrace.GoNotExist, To: gotrace.GoRunnable, Stack: 1})
	tb.cutShort()
	if em.unmet != 2 {
		t.Errorf("Unmet %d, want 2 (goroutines 4 and 5)", em.unmet)
	}
	if len(logged) != 1 {
		t.Fatalf("logged %q, want one line", logged)
	}
}

// TestNoEndAtReportsInFirstGeneration: the parse at Stop does not end at
// a status report left out before the first generation is parsed: a
// report there may be the first of a goroutine parked since before the
// trace, and ending there would leave that goroutine out.
func TestNoEndAtReportsInFirstGeneration(t *testing.T) {
	src, err := newSource(bytes.NewReader(traceFor(t, 20*time.Millisecond)))
	if err != nil {
		t.Fatal(err)
	}
	em := newEmitter(Config{Mode: Wall, Rate: DefaultRate}, newMemSink())
	tb := newTraceBackend(em, src, time.Now())
	tb.endAtStop()
	gr := src.(*gotrace.Reader)
	tb.clockSet = true
	em.stopWall.Store(1)
	tb.handedOver.Store(1)
	far := gotrace.Time(1 << 62)
	if gr.Enough(far) {
		t.Error("the parse ends at a report in the first generation")
	}
	tb.handle(&gotrace.Event{Kind: gotrace.Sync, Time: 1})
	tb.handle(&gotrace.Event{Kind: gotrace.Sync, Time: 2})
	if !gr.Enough(far) {
		t.Error("the parse does not end at a report once every goroutine was reported")
	}
}
