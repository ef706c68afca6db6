package sampler

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/gotrace"
	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/tachyon"
)

// countSink is a Sink that counts each goroutine's samples and checks
// that they fall on an even grid, without keeping them: tests of many
// goroutines.
type countSink struct {
	mu sync.Mutex
	frameTable
	gs []*countGoroutine
}

// countGoroutine is a countSink's handle: its samples' count, first and
// last timestamps, the steps between them that were not step, and whether
// a stack of its showed fn.
type countGoroutine struct {
	m           *countSink
	id          uint64
	n           uint64
	first, last uint64
	step        uint64
	uneven      int
	started     bool
	match       bool
}

func newCountSink() *countSink { return &countSink{frameTable: newFrameTable()} }

func (m *countSink) Frame(f tachyon.Frame) uint32 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.intern(f)
}

func (m *countSink) Goroutine(id uint64) Goroutine {
	g := &countGoroutine{m: m, id: id, step: uint64(1e6 / DefaultRate)}
	m.mu.Lock()
	m.gs = append(m.gs, g)
	m.mu.Unlock()
	return g
}

// add counts n samples at ts, ts+step, ...
func (g *countGoroutine) add(ts, step uint64, n int) {
	if g.n > 0 && ts != g.last+g.step {
		g.uneven++
	}
	if n > 1 && step != g.step {
		g.uneven++
	}
	if g.n == 0 {
		g.first = ts
	}
	g.n += uint64(n)
	g.last = ts + uint64(n-1)*step
}

func (g *countGoroutine) Write(ts uint64, status tachyon.Status, stack []uint32) error {
	g.m.mu.Lock()
	for _, idx := range stack {
		if strings.HasSuffix(g.m.frames[idx].Func, "sampler.blockChan2") {
			g.match = true
		}
	}
	g.m.mu.Unlock()
	g.started = true
	g.add(ts, g.step, 1)
	return nil
}

func (g *countGoroutine) RepeatEvery(ts, step uint64, n int, status tachyon.Status) error {
	if !g.started {
		return fmt.Errorf("repeat before goroutine %d's first sample", g.id)
	}
	g.add(ts, step, n)
	return nil
}

func (g *countGoroutine) Flush()  {}
func (g *countGoroutine) Forget() {}

// TestTicksExactAtScale checks wall mode's count at many goroutines: each
// of 50,000 goroutines parked throughout (5,000 under the race detector)
// has one sample per tick, on the tick grid, and no more: as many as
// Stats.Ticks, the last at or before the Stop request, however long the
// runtime's tracer takes to stop.
func TestTicksExactAtScale(t *testing.T) {
	n := 50000
	if testutil.Race {
		n = 5000
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { blockChan2(stop, i%7) })
	}
	defer func() { close(stop); wg.Wait() }()
	for runtime.NumGoroutine() < n {
		time.Sleep(10 * time.Millisecond)
	}
	sink := newCountSink()
	s, err := Start(Config{Mode: Wall, Rate: DefaultRate, Backend: Trace}, sink)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second)
	st, err := s.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if st.Backend != Trace {
		t.Fatalf("backend %v (%s), want the trace", st.Backend, st.Fallback)
	}
	stopUS := uint64(s.em.stopWall.Load() / 1000)
	parked, first := 0, uint64(0)
	for _, g := range sink.gs {
		if !g.match {
			continue
		}
		if parked++; parked == 1 {
			first = g.first
		}
		switch {
		case g.first != first:
			t.Fatalf("goroutine %d: first sample at %d us, another's at %d", g.id, g.first, first)
		case g.n != st.Ticks:
			t.Fatalf("goroutine %d: %d samples, want one per tick: %d", g.id, g.n, st.Ticks)
		case g.uneven > 0:
			t.Fatalf("goroutine %d: %d samples off the tick grid", g.id, g.uneven)
		case g.last > stopUS:
			t.Fatalf("goroutine %d: last sample at %d us, %d us after the Stop request", g.id, g.last, g.last-stopUS)
		}
	}
	if parked != n {
		t.Fatalf("%d parked goroutines sampled, want %d", parked, n)
	}
	t.Logf("%d goroutines, %d ticks each, %.2f Hz", parked, st.Ticks, st.AchievedHz)
}

// TestStopParseBound: a parse that passes MaxStopParse once the tracer has
// stopped ends there: every tick parsed is written, and the samples of the
// ticks after it, up to the Stop request, of every goroutine known then,
// are counted as unparsed and logged: a parked goroutine's samples
// written and its ticks unparsed add up to its samples in the whole trace.
func TestStopParseBound(t *testing.T) {
	data := parked3000Trace(t)
	start := time.Now()
	parse := func(stopWall int64, cutAt int) (*emitter, *countSink, []string) {
		src, err := newSource(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		defer closeSource(src)
		sink := newCountSink()
		var logs []string
		em := newEmitter(Config{Mode: Wall, Rate: DefaultRate, Log: func(m string) { logs = append(logs, m) }}, sink)
		em.stopWall.Store(stopWall)
		tb := newTraceBackend(em, nil, start)
		// The tracer "stops" long ago as the cutAt-th generation begins:
		// the parse ends there.
		tb.rd = &onSync{source: src, n: cutAt, f: func() { tb.handedOver.Store(1) }}
		if err := tb.consume(); err != nil {
			t.Fatal(err)
		}
		return em, sink, logs
	}
	whole, wholeSink, _ := parse(0, 0)
	last := uint64(0)
	counts := map[uint64]uint64{}
	for _, g := range wholeSink.gs {
		last = max(last, g.last)
		if g.match {
			counts[g.id] = g.n
		}
	}
	em, sink, logs := parse(int64(last)*1000+999, 2) // the last tick, to the nanosecond
	if em.unparsed == 0 || len(logs) != 1 || !strings.Contains(logs[0], "not written") {
		t.Fatalf("%d samples unparsed, log %q: want the parse cut short and said", em.unparsed, logs)
	}
	cut := whole.ticks - em.ticks
	parked := 0
	for _, g := range sink.gs {
		if g.uneven > 0 {
			t.Errorf("goroutine %d: %d samples off the tick grid", g.id, g.uneven)
		}
		if !g.match {
			continue
		}
		parked++
		if g.n+cut != counts[g.id] {
			t.Errorf("goroutine %d: %d samples written and %d ticks not parsed, want %d in all", g.id, g.n, cut, counts[g.id])
		}
	}
	if parked < 3000 || em.unparsed < cut*uint64(parked) {
		t.Errorf("%d parked goroutines, %d samples unparsed: want 3000, %d ticks each at least", parked, em.unparsed, cut)
	}
	t.Logf("%d of %d ticks parsed; %s", em.ticks, whole.ticks, logs[0])
}

// onSync is a source that calls f as its n-th Sync comes (n > 0).
type onSync struct {
	source
	n int
	f func()
}

func (o *onSync) NextEvent() (*gotrace.Event, error) {
	ev, err := o.source.NextEvent()
	if err == nil && ev.Kind == gotrace.Sync {
		if o.n--; o.n == 0 {
			o.f()
		}
	}
	return ev, err
}

// wmSink is a countSink that takes watermarks and checks that no sample
// written is older than the latest.
type wmSink struct {
	*countSink
	wm    uint64
	marks int
	early int // samples written older than the watermark
}

func (w *wmSink) Watermark(ts uint64) {
	if ts > w.wm {
		w.wm, w.marks = ts, w.marks+1
	}
}

func (w *wmSink) Goroutine(id uint64) Goroutine {
	return wmGoroutine{w.countSink.Goroutine(id).(*countGoroutine), w}
}

type wmGoroutine struct {
	*countGoroutine
	w *wmSink
}

func (g wmGoroutine) Write(ts uint64, status tachyon.Status, stack []uint32) error {
	if ts < g.w.wm {
		g.w.early++
	}
	return g.countGoroutine.Write(ts, status, stack)
}

func (g wmGoroutine) RepeatEvery(ts, step uint64, n int, status tachyon.Status) error {
	if ts < g.w.wm {
		g.w.early++
	}
	return g.countGoroutine.RepeatEvery(ts, step, n, status)
}

// TestWatermarkHolds: on a busy service's trace (goroutines that start,
// run, block and end, beside parked ones), no sample is written older
// than a watermark the sampler gave before it, and the watermark moves.
func TestWatermarkHolds(t *testing.T) {
	data := recordBusyTrace(t, 4500*time.Millisecond)
	src, err := newSource(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer closeSource(src)
	sink := &wmSink{countSink: newCountSink()}
	tb := newTraceBackend(newEmitter(Config{Mode: Wall, Rate: DefaultRate}, sink), src, time.Now())
	if err := tb.consume(); err != nil {
		t.Fatal(err)
	}
	if sink.early > 0 || sink.marks < 2 {
		t.Fatalf("%d writes older than the watermark; the watermark moved %d times: want none, and some", sink.early, sink.marks)
	}
	t.Logf("the watermark moved %d times, to %d us", sink.marks, sink.wm)
}

// TestSettleEarly: settling early (what the parser does between two
// generations while Stop waits for the runtime's tracer) writes every
// parked goroutine's ticks passed, and the samples in the end are those
// of a parse that did not.
func TestSettleEarly(t *testing.T) {
	data := parked3000Trace(t)
	start := time.Now()
	parse := func(early bool) *countSink {
		src, err := newSource(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		defer closeSource(src)
		sink := newCountSink()
		tb := newTraceBackend(newEmitter(Config{Mode: Wall, Rate: DefaultRate}, sink), nil, start)
		tb.inPlace = true
		tb.rd = src
		if early {
			tb.rd = &onSync{source: src, n: 3, f: func() {
				tb.settleEarly()
				behind := 0
				for _, g := range sink.gs {
					if g.match && g.n != tb.em.ticks {
						behind++
					}
				}
				if behind > 0 || tb.em.ticks == 0 {
					t.Errorf("after settling early at tick %d, %d parked goroutines have fewer samples", tb.em.ticks, behind)
				}
			}}
		}
		if err := tb.consume(); err != nil {
			t.Fatal(err)
		}
		return sink
	}
	want, got := parse(false), parse(true)
	early := map[uint64]*countGoroutine{}
	for _, g := range got.gs {
		early[g.id] = g
	}
	parked := 0
	for _, g := range want.gs {
		o := early[g.id]
		if o == nil || o.n != g.n || o.first != g.first || o.last != g.last || o.uneven != g.uneven {
			t.Fatalf("goroutine %d: %+v settled early, %+v not", g.id, o, g)
		}
		if g.match {
			parked++
		}
	}
	if len(got.gs) != len(want.gs) || parked < 3000 {
		t.Fatalf("%d goroutines settled early, %d not; %d parked", len(got.gs), len(want.gs), parked)
	}
}

// parked3000 is the trace TestStopParseBound and TestSettleEarly read
// (3,000 parked goroutines and a spinner, 2.5 s), recorded once per
// process: both only parse it, and its recording is most of their time.
var parked3000 struct {
	once sync.Once
	data []byte
}

// parked3000Trace returns parked3000's trace, recording it on first use.
func parked3000Trace(t *testing.T) []byte {
	t.Helper()
	parked3000.once.Do(func() { parked3000.data = recordTrace(t, 3000, 2500*time.Millisecond) })
	if parked3000.data == nil {
		t.Fatal("the shared trace of 3,000 parked goroutines could not be recorded (see the first test that asked for it)")
	}
	return parked3000.data
}
