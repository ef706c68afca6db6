package sampler

import (
	"bytes"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/gotrace"
	"github.com/gotachyon/profiler/tachyon"
)

// TestStopEndsAtReports: once the trace is whole in the parser's hands
// and endMargin past the Stop request, the parse ends at the first status
// report the reader leaves out: the samples are those of the whole
// parse, goroutine by goroutine, sample for sample, and fewer events are
// read. One thing may differ: a runtime system goroutine's stack is its
// innermost runtime frame (under "[runtime]"), which the runtime's report
// names otherwise than its block event (runtime.gopark, where the event
// shows runtime.goparkunlock), and a report read after the request gives
// the ticks not yet written its form; ended before, they keep the
// event's. So a runtime system goroutine's samples are compared but for
// their stacks. The recording has no goroutine that runs for long (whose
// running ticks before the request CPU samples past the margin could
// pay on a loaded machine): parked goroutines, and one that wakes every
// 5 ms.
func TestStopEndsAtReports(t *testing.T) {
	data := recordParkedWaking(t, 500, 2500*time.Millisecond)
	start := time.Now()
	type parsed struct {
		samples map[uint64][]memSample
		ticks   uint64
		events  int
		syncs   []int64 // the generations' starts, wall ns
	}
	parse := func(stopWall int64, end bool) parsed {
		src, err := newSource(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		sink := newMemSink()
		em := newEmitter(Config{Mode: Wall, Rate: DefaultRate}, sink)
		em.stopWall.Store(stopWall)
		tb := newTraceBackend(em, src, start)
		if end {
			tb.endAtStop() // as Stop does between two generations
			tb.handedOver.Store(time.Now().UnixNano())
		}
		var p parsed
		tb.rd = &eventCount{source: src, n: &p.events, sync: func(at gotrace.Time) {
			p.syncs = append(p.syncs, tb.wallNS(at))
		}}
		if err := tb.consume(); err != nil {
			t.Fatal(err)
		}
		p.ticks = em.ticks
		p.samples = map[uint64][]memSample{}
		for _, s := range sink.samples {
			p.samples[s.gid] = append(p.samples[s.gid], s)
		}
		return p
	}
	whole := parse(0, false)
	if len(whole.syncs) < 3 {
		t.Fatalf("%d generations traced, want two at least", len(whole.syncs)-1)
	}
	// The request 300 ms before the second generation begins: the
	// runtime's reports at the first one's end are past the margin.
	stopWall := whole.syncs[1] + (whole.syncs[2]-whole.syncs[1])/2
	stopWall = max(stopWall, whole.syncs[2]-int64(300*time.Millisecond))
	full, cut := parse(stopWall, false), parse(stopWall, true)
	if cut.events >= full.events {
		t.Fatalf("%d events read with the end at the reports, %d without: want fewer", cut.events, full.events)
	}
	if cut.ticks != full.ticks || cut.ticks == 0 {
		t.Fatalf("%d ticks passed with the end at the reports, %d without", cut.ticks, full.ticks)
	}
	if len(cut.samples) != len(full.samples) {
		t.Fatalf("%d goroutines sampled with the end at the reports, %d without", len(cut.samples), len(full.samples))
	}
	for g, want := range full.samples {
		got := cut.samples[g]
		if len(got) != len(want) {
			t.Fatalf("goroutine %d: %d samples with the end at the reports, %d without", g, len(got), len(want))
		}
		for i := range want {
			if a, b := sampleText(got[i]), sampleText(want[i]); a != b {
				t.Fatalf("goroutine %d, sample %d of %d: %s with the end at the reports, %s without", g, i, len(want), a, b)
			}
		}
	}
	t.Logf("%d of %d events read, %d ticks, %d goroutines, %d generations", cut.events, full.events, cut.ticks, len(cut.samples), len(whole.syncs)-1)
}

// sampleText says what a sample is, but a runtime system goroutine's
// status and stack (see TestStopEndsAtReports): one under "[runtime]", or
// one blocked as a system goroutine (the runtime's cleanup goroutine,
// which can wake during the recording as a collection queues cleanups).
func sampleText(s memSample) string {
	if n := len(s.stack); n > 0 && (s.stack[n-1].Func == tachyon.RuntimeRoot || s.stack[0] == systemWait) {
		return fmt.Sprintf("%d (a runtime system goroutine's)", s.ts)
	}
	return fmt.Sprintf("%d %d %v", s.ts, s.status, s.stack)
}

// systemWait is the frame of a goroutine blocked as the runtime's own.
var systemWait = tachyon.WaitFrame("system goroutine wait")

// recordParkedWaking records d of execution trace of n goroutines parked
// at seven depths and one that wakes every 5 ms.
func recordParkedWaking(t testing.TB, n int, d time.Duration) []byte {
	stop := make(chan struct{})
	var wg sync.WaitGroup
	defer wg.Wait()
	defer close(stop)
	for i := range n {
		wg.Go(func() { blockChan2(stop, i%7) })
	}
	wg.Go(func() {
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	})
	time.Sleep(20 * time.Millisecond)
	return traceFor(t, d)
}

// eventCount is a source that counts the events read and passes each
// Sync's time to sync.
type eventCount struct {
	source
	n    *int
	sync func(gotrace.Time)
}

func (c *eventCount) NextEvent() (*gotrace.Event, error) {
	ev, err := c.source.NextEvent()
	if err == nil {
		*c.n++
		if ev.Kind == gotrace.Sync {
			c.sync(ev.Time)
		}
	}
	return ev, err
}

// TestSettleEarlyYields: the early settle, which runs while the runtime
// stops its tracer, lets another goroutine run on its P before it is
// done: with one P, a goroutine made runnable just before it has run by
// the time it returns (it would not have: the settle does not block).
func TestSettleEarlyYields(t *testing.T) {
	data := recordParkedWaking(t, 50, 300*time.Millisecond)
	src, err := newSource(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	tb := newTraceBackend(newEmitter(Config{Mode: Wall, Rate: DefaultRate}, newMemSink()), src, time.Now())
	if err := tb.consume(); err != nil {
		t.Fatal(err)
	}
	if tb.recs.made() == 0 {
		t.Fatal("no goroutine recorded")
	}
	tb.inPlace = true // as for the pipe's trace, read where it lies
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var ran atomic.Bool
	go ran.Store(true)
	tb.settleEarly()
	if !ran.Load() {
		t.Error("a runnable goroutine did not run while the early settle ran on the one P")
	}
}
