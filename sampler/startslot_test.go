package sampler

import (
	"io"
	rtrace "runtime/trace"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// countWriter counts the bytes written to it.
type countWriter struct{ n atomic.Int64 }

func (c *countWriter) Write(b []byte) (int, error) { c.n.Add(int64(len(b))); return len(b), nil }

// appTakesSlot starts a sampler of backend beside the application's
// flight recorder, so that it traces through trace.Start's slot. Then, as
// an application does, it calls trace.Start, which fails, then its
// deferred trace.Stop, which ends the sampler's trace, and starts a trace
// of its own into the writer it returns, stopped at the test's end.
func appTakesSlot(t *testing.T, backend Backend) (*Sampler, *countWriter) {
	t.Helper()
	startLost = 1500 * time.Millisecond
	fr := newFR(t)
	t.Cleanup(func() { fr.Stop() })
	var s *Sampler
	var err error
	within(stepLimit, "Start", func() { s, err = Start(Config{Backend: backend}, newMemSink()) })
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	if err := rtrace.Start(&countWriter{}); err == nil {
		rtrace.Stop()
		why := ""
		if s.Backend() == Snapshot {
			why = retryMark + "Auto ran snapshots (the trace looked dear): "
		}
		t.Fatal(why + "the application's trace.Start succeeded while the sampler traces beside its flight recorder")
	}
	rtrace.Stop() // the application's deferred Stop: it ends the sampler's trace
	app := &countWriter{}
	if err := rtrace.Start(app); err != nil {
		t.Fatalf("the application's trace.Start after its trace.Stop: %v", err)
	}
	t.Cleanup(rtrace.Stop)
	return s, app
}

// stillWritten fails t unless app's trace gets more bytes within
// stepLimit: the sampler's Stop left it running.
func stillWritten(t *testing.T, app *countWriter) {
	t.Helper()
	n := app.n.Load()
	deadline := time.Now().Add(stepLimit)
	for app.n.Load() == n && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if app.n.Load() == n {
		t.Fatalf("the application's trace got nothing in %v after the sampler's Stop: Stop stopped it", stepLimit)
	}
}

// TestStopLeavesAppTrace: beside the application's flight recorder, the
// trace backend runs in trace.Start's slot. The application's trace.Stop
// (after a trace.Start of its own that failed) ends the backend's trace,
// and the application then starts a trace of its own in the slot. The
// sampler's Stop must not stop that trace, which is the application's.
func TestStopLeavesAppTrace(t *testing.T) {
	if !inChild(t, 4*stepLimit) {
		return
	}
	defer func(d time.Duration) { startLost = d }(startLost)
	s, app := appTakesSlot(t, Trace)
	time.Sleep(2 * startLost)
	var err error
	within(stepLimit, "Stop", func() { _, err = s.Stop() })
	if err != nil {
		t.Fatal(err)
	}
	stillWritten(t, app)
}

// TestAutoLeavesAppTrace: as TestStopLeavesAppTrace, under Auto, which
// must see the trace's end while the profile runs, say so, and go on in
// snapshots, and whose Stop then leaves the application's trace alone.
//
// A switch of Auto's own (the trace looked dear) within startLost of the
// application's trace.Stop stops the application's trace, which cannot be
// told from the sampler's until then: Auto is kept from switching on
// cost (its dwell, as frslot_test.go's tests keep it), which a loaded
// machine can make look dear, since the test is of the trace's end; a
// child that meets a switch all the same is run again.
func TestAutoLeavesAppTrace(t *testing.T) {
	if !inChildTries(t, 4*stepLimit, 3) {
		return
	}
	defer func(d, dw time.Duration) { startLost, firstDwell = d, dw }(startLost, firstDwell)
	firstDwell = time.Hour
	s, app := appTakesSlot(t, Auto)
	deadline := time.Now().Add(2*startLost + stepLimit)
	for s.Backend() != Snapshot && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	b := s.Backend()
	var st Stats
	var err error
	within(stepLimit, "Stop", func() { st, err = s.Stop() })
	if err != nil {
		t.Fatal(err)
	}
	for _, sw := range st.Switches {
		if !strings.Contains(sw.Why, "trace.Stop") {
			t.Fatalf("%sAuto switched on its own (%+v), and may have stopped the application's trace before it could tell", retryMark, st.Switches)
		}
	}
	if b != Snapshot {
		t.Errorf("backend %v %v after the application's trace.Stop: want snapshots", b, 2*startLost+stepLimit)
	}
	if len(st.Switches) == 0 || !strings.Contains(st.Switches[0].Why, "trace.Stop") {
		t.Errorf("switches %+v: want one for the application's trace.Stop", st.Switches)
	}
	stillWritten(t, app)
}

// TestLostSeenTwice: a process starved of CPU for longer than startLost
// finds trace.Start's slot silent at the supervisor's first look after,
// though its trace's writer, starved with it, writes at once. Where the
// runtime cannot be asked (the application holds the flight recorder),
// only a second look, lostRecheck later with no write between, takes the
// slot for lost.
func TestLostSeenTwice(t *testing.T) {
	fr := newFR(t)
	defer fr.Stop()
	sw := &startWriter{w: io.Discard}
	now := time.Now()
	sw.last.Store(now.Add(-startLost - time.Second).UnixNano())
	if sw.lostSeen(now) {
		t.Fatal("lost at the first look after a pause")
	}
	sw.Write([]byte("generation"))
	if sw.lostSeen(now.Add(lostRecheck)) {
		t.Fatal("lost with a write since the first look")
	}
	sw.last.Store(now.Add(-startLost - time.Second).UnixNano())
	if sw.lostSeen(now) || sw.lostSeen(now.Add(lostRecheck/2)) {
		t.Fatal("lost before a second look lostRecheck after the first")
	}
	if !sw.lostSeen(now.Add(lostRecheck)) {
		t.Fatal("not lost at a second look with no write between")
	}
}

// TestSilentSlotAsked: trace.Start's slot silent for startLost is not
// lost while the runtime still writes there, as a quiet program's trace
// whose generations the runtime is slow to end (a pass over hundreds of
// thousands of goroutines on a loaded machine) is. It is lost once the
// application's trace.Stop ended it, whether the application then traces
// into a writer of its own or not.
func TestSilentSlotAsked(t *testing.T) {
	if !inChild(t, stepLimit) {
		return
	}
	defer func(d time.Duration) { startLost = d }(startLost)
	startLost = 0 // every look between two writes finds the slot silent
	sw := &startWriter{w: io.Discard}
	if err := rtrace.Start(sw); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	if sw.lost() || sw.lostSeen(now) || sw.lostSeen(now.Add(lostRecheck)) {
		rtrace.Stop()
		t.Fatal("the slot taken for lost while the runtime writes to the backend's trace")
	}
	rtrace.Stop() // the application's
	if !sw.lost() {
		t.Fatal("the slot not lost after trace.Stop, with no trace running")
	}
	app := &countWriter{}
	if err := rtrace.Start(app); err != nil {
		t.Fatal(err)
	}
	defer rtrace.Stop()
	if !sw.lost() || !sw.lostSeen(time.Now()) {
		t.Fatal("the slot not lost while the application traces into its own writer")
	}
	if app.n.Load() == 0 {
		t.Fatal("the application's trace got nothing")
	}
}

// TestAskBacksOff: each probe that finds trace.Start's slot still the
// backend's doubles the silence before the next, up to askMax, so that a
// runtime slow to end its generations is not made slower still by up to
// three more every startLost; a tracer that no longer runs is lost at
// once, whatever the silence asked for.
func TestAskBacksOff(t *testing.T) {
	if !inChild(t, stepLimit) {
		return
	}
	sw := &startWriter{w: io.Discard}
	if err := rtrace.Start(sw); err != nil {
		t.Fatal(err)
	}
	stopped := false
	defer func() {
		if !stopped {
			rtrace.Stop()
		}
	}()
	// quiet makes the slot silent for d as of the time it returns.
	quiet := func(d time.Duration) time.Time {
		now := time.Now()
		sw.last.Store(now.Add(-d).UnixNano())
		return now
	}
	// ask looks once the slot has been silent past askAfter, again if
	// the runtime's own write of a generation came between quiet and
	// the look (the look then asks nothing), and reports whether it
	// found the slot lost.
	ask := func() bool {
		before := sw.askAfter
		for range 3 {
			lost := sw.lostSeen(quiet(max(sw.askAfter, startLost) + startLost + time.Second))
			if lost || sw.askAfter != before {
				return lost
			}
		}
		return false
	}
	for _, want := range []time.Duration{2 * startLost, 4 * startLost} {
		if ask() {
			t.Fatal("the slot taken for lost while the runtime writes to the backend's trace")
		}
		if sw.askAfter != want {
			t.Fatalf("after a probe that found the slot the backend's, the next asks after %v of silence, want %v", sw.askAfter, want)
		}
		// Silent for less than askAfter: not asked again (a probe
		// would double askAfter once more).
		if sw.lostSeen(quiet(sw.askAfter-time.Second)) || sw.askAfter != want {
			t.Fatalf("asked again before %v of silence (askAfter %v)", want, sw.askAfter)
		}
	}
	sw.askAfter = askMax
	if ask() || sw.askAfter != askMax {
		t.Fatalf("askAfter %v past askMax %v", sw.askAfter, askMax)
	}
	rtrace.Stop()
	stopped = true
	if !sw.lostSeen(quiet(startLost + time.Second)) {
		t.Fatal("the slot not lost at once with no tracer running")
	}
}
