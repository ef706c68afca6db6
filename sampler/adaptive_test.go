package sampler

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/goid"
	"github.com/gotachyon/profiler/internal/own"
	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/internal/workload/benchload"
)

// TestAutoSwitchesUnderPingPong: with goroutines switching hundreds of
// thousands of times a second, Auto moves to snapshots, says so in Stats,
// and a parked goroutine looks the same before and after the switch. No
// goroutine gets two handles from the sink, one the profiler claims for
// a while after the switch (as pyroscope's Dial claims a dial goroutine)
// included.
//
// How soon the switch comes and how many snapshots follow depend on the
// machine: another process's load slows the ping-pong (the trace then costs
// too little to leave) and the snapshots (the governor stretches their
// interval, to 16 Hz under -race). A run that waited d for the switch and
// then d for the samples without getting them is retried with a longer d.
// The rate is 20 Hz: a trial dump stretched by another process's load
// (the world stays stopped while the dumping thread waits for a CPU) made
// the snapshots look unable to keep a quarter of 100 Hz, and the trace was
// rightly kept in every retry; at 20 Hz the decision weighs the same
// costs with room for a slower dump.
func TestAutoSwitchesUnderPingPong(t *testing.T) {
	park := make(chan struct{})
	defer close(park)
	go blockChan2(park, 3)
	ids := make(chan uint64)
	go func() { ids <- goid.Current(); <-park }()
	claimed := <-ids
	stopLoad := testutil.PingPong(2)
	defer stopLoad()
	time.Sleep(20 * time.Millisecond)

	testutil.Retry(t, 5*time.Second, 3, func(d time.Duration) error {
		sink := newMemSink()
		s, err := Start(Config{Backend: Auto, Rate: 20}, sink)
		if err != nil {
			t.Fatal(err)
		}
		snapshots := testutil.WaitFor(d, func() bool { return s.Backend() == Snapshot })
		switched := uint64(time.Now().UnixMicro())
		if snapshots {
			// Claimed once a snapshot has sampled it.
			testutil.WaitFor(d, func() bool {
				return slices.ContainsFunc(sink.all(), func(m memSample) bool { return m.gid == claimed && m.ts > switched })
			})
			own.Claim(claimed)
			time.Sleep(150 * time.Millisecond) // a few dumps at 20 Hz
			own.Release(claimed)
			// Some snapshots, and enough samples in all for the checks below.
			testutil.WaitFor(d, func() bool {
				after, all := 0, 0
				for _, smp := range sink.all() {
					if smp.hasFunc("sampler.blockChan2") {
						all++
						if smp.ts > switched {
							after++
						}
					}
				}
				return after >= 5 && all >= 10
			})
		}
		trials := s.auto.trials.Load()
		st, err := s.Stop()
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Switches) == 0 || st.Switches[0].To != Snapshot {
			return fmt.Errorf("no switch to snapshots under ping-pong after %d trial dumps: %+v", trials, st)
		}
		t.Logf("switches: %+v; %d samples, %.0f Hz", st.Switches, st.Samples, st.AchievedHz)
		if st.Switches[0].At > 3*time.Second {
			return fmt.Errorf("switched only after %v", st.Switches[0].At)
		}

		// The parked goroutine: sampled by both backends, one stack, time
		// moving forward.
		var parked []memSample
		for _, smp := range sink.all() {
			if smp.hasFunc("sampler.blockChan2") {
				parked = append(parked, smp)
			}
		}
		if len(parked) < 10 {
			return fmt.Errorf("parked goroutine in %d samples", len(parked))
		}
		// Its creation site, made before Start, comes with the snapshots.
		first := parked[0].code().String()
		for i, smp := range parked {
			if smp.code().String() != first {
				t.Fatalf("sample %d of the parked goroutine:\n%s\nfirst:\n%s", i, smp, first)
			}
			if i > 0 && smp.ts < parked[i-1].ts {
				t.Fatalf("time goes back: %d after %d", smp.ts, parked[i-1].ts)
			}
		}
		if !slices.ContainsFunc(parked, func(m memSample) bool { return m.ts > switched }) {
			return fmt.Errorf("no sample of the parked goroutine after the switch")
		}
		// Both backends wrote through the one handle the sink gave out,
		// for it and for every other goroutine.
		if n := sink.handles(parked[0].gid); n != 1 {
			t.Fatalf("the sink gave out %d handles for the parked goroutine, want 1", n)
		}
		if ids := sink.twice(); len(ids) > 0 {
			t.Fatalf("the sink gave out two handles or more for goroutines %v", ids)
		}
		return nil
	})
}

// TestAutoKeepsTraceWhenQuiet: parked goroutines and a spinner cost the
// trace almost nothing, so Auto never leaves it.
func TestAutoKeepsTraceWhenQuiet(t *testing.T) {
	w := startWorkload(t, true)
	defer w.Stop()
	s, err := Start(Config{Backend: Auto}, newMemSink())
	if err != nil {
		t.Fatal(err)
	}
	if b := s.Backend(); b != Trace {
		t.Fatalf("Backend() right after Start = %v, want trace", b)
	}
	time.Sleep(400 * time.Millisecond)
	st, err := s.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if st.Backend != Trace || len(st.Switches) != 0 {
		t.Fatalf("backend %v, switches %+v", st.Backend, st.Switches)
	}
}

// TestAutoKeepsTraceThroughABurst: a burst of switches within one check's
// interval does not make Auto leave the trace; only a rate that lasts
// does. Such bursts are common: the collector's background sweeper yields
// thousands of times in a few milliseconds, as after Start's own
// allocations, and Auto left an idle program's trace for snapshots at its
// first check in one profile in six. A run whose burst a loaded machine
// stretched past the first check, into a second interval, is run again.
func TestAutoKeepsTraceThroughABurst(t *testing.T) {
	testutil.Again(t, 3, func() error {
		s, err := Start(Config{Backend: Auto}, newDropSink())
		if err != nil {
			t.Fatal(err)
		}
		started := time.Now() // the first check comes firstCheck after this, or later
		stopLoad := testutil.PingPong(2)
		time.Sleep(firstCheck / 2)
		stopLoad()
		burst := time.Since(started)
		time.Sleep(400 * time.Millisecond)
		st, err := s.Stop()
		if err != nil {
			t.Fatal(err)
		}
		if burst >= firstCheck {
			return fmt.Errorf("the burst lasted %v, past the first check", burst)
		}
		if len(st.Switches) != 0 {
			t.Fatalf("Auto left the trace for a burst of switches: %+v", st.Switches)
		}
		return nil
	})
}

// TestAutoTrialsBackOff: under a churn of goroutines the trace's cost
// crosses the bar for a trial at every check, while the dumps of 500
// deeply parked goroutines stay dearer, so the trace is kept. Each trial
// stops the world twice; the trials that keep the trace must back off
// (1 s, then 2 s, ...) instead of running at every check, 10 a second.
func TestAutoTrialsBackOff(t *testing.T) {
	stop := make(chan struct{})
	defer close(stop)
	for i := range 500 {
		go blockChan2(stop, 10+i%5)
	}
	stopChurn := benchload.Churn(60000)
	defer stopChurn()
	time.Sleep(50 * time.Millisecond)
	s, err := Start(Config{Backend: Auto}, newDropSink())
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(2500 * time.Millisecond)
	trials := s.auto.trials.Load()
	st, err := s.Stop()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d trials in 2.5 s, backend %v, switches %+v", trials, st.Backend, st.Switches)
	if len(st.Switches) == 0 && trials > 3 {
		t.Errorf("%d trials in 2.5 s that kept the trace, want at most 3 (1 s, then 2 s apart)", trials)
	}
}

// TestAutoLeavesRefusingSnapshots: snapshots that refuse their dumps (more
// goroutines than MaxSnapshotPause allows) sample nothing, so Auto goes
// back to the trace at its next check, and says why, even while a
// ping-pong makes the trace look dear and the refusals make the
// snapshots look free.
func TestAutoLeavesRefusingSnapshots(t *testing.T) {
	stop := make(chan struct{})
	defer close(stop)
	for range int(MaxSnapshotPause/pausePerG) + 2000 {
		go func() { <-stop }()
	}
	st, back := backFromSnapshots(t)
	n := len(st.Switches)
	if !back || n < 2 || st.Switches[n-1].To != Trace || !strings.Contains(st.Switches[n-1].Why, "snapshot refused") || st.Refused == "" {
		t.Fatalf("back to the trace %v; switches %+v; refused %q", back, st.Switches, st.Refused)
	}
	t.Logf("switches: %+v", st.Switches)
}

// TestAutoLeavesGovernedSnapshots: snapshots whose governor stretched the
// dumps below a quarter of the rate (their pause over its 1 % of wall
// time), where no trial would have left the trace, see each goroutine
// only at instants far apart, so Auto goes back to the trace and says
// why, even while a ping-pong makes the trace look dear.
func TestAutoLeavesGovernedSnapshots(t *testing.T) {
	release := parkDeep(1000, 10)
	defer release()
	st, _ := backFromSnapshots(t)
	for _, sw := range st.Switches {
		if sw.To == Trace && strings.Contains(sw.Why, "governed") {
			t.Logf("switches: %+v", st.Switches)
			return
		}
	}
	t.Fatalf("no switch back to the trace for the governed snapshots: %+v (%d dumps for %d ticks)", st.Switches, st.Dumps, st.Ticks)
}

// backFromSnapshots runs Auto beside a ping-pong that makes the trace
// look dear, has it switch to snapshots, and waits up to 5 s for it to
// go back to the trace on its own; it returns Stop's Stats and whether it
// went back.
func backFromSnapshots(t *testing.T) (Stats, bool) {
	t.Helper()
	stopLoad := testutil.PingPong(2)
	defer stopLoad()
	s, err := Start(Config{Backend: Auto}, newDropSink())
	if err != nil {
		t.Fatal(err)
	}
	switchAuto(s, Snapshot)
	back := testutil.WaitFor(5*time.Second, func() bool { return s.Backend() == Trace })
	st, err := s.Stop()
	if err != nil {
		t.Fatal(err)
	}
	return st, back
}
