package sampler

import (
	"bytes"
	"context"
	"errors"
	"io"
	"runtime"
	rtrace "runtime/trace"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/goid"
	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/internal/workload/benchload"
)

// TestAppTraceWhileSampling: the sampler reads the trace through the
// flight recorder's slot, so the application's own trace.Start works while
// it runs (net/http/pprof's /debug/pprof/trace, a tracing library's
// periodic traces), started before the sampler or during it, and gives a
// whole trace; the sampler keeps the trace backend throughout.
func TestAppTraceWhileSampling(t *testing.T) {
	for _, before := range []bool{false, true} {
		var app bytes.Buffer
		if before {
			if err := rtrace.Start(&app); err != nil {
				t.Fatal(err)
			}
		}
		w := startWorkload(t, false)
		sink := newMemSink()
		s, err := Start(Config{Backend: Trace}, sink)
		if err != nil {
			t.Fatal(err)
		}
		if !before {
			time.Sleep(50 * time.Millisecond)
			if err := rtrace.Start(&app); err != nil {
				t.Fatalf("the application's trace.Start while the sampler runs: %v", err)
			}
		}
		rtrace.Log(context.Background(), "app", "marker")
		time.Sleep(100 * time.Millisecond)
		rtrace.Stop()
		time.Sleep(50 * time.Millisecond)
		st, err := s.Stop()
		w.Stop()
		if err != nil {
			t.Fatal(err)
		}
		if st.Backend != Trace || st.Fallback != "" || len(st.Switches) != 0 {
			t.Fatalf("backend %v, fallback %q, switches %v; want the trace throughout", st.Backend, st.Fallback, st.Switches)
		}
		wantState(t, sink, w.ids, "chan", 0, "[chan receive]", "sampler.blockChan")
		if n := countEvents(t, &app, "the application's trace"); n < 10 {
			t.Fatalf("the application's trace has %d events", n)
		}
	}
}

// TestFlightRecorderFeedWhole: through the flight recorder, snapshots
// every 20 ms under a churn of goroutines, the parser reads one continuous
// trace (its reader refuses a missing generation) and a parked goroutine
// has a sample at every tick.
func TestFlightRecorderFeedWhole(t *testing.T) {
	defer func(d time.Duration) { frEvery = d }(frEvery)
	frEvery = 20 * time.Millisecond
	defer benchload.Churn(5000)()
	park := make(chan struct{})
	defer close(park)
	ids := make(chan uint64)
	go func() { ids <- goid.Current(); blockChan2(park, 3) }()
	parked := <-ids
	sink := newMemSink()
	s, err := Start(Config{Backend: Trace, Rate: 100}, sink)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	st, err := s.Stop()
	if err != nil {
		t.Fatal(err)
	}
	ss := sink.of(parked)
	if len(ss) < 20 {
		t.Fatalf("parked goroutine: %d samples (stats %+v)", len(ss), st)
	}
	for i := 1; i < len(ss); i++ {
		if d := ss[i].ts - ss[i-1].ts; d != 10000 {
			t.Fatalf("parked goroutine: samples %d and %d are %d µs apart, want 10,000 (stats %+v)", i-1, i, d, st)
		}
	}
}

// TestFlightRecorderFeedLast: the generation in progress at Stop is read
// too. With no snapshot but the first and Stop's, a goroutine that blocks
// after Start is seen only through Stop's.
func TestFlightRecorderFeedLast(t *testing.T) {
	defer func(d time.Duration) { frEvery = d }(frEvery)
	frEvery = time.Hour
	sink := newMemSink()
	s, err := Start(Config{Backend: Trace}, sink)
	if err != nil {
		t.Fatal(err)
	}
	late := make(chan struct{})
	defer close(late)
	ids := make(chan uint64)
	go func() { ids <- goid.Current(); blockLate(late) }()
	id := <-ids
	time.Sleep(100 * time.Millisecond)
	if _, err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	for _, smp := range sink.of(id) {
		if smp.hasFunc("sampler.blockLate") {
			return
		}
	}
	t.Errorf("a goroutine that blocked after Start has no sample with its stack: %v", sink.of(id))
}

//go:noinline
func blockLate(ch chan struct{}) { <-ch }

// TestFlightRecorderFeedBehind: a parser held up longer than the flight
// recorder's window ends the trace with a clear error instead of reading a
// trace with a hole, and Stop returns it at once.
func TestFlightRecorderFeedBehind(t *testing.T) {
	defer func(d, a time.Duration) { frEvery, frMinAge = d, a }(frEvery, frMinAge)
	frEvery, frMinAge = 20*time.Millisecond, 50*time.Millisecond
	sink := newGate(newDropSink())
	s, err := Start(Config{Backend: Trace}, sink)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-sink.held:
	case <-time.After(stepLimit):
		t.Fatal("the sampler never wrote")
	}
	// The application's trace.Start and Stop end generations while the
	// parser is held.
	for range 3 {
		if err := rtrace.Start(io.Discard); err != nil {
			t.Fatal(err)
		}
		time.Sleep(60 * time.Millisecond)
		rtrace.Stop()
	}
	close(sink.open)
	var st Stats
	done := make(chan struct{})
	go func() { defer close(done); st, err = s.Stop() }()
	select {
	case <-done:
	case <-time.After(stepLimit):
		t.Fatal("Stop did not return")
	}
	if !errors.Is(err, errBehind) {
		t.Fatalf("Stop: %v (stats %+v), want the parser behind the flight recorder", err, st)
	}
	t.Log(err)
}

// gate is a sink that keeps nothing and holds its first write until open
// is closed.
type gate struct {
	*memSink
	once   sync.Once
	held   chan struct{}
	open   chan struct{}
	writes atomic.Int64
}

// newGate returns a gate, closed, in front of m.
func newGate(m *memSink) *gate {
	g := &gate{memSink: m, held: make(chan struct{}), open: make(chan struct{})}
	g.hook = g.hold
	return g
}

func (g *gate) hold() error {
	g.writes.Add(1)
	g.once.Do(func() { close(g.held); <-g.open })
	return nil
}

// TestFlightRecorderFeedBehindAuto: under Auto, a parser held up longer
// than the flight recorder's window does not end the profile: the
// supervisor goes on through trace.Start, says so in Stats.Switches, and
// the samples go on, each goroutine counted once.
func TestFlightRecorderFeedBehindAuto(t *testing.T) {
	defer func(d, a time.Duration) { frEvery, frMinAge = d, a }(frEvery, frMinAge)
	frEvery, frMinAge = 20*time.Millisecond, 50*time.Millisecond
	// No switch for the costs: the trace's first moments can look dear.
	defer func(d time.Duration) { firstDwell = d }(firstDwell)
	firstDwell = time.Hour
	sink := newGate(newMemSink())
	s, err := Start(Config{Backend: Auto}, sink)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-sink.held:
	case <-time.After(stepLimit):
		t.Fatal("the sampler never wrote")
	}
	for range 3 {
		if err := rtrace.Start(io.Discard); err != nil {
			t.Fatal(err)
		}
		time.Sleep(60 * time.Millisecond)
		rtrace.Stop()
	}
	close(sink.open)
	resynced := testutil.WaitFor(stepLimit, func() bool { return s.auto.resyncs.Load() > 0 })
	n := sink.writes.Load()
	time.Sleep(300 * time.Millisecond)
	st, err := s.Stop()
	if err != nil || !resynced {
		t.Fatalf("Stop: %v, resynced %v (stats %+v); want no error and trace.Start", err, resynced, st)
	}
	if len(st.Switches) != 1 || st.Switches[0].To != Trace || !strings.Contains(st.Switches[0].Why, "fell behind") {
		t.Fatalf("switches %+v, want one to the trace, through trace.Start", st.Switches)
	}
	if sink.writes.Load() == n {
		t.Error("no samples after the resync")
	}
	// The backend that fell behind hands its goroutines over: the next
	// one neither counts them again nor asks the sink for them again.
	ids := map[uint64]bool{}
	for _, m := range sink.all() {
		ids[m.gid] = true
	}
	if st.Goroutines != len(ids) {
		t.Errorf("Stats.Goroutines %d, want the %d goroutines sampled", st.Goroutines, len(ids))
	}
	for id := range ids {
		if n := sink.handles(id); n != 1 {
			t.Errorf("the sink gave out %d handles for goroutine %d, want 1", n, id)
		}
	}
}

// TestManyGoroutinesTakeTraceStart: with more goroutines than
// frMaxGoroutines, the flight recorder's snapshots would cost more than
// trace.Start, whose slot the backend takes first: the application's
// flight recorder starts beside it, its trace.Start does not.
func TestManyGoroutinesTakeTraceStart(t *testing.T) {
	defer func(n int) { frMaxGoroutines = n }(frMaxGoroutines)
	frMaxGoroutines = runtime.NumGoroutine() - 1
	s, err := Start(Config{Backend: Trace}, newMemSink())
	if err != nil {
		t.Fatal(err)
	}
	fr := rtrace.NewFlightRecorder(rtrace.FlightRecorderConfig{})
	frErr := fr.Start()
	startErr := rtrace.Start(io.Discard)
	if startErr == nil {
		rtrace.Stop()
	}
	if frErr == nil {
		snapshotFR(t, fr, "beside the sampler")
		fr.Stop()
	}
	if _, err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if frErr != nil || startErr == nil {
		t.Fatalf("the application's flight recorder: %v, its trace.Start: %v; want the recorder to start and trace.Start to fail", frErr, startErr)
	}
}

// TestAutoLeavesFlightRecorderWhenDear: under Auto, once the goroutines
// outnumber frMaxGoroutines, the supervisor moves from the flight
// recorder's slot to trace.Start's, says so, and the application's flight
// recorder can start.
func TestAutoLeavesFlightRecorderWhenDear(t *testing.T) {
	defer func(n int, d time.Duration) { frMaxGoroutines, firstDwell = n, d }(frMaxGoroutines, firstDwell)
	frMaxGoroutines, firstDwell = runtime.NumGoroutine()+20, time.Hour
	s, err := Start(Config{Backend: Auto}, newMemSink())
	if err != nil {
		t.Fatal(err)
	}
	defer benchload.Park(100)()
	moved := testutil.WaitFor(stepLimit, func() bool { return s.auto.resyncs.Load() > 0 })
	fr := rtrace.NewFlightRecorder(rtrace.FlightRecorderConfig{})
	frErr := fr.Start()
	if frErr == nil {
		fr.Stop()
	}
	st, err := s.Stop()
	if err != nil || !moved {
		t.Fatalf("Stop: %v, moved %v (stats %+v)", err, moved, st)
	}
	if len(st.Switches) != 1 || st.Switches[0].To != Trace || !strings.Contains(st.Switches[0].Why, "goroutines") {
		t.Fatalf("switches %+v, want one to the trace, through trace.Start", st.Switches)
	}
	if frErr != nil {
		t.Fatalf("the application's flight recorder after the move: %v", frErr)
	}
}

// TestSnapshotPace checks frFeed's pace: frEvery, and half that once the
// latest snapshot's batches came at frBusyRate or more.
func TestSnapshotPace(t *testing.T) {
	t0 := time.Now()
	for _, tc := range []struct {
		name   string
		fresh  int
		prevAt time.Time
		want   time.Duration
	}{
		{"the first snapshot", 10 * frBusyRate, time.Time{}, frEvery},
		{"quiet", frBusyRate - 1, t0.Add(-time.Second), frEvery},
		{"busy", frBusyRate, t0.Add(-time.Second), frEvery / 2},
		{"busy over half a second", frBusyRate / 2, t0.Add(-time.Second / 2), frEvery / 2},
		{"quiet over two seconds", frBusyRate, t0.Add(-2 * time.Second), frEvery},
	} {
		f := &frFeed{fresh: tc.fresh, at: t0, prevAt: tc.prevAt}
		if got := f.pace(); got != tc.want {
			t.Errorf("%s: %d bytes: pace %v, want %v", tc.name, tc.fresh, got, tc.want)
		}
	}
}
