package sampler

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/cputime"
)

//go:noinline
func deepPark(depth int, ch chan struct{}) {
	if depth > 0 {
		deepPark(depth-1, ch)
		return
	}
	<-ch
}

// TestDeepStacksMarked parks a goroutine 1,000 frames deep: the trace cuts
// its stack before the root, which must end in "[truncated]"; runtime.Stack
// leaves out its middle, which must show "[frames elided]".
func TestDeepStacksMarked(t *testing.T) {
	ch := make(chan struct{})
	defer close(ch)
	go deepPark(1000, ch)
	time.Sleep(50 * time.Millisecond)
	for _, c := range []struct {
		backend Backend
		marker  string
		atRoot  bool
	}{
		{Trace, truncatedFrame, true},
		{Snapshot, elidedFrame, false},
	} {
		sink := newMemSink()
		s, err := Start(Config{Mode: Wall, Rate: 100, Backend: c.backend}, sink)
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(300 * time.Millisecond)
		if _, err := s.Stop(); err != nil {
			t.Fatal(err)
		}
		found, deep := false, 0
		for _, smp := range sink.all() {
			if !smp.hasFunc("sampler.deepPark") || len(smp.stack) < 60 {
				continue
			}
			deep++
			for i, f := range smp.stack {
				if f.Func == c.marker && (!c.atRoot || i == len(smp.stack)-1) {
					found = true
				}
			}
			if !found {
				t.Errorf("%v: a deep stack of %d frames without %s: %v", c.backend, len(smp.stack), c.marker, smp)
			}
			break
		}
		if deep == 0 {
			t.Errorf("%v: no deep stack sampled", c.backend)
		}
		t.Logf("%v: marked %v", c.backend, found)
	}
}

// deepSpin spins depth frames deep until stop, on a thread of its own,
// keeping the thread's CPU time since it began in cpu (nanoseconds).
// It looks at stop only once in 65,536 turns: under the race detector an
// atomic load runs in the detector's C code, where a CPU sample's stack
// is that code's one frame; late in a long test binary the detector took
// most of the spinner's time there, and left it no sample with a frame
// of its own.
//
//go:noinline
func deepSpin(depth int, stop *atomic.Bool, cpu *atomic.Int64) int {
	if depth > 0 {
		return deepSpin(depth-1, stop, cpu) + 1
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c0 := cputime.Thread()
	n := 0
	for {
		if n++; n%(1<<16) == 0 {
			cpu.Store(int64(cputime.Thread() - c0))
			if stop.Load() {
				return n
			}
		}
	}
}

// TestMidDepthStacks: a stack of 80 frames is whole where the trace
// records a goroutine's state (up to 128 frames, without runtime.goexit),
// and cut where the CPU profiler samples it (64). A goroutine parked 80
// frames deep is sampled with its own start function outermost, and no
// "[truncated]"; one spinning 80 frames deep is sampled on CPU with
// "[truncated]" at the root.
func TestMidDepthStacks(t *testing.T) {
	ch := make(chan struct{})
	defer close(ch)
	var stop atomic.Bool
	var spinCPU atomic.Int64
	defer stop.Store(true)
	go deepPark(80, ch)
	go deepSpin(80, &stop, &spinCPU)
	time.Sleep(50 * time.Millisecond)
	for _, mode := range []Mode{Wall, CPU} {
		sink := newMemSink()
		s, err := Start(Config{Mode: mode, Rate: 100, Backend: Trace}, sink)
		if err != nil {
			t.Fatal(err)
		}
		// 400 ms, and in CPU mode until the spinner has had 300 ms of a
		// CPU since Start (about 30 samples), however busy the machine.
		c0 := time.Duration(spinCPU.Load())
		time.Sleep(400 * time.Millisecond)
		for deadline := time.Now().Add(20 * time.Second); mode == CPU && time.Duration(spinCPU.Load())-c0 < 300*time.Millisecond && time.Now().Before(deadline); {
			time.Sleep(20 * time.Millisecond)
		}
		spun := time.Duration(spinCPU.Load()) - c0
		st, err := s.Stop()
		if err != nil {
			t.Fatal(err)
		}
		parked, spunSamples := 0, 0
		for _, smp := range sink.all() {
			switch {
			case mode == Wall && smp.hasFunc("sampler.deepPark"):
				parked++
				if root := smp.stack[len(smp.stack)-1].Func; root != "github.com/gotachyon/profiler/sampler.deepPark" {
					t.Fatalf("a parked stack of %d frames ends in %q, want its start function", len(smp.stack), root)
				}
			case mode == CPU && smp.hasFunc("sampler.deepSpin"):
				spunSamples++
				if root := smp.stack[len(smp.stack)-1].Func; root != truncatedFrame {
					t.Fatalf("a CPU sample's stack of %d frames ends in %q, want %q", len(smp.stack), root, truncatedFrame)
				}
			}
		}
		if mode == Wall && parked == 0 || mode == CPU && spunSamples == 0 {
			t.Errorf("%v: no sample of the deep goroutine (it had %v of CPU; %d CPU samples, %d ticks, %d samples, %d unplaced, CPU profile %q, gap %v; leaves %v)",
				mode, spun, st.CPUSamples, st.Ticks, st.Samples, st.CPUUnplaced, st.CPUProfile, st.CPUGap, leaves(sink))
		}
	}
}

// leaves counts a sink's samples by their innermost frame.
func leaves(m *memSink) map[string]int {
	n := map[string]int{}
	for _, smp := range m.all() {
		if len(smp.stack) > 0 {
			n[smp.stack[0].Func]++
		}
	}
	return n
}
