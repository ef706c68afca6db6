package sampler

import (
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/goid"
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
// frameless leaf function under two callers, on one P, so that they are
// preempted in the leaf and wait runnable there most of the time. Every
// sample in the leaf must show one of its callers: the trace's stacks of
// their preemptions lack it (go.dev/issue/68090), and without the CPU
// samples' mend most of the runnable ticks showed the leaf straight under
// the loop.
func TestPreemptedLeafKeepsCaller(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	sink := newMemSink()
	s, err := Start(Config{Mode: Wall, Backend: Trace}, sink)
	if err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	ids := make(chan uint64, 3)
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids <- goid.Current()
			for !stop.Load() {
				leafCallerA(3000)
				leafCallerB(2000)
			}
		}()
	}
	time.Sleep(3 * time.Second)
	stop.Store(true)
	wg.Wait()
	if _, err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	close(ids)
	var inLeaf, runnable, skipped int
	for id := range ids {
		for _, m := range sink.of(id) {
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
			if c := m.stack[i+1].Func; !strings.HasSuffix(c, ".leafCallerA") && !strings.HasSuffix(c, ".leafCallerB") {
				skipped++
			}
		}
	}
	t.Logf("%d samples in the leaf, %d of them runnable; %d without its caller", inLeaf, runnable, skipped)
	if inLeaf < 100 || runnable < inLeaf/4 {
		t.Fatalf("%d samples in the leaf, %d runnable: want hundreds, mostly runnable", inLeaf, runnable)
	}
	if skipped*50 > inLeaf {
		t.Errorf("%d of %d samples in the leaf lack its caller, want at most 2%%", skipped, inLeaf)
	}
}
