package sampler

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/testing/testutil"
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

// wantState fails t unless stateSeen finds the sample.
func wantState(t *testing.T, sink *memSink, ids map[string]uint64, name string, status tachyon.Status, fn, in string) {
	t.Helper()
	if err := stateSeen(sink, ids, name, status, fn, in); err != nil {
		t.Error(err)
	}
}

// stateSeen is wantState for checks that retry: it returns an error unless
// goroutine name has a sample with the given status, innermost frame fn (""
// for any) and a stack containing in.
func stateSeen(sink *memSink, ids map[string]uint64, name string, status tachyon.Status, fn, in string) error {
	ss := sink.of(ids[name])
	if len(ss) == 0 {
		return fmt.Errorf("%s (g%d): no samples", name, ids[name])
	}
	for _, s := range ss {
		if s.status == status && len(s.stack) > 0 && (fn == "" || s.stack[0].Func == fn) && s.hasFunc(in) {
			return nil
		}
	}
	return fmt.Errorf("%s (g%d): no sample with status %#x, leaf %q, containing %q; last: %v", name, ids[name], status, fn, in, ss[len(ss)-1])
}

func TestWallBothBackends(t *testing.T) {
	for _, b := range []Backend{Trace, Snapshot} {
		for _, early := range []bool{false, true} {
			t.Run(fmt.Sprintf("%v/early=%v", b, early), func(t *testing.T) {
				testutil.Retry(t, 300*time.Millisecond, 3, func(d time.Duration) error {
					sink, st, ids, got := sampleFor(t, Config{Backend: b, Rate: 50}, d, early, true)
					if got != b {
						t.Fatalf("backend %v, want %v", got, b)
					}
					checkTimestamps(t, sink)
					if st.Samples == 0 || st.Ticks == 0 || st.Goroutines < len(ids) {
						return fmt.Errorf("stats %+v", st)
					}
					spinStatus := onCPU
					if b == Snapshot {
						// runtime.Stack stops the world first: an on-CPU
						// goroutine shows as runnable (see doc.go).
						spinStatus = tachyon.StatusGILRequested
					}
					// The leaf varies (spin, spinWork, atomics under -race),
					// so only the goroutine's root is checked.
					return errors.Join(
						stateSeen(sink, ids, "chan", 0, "[chan receive]", "sampler.blockChan"),
						stateSeen(sink, ids, "select", 0, "[select]", "sampler.blockSelect"),
						stateSeen(sink, ids, "mutex", 0, "[sync.Mutex.Lock]", "sampler.blockMutex"),
						stateSeen(sink, ids, "waitgroup", 0, "[sync.WaitGroup.Wait]", "sampler.blockWaitGroup"),
						stateSeen(sink, ids, "io", 0, "[IO wait]", "sampler.blockRead"),
						stateSeen(sink, ids, "sleep", 0, "[sleep]", "sampler.sleepLoop"),
						stateSeen(sink, ids, "spin", spinStatus, "", "sampler.startWorkload.func8"))
				})
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

// TestTee: Tee leaves nil observers out, and tells each of the others.
func TestTee(t *testing.T) {
	if Tee() != nil || Tee(nil, nil) != nil {
		t.Fatal("Tee of no observer is not nil")
	}
	a, b := new(cpuSeen), new(cpuSeen)
	if Tee(nil, a) != Observer(a) {
		t.Fatal("Tee of one observer is not that observer")
	}
	Tee(a, nil, b).OnCPU(7, 10, 0x1234)
	if a.at[[2]uint64{7, 10}] != 1 || b.at[[2]uint64{7, 10}] != 1 {
		t.Fatalf("told %v and %v, want g7 at 10 once each", a.at, b.at)
	}
}

func TestNoWaitReasonFrames(t *testing.T) {
	sink, _, ids, _ := sampleFor(t, Config{Backend: Trace, NoWaitReasonFrames: true}, 100*time.Millisecond, false, false)
	wantState(t, sink, ids, "chan", 0, "github.com/gotachyon/profiler/sampler.blockChan", "blockChan")
	for _, s := range sink.all() {
		for _, f := range s.stack {
			if strings.HasPrefix(f.Func, "[") && f.Func != unknownFrame && f.Func != tachyon.NoCPUSample && f.Func != tachyon.RuntimeRoot {
				t.Fatalf("wait-reason frame in %v", s)
			}
		}
	}
}

// TestSameStacksBothBackends checks the normalisation rule: a blocked
// goroutine has the same frames (function, file, line) and status whichever
// backend sampled it.
func TestSameStacksBothBackends(t *testing.T) {
	testutil.Retry(t, 150*time.Millisecond, 3, func(d time.Duration) error {
		last := map[Backend]map[string]memSample{}
		for _, b := range []Backend{Trace, Snapshot} {
			sink, _, ids, _ := sampleFor(t, Config{Backend: b}, d, true, false)
			last[b] = map[string]memSample{}
			for name, id := range ids {
				if ss := sink.of(id); len(ss) > 0 {
					last[b][name] = ss[len(ss)-1]
				}
			}
		}
		for _, name := range []string{"chan", "select", "mutex", "waitgroup", "io"} {
			a, aok := last[Trace][name]
			b, bok := last[Snapshot][name]
			if !aok || !bok {
				return fmt.Errorf("%s: no sample (trace %v, snapshot %v)", name, aok, bok)
			}
			// The workload began before Start: only the snapshot
			// backend knows where it was created.
			a, b = a.code(), b.code()
			if fmt.Sprint(a.status, a.stack) != fmt.Sprint(b.status, b.stack) {
				t.Errorf("%s differs:\ntrace    %v %v\nsnapshot %v %v", name, a.status, a.stack, b.status, b.stack)
			}
		}
		return nil
	})
}

// TestCPUModeSpinner: CPU mode samples a spinning goroutine, every sample
// on CPU, and tells the Observer of samples the sink holds.
func TestCPUModeSpinner(t *testing.T) {
	testutil.Retry(t, 300*time.Millisecond, 4, func(d time.Duration) error {
		obs := new(cpuSeen)
		cfg := Config{Mode: CPU, Backend: Trace, Observer: obs}
		sink, st, ids, b := sampleFor(t, cfg, d, false, true)
		if b != Trace {
			t.Fatalf("backend %v", b)
		}
		written := map[[2]uint64]int{}
		for _, s := range sink.all() {
			if !s.status.OnCPU() {
				t.Fatalf("CPU-mode sample not on CPU: %v", s)
			}
			written[[2]uint64{s.gid, s.ts}]++
		}
		for k, n := range obs.at {
			if n > written[k] {
				t.Fatalf("the Observer was told of %d samples of g%d at %d, the sink holds %d", n, k[0], k[1], written[k])
			}
		}
		spinSamples := 0
		for _, s := range sink.of(ids["spin"]) {
			if s.status == onCPU && (s.hasFunc("sampler.spin") || s.hasFunc("sampler.spinWork")) {
				spinSamples++
			}
		}
		n := obs.count()
		if spinSamples < 5 || n == 0 {
			return fmt.Errorf("only %d spinner CPU samples (%d leaf PCs); stats %+v", spinSamples, n, st)
		}
		t.Logf("%d spinner samples of %d, %d leaf PCs, stats %+v", spinSamples, st.Samples, n, st)
		return nil
	})
}

// TestAchievedHzShortProfile: a trace backend's ticks start with one at
// its start, so that Ticks over the time alone would pass the rate for a
// short profile (one tick in 2 ms read as 500 Hz); counted with that
// period, the rate achieved never passes the rate asked for.
func TestAchievedHzShortProfile(t *testing.T) {
	for _, d := range []time.Duration{0, 5 * time.Millisecond, 30 * time.Millisecond} {
		s, err := Start(Config{Backend: Trace, Rate: 100}, newMemSink())
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(d)
		st, err := s.Stop()
		if err != nil {
			t.Fatal(err)
		}
		if st.AchievedHz > 101 {
			t.Errorf("after %v: %d ticks, %.1f Hz achieved at 100 Hz", d, st.Ticks, st.AchievedHz)
		}
	}
}
