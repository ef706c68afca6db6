package profiler_test

import (
	"maps"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gotachyon/profiler"
	"github.com/gotachyon/profiler/tachyon"
)

// TestUnusualSchedulingSamples profiles, with the trace backend, a program
// that changes GOMAXPROCS, stops the world in a loop, churns goroutines
// that end with runtime.Goexit, blocks in a raw read of a pipe and parks a
// goroutine locked to its thread: no goroutine may have two samples at a
// tick, and each long-lived one must have one at every tick.
func TestUnusualSchedulingSamples(t *testing.T) {
	stop := make(chan struct{})
	var wg sync.WaitGroup
	ids := map[string]uint64{}
	spawn := spawner(&wg, ids)
	var p [2]int
	if err := syscall.Pipe(p[:]); err != nil {
		t.Fatal(err)
	}
	spawn("pipe reader", func() {
		var b [1]byte
		syscall.Read(p[0], b[:])
	})
	spawn("locked parked", func() {
		runtime.LockOSThread()
		<-stop
	})
	spawn("gomaxprocs", func() {
		old := runtime.GOMAXPROCS(0)
		defer runtime.GOMAXPROCS(old)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
				runtime.GOMAXPROCS([]int{64, 1, 8, 2, 3}[i%5])
			}
		}
	})
	spawn("stw", func() {
		var ms runtime.MemStats
		defer debug.SetGCPercent(debug.SetGCPercent(100))
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
				runtime.GC()
				runtime.ReadMemStats(&ms)
				debug.SetGCPercent(10 + i%100)
			}
		}
	})
	spawn("churn", func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			var cw sync.WaitGroup
			for range 10000 {
				cw.Add(1)
				go func() { defer cw.Done(); runtime.Goexit() }()
			}
			cw.Wait()
			time.Sleep(time.Millisecond)
		}
	})
	defer func() {
		close(stop)
		syscall.Write(p[1], []byte{1})
		wg.Wait()
		syscall.Close(p[0])
		syscall.Close(p[1])
	}()
	time.Sleep(10 * time.Millisecond)
	path := filepath.Join(t.TempDir(), "unusual.bin")
	pr := profiler.Start(profiler.WithPath(path), profiler.WithQuiet(true), profiler.WithBackend(profiler.Trace))
	time.Sleep(700 * time.Millisecond)
	if err := pr.Stop(); err != nil {
		t.Fatal(err)
	}
	if b := pr.Backend(); b != profiler.Trace {
		t.Fatalf("backend %v", b)
	}
	type key struct{ ts, g uint64 }
	n := map[key]int{}
	ticks := map[uint64]bool{}
	have := map[uint64]map[uint64]tachyon.State{}
	for _, s := range readSamples(t, path) {
		n[key{s.ts, s.gid}]++
		ticks[s.ts] = true
		if have[s.gid] == nil {
			have[s.gid] = map[uint64]tachyon.State{}
		}
		have[s.gid][s.ts] = s.status.State()
	}
	dups := 0
	for k, c := range n {
		if c > 1 {
			if dups < 5 {
				t.Errorf("g%d sampled %d times at tick %d", k.g, c, k.ts)
			}
			dups++
		}
	}
	t.Logf("%d ticks, %d goroutines, %d duplicate samples", len(ticks), len(have), dups)
	if st := pr.Stats(); st.Unparsed > 0 || st.Unmet > 0 {
		// Stop's bound left the last ticks unwritten (a loaded
		// machine): every tick is asked of the long-lived goroutines up
		// to the last one each of them got. One the parse never met
		// (parked since before the trace, and reported by the runtime
		// only at the end of this first generation) has none, and
		// Unmet counts it.
		cut := uint64(1<<64 - 1)
		unmet := 0
		for name, id := range ids {
			if len(have[id]) == 0 {
				t.Logf("%s (g%d): no sample, not met by the parse", name, id)
				delete(ids, name)
				unmet++
				continue
			}
			cut = min(cut, slices.Max(slices.Collect(maps.Keys(have[id]))))
		}
		if unmet > st.Unmet {
			t.Fatalf("%d long-lived goroutines without a sample, and Unmet %d", unmet, st.Unmet)
		}
		for ts := range ticks {
			if ts > cut {
				delete(ticks, ts)
			}
		}
		for _, id := range ids {
			for ts := range have[id] {
				if ts > cut {
					delete(have[id], ts)
				}
			}
		}
		t.Logf("%d samples not written at Stop, about %d goroutines not met: ticks to %d asked", st.Unparsed, st.Unmet, cut)
	}
	for name, id := range ids {
		got := have[id]
		states := map[tachyon.State]int{}
		for _, st := range got {
			states[st]++
		}
		t.Logf("%s (g%d): at %d of %d ticks, states %v", name, id, len(got), len(ticks), states)
		if len(got) != len(ticks) {
			t.Errorf("%s (g%d): at %d of %d ticks", name, id, len(got), len(ticks))
		}
	}
}
