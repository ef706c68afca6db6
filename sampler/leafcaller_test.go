package sampler

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/goid"
	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/tachyon"
)

var leafSink atomic.Uint64

// leafLoop calls nothing and keeps nothing on its stack: without the race
// detector's calls, the compiler gives it no frame, so that frame-pointer
// unwinding from it skips its caller.
//
//go:noinline
func leafLoop(n int) {
	x := uint64(n)
	for range n {
		for range 256 {
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
	leafSink.Add(x)
}

//go:noinline
func leafCallerA(n int) { leafLoop(n) }

//go:noinline
func leafCallerB(n int) { leafLoop(n) }

// TestPreemptedLeafKeepsCaller runs three goroutines that spin in a
// frameless leaf function, two under one caller and one under another, on
// one P, so that they are preempted in the leaf and wait runnable there
// most of the time. Every sample in the leaf must show its goroutine's
// caller: the trace's stacks of their preemptions lack it
// (go.dev/issue/68090), and without the CPU samples' mend most of the
// runnable ticks showed the leaf straight under the loop.
//
// The mend takes the caller from the goroutine's CPU samples of the same
// generation; a loaded machine gives the process a fraction of a CPU, and
// each goroutine a third of that, so a goroutine that spun under both
// callers could have no CPU sample under one of them in a generation
// (1 to 52 % of the leaf's samples lacked their caller at 20 to 5 CPU
// samples a second). Each goroutine keeps to one caller, and a run whose
// check fails is tried again longer: a run without the evidence cannot
// judge the mend.
func TestPreemptedLeafKeepsCaller(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	testutil.Retry(t, 3*time.Second, 3, func(d time.Duration) error {
		return leafKeepsCaller(t, d)
	})
}

// leafKeepsCaller runs TestPreemptedLeafKeepsCaller's goroutines for d.
func leafKeepsCaller(t *testing.T, d time.Duration) error {
	sink := newMemSink()
	s, err := Start(Config{Mode: Wall, Backend: Trace}, sink)
	if err != nil {
		return err
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	type spinner struct {
		id     uint64
		caller string
	}
	spinners := make(chan spinner, 3)
	for i := range 3 {
		caller, loop := ".leafCallerA", leafCallerA
		if i == 2 {
			caller, loop = ".leafCallerB", leafCallerB
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			spinners <- spinner{goid.Current(), caller}
			for !stop.Load() {
				loop(2000)
			}
		}()
	}
	time.Sleep(d)
	stop.Store(true)
	wg.Wait()
	st, err := s.Stop()
	if err != nil {
		return err
	}
	close(spinners)
	var inLeaf, runnable, skipped int
	for g := range spinners {
		for _, m := range sink.of(g.id) {
			i := 0
			for i < len(m.stack) && !strings.HasSuffix(m.stack[i].Func, ".leafLoop") {
				i++
			}
			if i+1 >= len(m.stack) {
				continue
			}
			inLeaf++
			if m.status.State() == tachyon.Runnable {
				runnable++
			}
			if !strings.HasSuffix(m.stack[i+1].Func, g.caller) {
				skipped++
			}
		}
	}
	t.Logf("%v: %d samples in the leaf, %d of them runnable; %d without its caller; %d CPU samples", d, inLeaf, runnable, skipped, st.CPUSamples)
	if inLeaf < 100 || runnable < inLeaf/4 {
		return fmt.Errorf("%d samples in the leaf, %d runnable: want hundreds, mostly runnable", inLeaf, runnable)
	}
	if skipped*50 > inLeaf {
		return fmt.Errorf("%d of %d samples in the leaf (%d runnable) lack its caller, want at most 2%% (%d CPU samples)", skipped, inLeaf, runnable, st.CPUSamples)
	}
	return nil
}
