package sampler

import (
	"sync"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/goid"
)

// parkDeep parks n goroutines, each depth frames deep, until the returned
// function is called.
func parkDeep(n, depth int) (release func()) {
	var ready sync.WaitGroup
	quit := make(chan struct{})
	var down func(d int)
	down = func(d int) {
		if d > 0 {
			down(d - 1)
			return
		}
		ready.Done()
		<-quit
	}
	ready.Add(n)
	for range n {
		go down(depth)
	}
	ready.Wait()
	return func() { close(quit) }
}

// TestSnapshotTimeAddsUpWhenGoverned checks that when the governor
// stretches the interval between dumps past the rate's period (their
// pause over its 1 % of wall time), a goroutine's samples still add up to
// the time it lived: each dump stands for the ticks since the one before.
// Before, a dump was one tick of the rate's period, and a goroutine
// parked for the whole profile read as a few ticks' time: every second an
// export or info showed was too small by the stretch.
func TestSnapshotTimeAddsUpWhenGoverned(t *testing.T) {
	release := parkDeep(200, 10)
	defer release()
	id := make(chan uint64)
	quit := make(chan struct{})
	defer close(quit)
	go func() {
		id <- goid.Current()
		<-quit
	}()
	g := <-id
	sink := newMemSink()
	s, err := Start(Config{Backend: Snapshot, Rate: 100}, sink)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	st, err := s.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if st.Dumps == 0 || st.Dumps*2 > st.Ticks {
		t.Fatalf("%d dumps for %d ticks: the governor did not stretch the interval (Refused %q)", st.Dumps, st.Ticks, st.Refused)
	}
	if n := uint64(len(sink.of(g))); n != st.Ticks {
		t.Errorf("a goroutine parked throughout has %d samples (%v at 100 Hz), want one a tick: %d (%d dumps)",
			n, time.Duration(n)*10*time.Millisecond, st.Ticks, st.Dumps)
	}
	if st.AchievedHz < 70 || st.AchievedHz > 100.5 {
		t.Errorf("%.1f Hz achieved at 100 Hz: %d ticks of %d dumps", st.AchievedHz, st.Ticks, st.Dumps)
	}
	checkTimestamps(t, sink)
}
