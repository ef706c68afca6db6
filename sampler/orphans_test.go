package sampler

import (
	"runtime"
	"testing"
	"time"

	"github.com/gotachyon/profiler/tachyon"
)

// spinShort burns about d of CPU on a goroutine of its own.
func spinShort(d time.Duration, done chan<- struct{}) {
	defer func() { done <- struct{}{} }()
	for end := time.Now().Add(d); time.Now().Before(end); {
		burnFor(1000)
	}
}

// TestShortGoroutinesCPU starts 250 goroutines a second from one site,
// each spinning 2 ms: a tick finds one running one time in five, a CPU
// sample one time in five, seldom both. The wall profile's on-CPU ticks
// must still be most of the CPU samples (the others are the profiler's
// own goroutines', and the scheduler's outside any goroutine), and at
// most a tenth unplaced: their CPU samples, unplaced on their own ticks,
// go to the running ticks of their siblings that had none (orphans.go).
// Before, 80-90 % of them were unplaced, and as many ticks showed as
// "[no CPU sample]".
func TestShortGoroutinesCPU(t *testing.T) {
	if testing.Short() {
		t.Skip("burns CPU for seconds")
	}
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("needs two Ps for the spinners beside the loop")
	}
	sink := newMemSink()
	s, err := Start(Config{Backend: Trace, Mode: Wall}, sink)
	if err != nil {
		t.Fatal(err)
	}
	before := rusageCPU(t)
	done := make(chan struct{}, 1024)
	n := 0
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end); n++ {
		go spinShort(2*time.Millisecond, done)
		time.Sleep(4 * time.Millisecond)
	}
	for range n {
		<-done
	}
	used := rusageCPU(t) - before
	st, err := s.Stop()
	if err != nil {
		t.Fatal(err)
	}
	running := 0
	for _, smp := range sink.all() {
		if smp.status.State() == tachyon.Running {
			running++
		}
	}
	onCPU := time.Duration(running) * time.Second / time.Duration(DefaultRate)
	t.Logf("%d goroutines; process CPU (rusage) %v; wall profile on CPU %v (%d ticks); %d CPU samples: %d adopted, %d unplaced; %d ticks without a CPU sample",
		n, used.Round(time.Millisecond), onCPU, running, st.CPUSamples, st.CPUAdopted, st.CPUUnplaced, st.NoCPUSample)
	if st.Backend != Trace {
		t.Fatalf("backend %v (%s)", st.Backend, st.Fallback)
	}
	if float64(running) < 0.7*float64(st.CPUSamples) || st.CPUUnplaced*10 > st.CPUSamples {
		t.Errorf("%d ticks on CPU and %d unplaced of %d CPU samples: want at least 70 %% on CPU, at most 10 %% unplaced", running, st.CPUUnplaced, st.CPUSamples)
	}
}
