package sampler

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	rtrace "runtime/trace"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/offheap"
	"github.com/gotachyon/profiler/internal/testing/testutil"
)

// TestFallbackWhenAppTraces: with the application holding both of the
// runtime's trace slots (trace.Start and a flight recorder), the sampler
// falls back to snapshots and leaves the application's trace intact.
func TestFallbackWhenAppTraces(t *testing.T) {
	var app bytes.Buffer
	if err := rtrace.Start(&app); err != nil {
		t.Fatalf("test's own trace.Start: %v", err)
	}
	fr := newFR(t)
	defer fr.Stop()
	for _, b := range []Backend{Auto, Trace} {
		// A loaded machine may give the snapshots' governor too few dumps
		// in a short run to catch the blocked goroutine: retry longer.
		testutil.Retry(t, 100*time.Millisecond, 4, func(d time.Duration) error {
			sink, st, ids, got := sampleFor(t, Config{Backend: b}, d, false, false)
			if got != Snapshot || !strings.Contains(st.Fallback, "both slots are taken") {
				t.Fatalf("backend %v (fallback %q), want snapshot with a reason", got, st.Fallback)
			}
			return stateSeen(sink, ids, "chan", 0, "[chan receive]", "sampler.blockChan")
		})
	}
	rtrace.Stop()
	if n := countEvents(t, &app, "the app's trace"); n < 100 {
		t.Fatalf("app trace has only %d events", n)
	}
}

func TestStopTwiceAndFromAnotherGoroutine(t *testing.T) {
	for _, b := range []Backend{Trace, Snapshot} {
		s, err := Start(Config{Backend: b}, newMemSink())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Start(Config{Backend: b}, newMemSink()); !errors.Is(err, ErrRunning) {
			t.Fatalf("second Start: %v, want ErrRunning", err)
		}
		time.Sleep(30 * time.Millisecond)
		var wg sync.WaitGroup
		stats := make([]Stats, 4)
		for i := range stats {
			wg.Add(1)
			go func() {
				defer wg.Done()
				stats[i], _ = s.Stop()
			}()
		}
		wg.Wait()
		again, err := s.Stop()
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range stats {
			if !reflect.DeepEqual(st, again) {
				t.Fatalf("Stop results differ: %+v vs %+v", st, again)
			}
		}
		// The slot is free again.
		s2, err := Start(Config{Backend: b}, newMemSink())
		if err != nil {
			t.Fatalf("Start after Stop: %v", err)
		}
		s2.Stop()
	}
}

// TestNoGoroutineLeak runs 100 Start/Stop cycles per backend.
func TestNoGoroutineLeak(t *testing.T) {
	before := runtime.NumGoroutine()
	for i := 0; i < 100; i++ {
		b := Trace
		if i%2 == 1 {
			b = Snapshot
		}
		s, err := Start(Config{Backend: b, Mode: Mode(i / 2 % 2)}, newMemSink())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Stop(); err != nil {
			t.Fatalf("cycle %d: %v", i, err)
		}
	}
	// Exiting goroutines may need a moment, longer on a loaded machine.
	var after int
	if testutil.WaitFor(10*time.Second, func() bool { after = runtime.NumGoroutine(); return after <= before }) {
		return
	}
	buf := make([]byte, 1<<20)
	t.Fatalf("goroutines: %d before, %d after\n%s", before, after, buf[:runtime.Stack(buf, true)])
}

// TestNoOffHeapLeak: what the trace reader keeps off the Go heap (its
// goroutines' records) is given back by Stop.
func TestNoOffHeapLeak(t *testing.T) {
	stop := make(chan struct{})
	defer close(stop)
	for range 2000 {
		go func() { <-stop }()
	}
	before := offheap.InUse()
	for i := range 4 {
		s, err := Start(Config{Backend: Trace, Mode: Mode(i % 2)}, newMemSink())
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
		if _, err := s.Stop(); err != nil {
			t.Fatalf("cycle %d: %v", i, err)
		}
		if got := offheap.InUse(); got != before {
			t.Fatalf("cycle %d: %d bytes off the heap in use after Stop, %d before", i, got, before)
		}
	}
	if runtime.GOOS == "linux" && offheap.Mapped() == 0 {
		t.Fatal("the trace reader mapped nothing for 2,000 goroutines")
	}
}

func TestBadConfig(t *testing.T) {
	for _, cfg := range []Config{{Rate: -1}, {Rate: MaxRate + 1}, {Mode: 7}, {Backend: 9}} {
		if s, err := Start(cfg, newMemSink()); err == nil {
			s.Stop()
			t.Errorf("Start(%+v) accepted", cfg)
		}
	}
	if _, err := Start(Config{}, nil); err == nil {
		t.Error("nil sink accepted")
	}
}

var errSink = errors.New("disk full")

// failSink returns a sink that rejects every sample, or panics when asked.
func failSink(panics bool) *memSink {
	m := newMemSink()
	m.hook = func() error {
		if panics {
			panic("sink exploded")
		}
		return errSink
	}
	return m
}

// TestSinkFailures: a sink that fails makes Stop return its error and count
// the samples it refused as dropped; one that panics has the panic reported.
// Both need the sink to be called at least once, which a short run on a
// loaded machine may not do: those runs are retried longer.
func TestSinkFailures(t *testing.T) {
	for _, b := range []Backend{Trace, Snapshot} {
		testutil.Retry(t, 50*time.Millisecond, 4, func(d time.Duration) error {
			s, err := Start(Config{Backend: b}, failSink(false))
			if err != nil {
				t.Fatal(err)
			}
			time.Sleep(d)
			st, err := s.Stop()
			if err == nil && st.Dropped == 0 && st.Samples == 0 {
				return fmt.Errorf("%v: the failing sink was never called", b)
			}
			if !errors.Is(err, errSink) || st.Dropped == 0 || st.Samples != 0 {
				t.Fatalf("%v: err %v, stats %+v", b, err, st)
			}
			return nil
		})

		testutil.Retry(t, 50*time.Millisecond, 4, func(d time.Duration) error {
			s, err := Start(Config{Backend: b}, failSink(true))
			if err != nil {
				t.Fatal(err)
			}
			time.Sleep(d)
			st, err := s.Stop()
			if err == nil && st.Samples == 0 {
				return fmt.Errorf("%v: the panicking sink was never called", b)
			}
			if err == nil || !strings.Contains(err.Error(), "sink exploded") {
				t.Fatalf("%v: panic not reported: %v", b, err)
			}
			return nil
		})
	}
}

// TestSinkFailureSaidAtOnce: a sink that fails while the profile runs is
// said in Config.Log before Stop, once, for it stops the sampling for
// good; Stop's own failures are Stop's to say.
func TestSinkFailureSaidAtOnce(t *testing.T) {
	for _, b := range []Backend{Trace, Snapshot} {
		var mu sync.Mutex
		var said []string
		log := func(m string) {
			mu.Lock()
			defer mu.Unlock()
			if strings.HasPrefix(m, "sampling stopped") {
				said = append(said, m)
			}
		}
		lines := func() []string {
			mu.Lock()
			defer mu.Unlock()
			return slices.Clone(said)
		}
		s, err := Start(Config{Backend: b, Log: log}, failSink(false))
		if err != nil {
			t.Fatal(err)
		}
		ok := testutil.WaitFor(20*time.Second, func() bool { return len(lines()) > 0 })
		if _, err := s.Stop(); !errors.Is(err, errSink) {
			t.Errorf("%v: Stop: %v, want the sink's error", b, err)
		}
		got := lines()
		switch {
		case !ok:
			t.Errorf("%v: the failure was not said before Stop", b)
		case len(got) != 1 || !strings.Contains(got[0], errSink.Error()):
			t.Errorf("%v: said %q, want one line with the sink's error", b, got)
		}
	}
}

// TestStatsCountSamples samples a workload in both modes and backends and
// checks that Stats.Samples counts what the sink holds, that each
// goroutine's timestamps go forward, and that the blocked
// goroutine (in CPU mode, the spinner) is found. Finding it is
// statistical: a loaded machine may give a 200 ms run too few samples, or
// the spinner too little CPU, so such a run is retried with a longer one.
func TestStatsCountSamples(t *testing.T) {
	for _, tc := range []struct {
		mode Mode
		b    Backend
	}{{Wall, Trace}, {CPU, Trace}, {Wall, Snapshot}} {
		testutil.Retry(t, 200*time.Millisecond, 4, func(d time.Duration) error {
			return countAndFind(t, tc.mode, tc.b, d)
		})
	}
}

// countAndFind samples a workload for d in mode with backend b and checks
// the samples. It fails t if the sink does not hold what Stop counted, and
// returns an error if the run was too thin to judge: no sample at all, or
// none with the leaf the mode must show.
func countAndFind(t *testing.T, mode Mode, b Backend, d time.Duration) error {
	t.Helper()
	sink := newMemSink()
	wl := startWorkload(t, true)
	s, err := Start(Config{Mode: mode, Backend: b}, sink)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(d)
	st, err := s.Stop()
	wl.Stop()
	if err != nil {
		t.Fatal(err)
	}
	samples := sink.all()
	if uint64(len(samples)) != st.Samples {
		t.Fatalf("%v/%v: the sink has %d samples, stats say %d", mode, b, len(samples), st.Samples)
	}
	checkTimestamps(t, sink)
	if st.Samples == 0 {
		return fmt.Errorf("%v/%v: no samples; stats %+v", mode, b, st)
	}
	want := "[chan receive]"
	if mode == CPU {
		want = "sampler.spinWork"
	}
	for _, sm := range samples {
		if len(sm.stack) > 0 && strings.HasSuffix(sm.stack[0].Func, want) {
			return nil
		}
	}
	return fmt.Errorf("%v/%v: no sample with leaf %s among %d; stats %+v", mode, b, want, st.Samples, st)
}

func TestParseModeBackend(t *testing.T) {
	for _, m := range []Mode{Wall, CPU} {
		if got, err := ParseMode(m.String()); err != nil || got != m {
			t.Errorf("ParseMode(%q) = %v, %v", m.String(), got, err)
		}
	}
	for _, b := range []Backend{Auto, Trace, Snapshot} {
		if got, err := ParseBackend(strings.ToUpper(b.String())); err != nil || got != b {
			t.Errorf("ParseBackend(%q) = %v, %v", b.String(), got, err)
		}
	}
	if _, err := ParseMode("both"); err == nil {
		t.Error("ParseMode accepted garbage")
	}
	if _, err := ParseBackend("ebpf"); err == nil {
		t.Error("ParseBackend accepted garbage")
	}
}
