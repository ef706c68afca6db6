package sampler

import (
	"bytes"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/gotrace"
)

// TestUnmetAtCut: when Stop's bound cuts the parse, the goroutines there
// as the tracer started that the parse never met (no event, no report)
// are counted in Unmet; those met by a report or at their end are not,
// nor those created in the trace.
func TestUnmetAtCut(t *testing.T) {
	src := &knownSource{known: map[uint64]bool{1: true, 2: true, 3: true, 9: true}, users: map[uint64]uint32{}}
	var logged []string
	em := newEmitter(Config{Mode: Wall, Rate: 100, Log: func(s string) { logged = append(logged, s) }}, newMemSink())
	tb := newTraceBackend(em, src, time.Now().Add(-time.Second))
	tb.startGs = 5 // goroutines 1 to 5; 4 and 5 are never met
	ms := gotrace.Time(time.Millisecond)
	tb.handle(&gotrace.Event{Kind: gotrace.Sync, Time: 1})
	tb.handle(&gotrace.Event{Kind: gotrace.Transition, Time: 1 * ms, G: 1, From: gotrace.GoUndetermined, To: gotrace.GoWaiting, Stack: 1})
	tb.handle(&gotrace.Event{Kind: gotrace.Transition, Time: 2 * ms, G: 2, From: gotrace.GoRunning, To: gotrace.GoNotExist, Stack: 1})
	tb.handle(&gotrace.Event{Kind: gotrace.Sample, Time: 3 * ms, G: 3, Stack: 1})
	tb.handle(&gotrace.Event{Kind: gotrace.Transition, Time: 4 * ms, G: 9, From: gotrace.GoNotExist, To: gotrace.GoRunnable, Stack: 1})
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
