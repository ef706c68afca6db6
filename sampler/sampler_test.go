package sampler

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gotachyon/profiler/tachyon"
)

const onCPU = tachyon.StatusOnCPU | tachyon.StatusHasGIL

// sampleFor runs cfg for d around a workload started before (early) or after
// Start, and returns the sink, stats and the workload's goroutine ids.
func sampleFor(t *testing.T, cfg Config, d time.Duration, early, spin bool) (*memSink, Stats, map[string]uint64, Backend) {
	t.Helper()
	sink := newMemSink()
	var w *workload
	if early {
		w = startWorkload(t, spin)
	}
	s, err := Start(cfg, sink)
	if err != nil {
		t.Fatal(err)
	}
	if !early {
		w = startWorkload(t, spin)
	}
	time.Sleep(d)
	st, err := s.Stop()
	w.Stop()
	if err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if st.Backend != s.Backend() || st.Backend == Auto {
		t.Fatalf("Stats.Backend %v, Backend() %v", st.Backend, s.Backend())
	}
	return sink, st, w.ids, s.Backend()
}

// wantState checks that goroutine name has a sample with the given status,
// innermost frame fn ("" for any) and a stack containing in.
func wantState(t *testing.T, sink *memSink, ids map[string]uint64, name string, status uint8, fn, in string) {
	t.Helper()
	ss := sink.of(ids[name])
	if len(ss) == 0 {
		t.Errorf("%s (g%d): no samples", name, ids[name])
		return
	}
	for _, s := range ss {
		if s.status == status && len(s.stack) > 0 && (fn == "" || s.stack[0].Func == fn) && s.hasFunc(in) {
			return
		}
	}
	t.Errorf("%s (g%d): no sample with status %#x, leaf %q, containing %q; last: %v", name, ids[name], status, fn, in, ss[len(ss)-1])
}

func TestWallBothBackends(t *testing.T) {
	for _, b := range []Backend{Trace, Snapshot} {
		for _, early := range []bool{false, true} {
			t.Run(fmt.Sprintf("%v/early=%v", b, early), func(t *testing.T) {
				sink, st, ids, got := sampleFor(t, Config{Backend: b, Rate: 50}, 300*time.Millisecond, early, true)
				if got != b {
					t.Fatalf("backend %v, want %v", got, b)
				}
				if st.Samples == 0 || st.Ticks == 0 || st.Goroutines < len(ids) {
					t.Fatalf("stats %+v", st)
				}
				wantState(t, sink, ids, "chan", 0, "[chan receive]", "sampler.blockChan")
				wantState(t, sink, ids, "select", 0, "[select]", "sampler.blockSelect")
				wantState(t, sink, ids, "mutex", 0, "[sync.Mutex.Lock]", "sampler.blockMutex")
				wantState(t, sink, ids, "waitgroup", 0, "[sync.WaitGroup.Wait]", "sampler.blockWaitGroup")
				wantState(t, sink, ids, "io", 0, "[IO wait]", "sampler.blockRead")
				wantState(t, sink, ids, "sleep", 0, "[sleep]", "sampler.sleepLoop")
				spinStatus := onCPU
				if b == Snapshot {
					// runtime.Stack stops the world first: an on-CPU goroutine
					// shows as runnable (see doc.go).
					spinStatus = tachyon.StatusGILRequested
				}
				// The leaf varies (spin, spinWork, atomics under -race), and
				// CPU-sample stacks may miss the caller of a frameless leaf (see
				// doc.go), so only the goroutine's root is checked.
				wantState(t, sink, ids, "spin", spinStatus, "", "sampler.startWorkload.func8")
				checkTimestamps(t, sink)
			})
		}
	}
}

// checkTimestamps checks per-goroutine timestamps are plausible wall-clock
// microseconds and non-decreasing.
func checkTimestamps(t *testing.T, sink *memSink) {
	t.Helper()
	now := uint64(time.Now().UnixMicro())
	last := map[uint64]uint64{}
	for _, s := range sink.all() {
		if s.ts > now || s.ts < now-60e6 {
			t.Fatalf("g%d timestamp %d not within the last minute (now %d)", s.gid, s.ts, now)
		}
		if s.ts < last[s.gid] {
			t.Fatalf("g%d timestamp went back: %d after %d", s.gid, s.ts, last[s.gid])
		}
		last[s.gid] = s.ts
	}
}

func TestNoWaitReasonFrames(t *testing.T) {
	sink, _, ids, _ := sampleFor(t, Config{Backend: Trace, NoWaitReasonFrames: true}, 100*time.Millisecond, false, false)
	wantState(t, sink, ids, "chan", 0, "github.com/gotachyon/profiler/sampler.blockChan", "blockChan")
	for _, s := range sink.all() {
		for _, f := range s.stack {
			if strings.HasPrefix(f.Func, "[") {
				t.Fatalf("synthetic frame in %v", s)
			}
		}
	}
}

// TestSameStacksBothBackends checks the normalisation rule: a blocked
// goroutine has the same frames (function, file, line) and status whichever
// backend sampled it.
func TestSameStacksBothBackends(t *testing.T) {
	last := map[Backend]map[string]memSample{}
	for _, b := range []Backend{Trace, Snapshot} {
		sink, _, ids, _ := sampleFor(t, Config{Backend: b}, 150*time.Millisecond, true, false)
		last[b] = map[string]memSample{}
		for name, id := range ids {
			if ss := sink.of(id); len(ss) > 0 {
				last[b][name] = ss[len(ss)-1]
			}
		}
	}
	for _, name := range []string{"chan", "select", "mutex", "waitgroup", "io"} {
		a, b := last[Trace][name], last[Snapshot][name]
		if fmt.Sprint(a.status, a.stack) != fmt.Sprint(b.status, b.stack) {
			t.Errorf("%s differs:\ntrace    %v %v\nsnapshot %v %v", name, a.status, a.stack, b.status, b.stack)
		}
	}
}

func TestCPUModeSpinner(t *testing.T) {
	for d := 300 * time.Millisecond; ; d *= 2 {
		var mu sync.Mutex
		pcs := 0
		cfg := Config{Mode: CPU, Backend: Trace, LeafPC: func(uintptr) { mu.Lock(); pcs++; mu.Unlock() }}
		sink, st, ids, b := sampleFor(t, cfg, d, false, true)
		if b != Trace {
			t.Fatalf("backend %v", b)
		}
		spinSamples := 0
		for _, s := range sink.of(ids["spin"]) {
			if s.status == onCPU && (s.hasFunc("sampler.spin") || s.hasFunc("sampler.spinWork")) {
				spinSamples++
			}
		}
		for _, s := range sink.all() {
			if s.status&tachyon.StatusOnCPU == 0 {
				t.Fatalf("CPU-mode sample not on CPU: %v", s)
			}
		}
		mu.Lock()
		n := pcs
		mu.Unlock()
		if spinSamples >= 5 && n > 0 {
			t.Logf("%d spinner samples of %d, %d leaf PCs, stats %+v", spinSamples, st.Samples, n, st)
			return
		}
		if d > 3*time.Second {
			t.Fatalf("only %d spinner CPU samples (%d leaf PCs) in %v; stats %+v", spinSamples, n, d, st)
		}
	}
}
