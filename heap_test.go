package profiler_test

import (
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"slices"
	"testing"
	"time"

	"github.com/gotachyon/profiler"
	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/internal/workload/benchload"
	"github.com/gotachyon/profiler/segment"
)

// liveHeap returns the bytes of live heap objects, after a collection.
func liveHeap() uint64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// heapBound is the bound on the profiler's heap whose structure the
// package documentation gives (Memory) and whose figures are in
// bench/MEASUREMENTS.md: 12 MiB, plus 3 MiB for each segment writer open
// beside the newest, plus 2 KiB per live goroutine and 1 KiB per distinct
// frame, plus three times a generation of trace.
func heapBound(goroutines, frames, traceBytes int) uint64 {
	return 12<<20 + (segment.MaxOpen-1)*3<<20 + uint64(goroutines)*2<<10 + uint64(frames)<<10 + 3*uint64(traceBytes)
}

// TestHeapBoundedUnderChurn profiles 1,000 parked goroutines and a churn of
// short-lived ones in wall mode and checks the profiler's heap (the live
// heap above the same program's without it) against the documented bound,
// and that it does not grow once the first generations and checkpoints are
// in and the runtime's flight recorder holds its whole window (five
// seconds of trace, full by 6-7 s): the least of its last three seconds
// against the least of three seconds from 7 s. A moment's generations
// queued for a reader that lags on a loaded machine only add to a second's
// figure, while a leak raises every second's, the least included. It runs
// alone in a child process, whose heap no other test's goroutines share.
func TestHeapBoundedUnderChurn(t *testing.T) {
	if !testutil.InChild(t, 2*time.Minute) {
		return
	}
	const parked, perSec = 1000, 10000
	defer benchload.Park(parked)()
	defer benchload.Churn(perSec)()
	time.Sleep(300 * time.Millisecond)
	base := liveHeap()
	// Checkpoints every second: by 5 s the profile holds its writers for
	// the open checkpoints (those whose late ticks may still come) and the
	// one opened ahead, grown to their size, as it will from then on.
	p := profiler.Start(profiler.WithPath(filepath.Join(t.TempDir(), "p.bin")), profiler.WithQuiet(true), profiler.WithCheckpoint(time.Second))
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	var heap []uint64
	peakG := 0
	for range 13 {
		time.Sleep(time.Second)
		peakG = max(peakG, runtime.NumGoroutine())
		heap = append(heap, liveHeap()-min(base, liveHeap()))
	}
	// The test's goroutines have a few dozen frames; a generation of
	// its trace is about 100 bytes per goroutine started.
	bound := heapBound(peakG, 1000, perSec*100)
	for i, h := range heap {
		if h > bound {
			t.Errorf("after %d s the profiler holds %.1f MiB, above the bound %.1f MiB (%d goroutines)", i+1, mib(h), mib(bound), peakG)
		}
	}
	if grow := int64(slices.Min(heap[10:13])) - int64(slices.Min(heap[6:9])); grow > 2<<20 {
		t.Errorf("the profiler's heap grew by %.1f MiB from 7-9 s to 11-13 s under churn (least of each): %.1f MiB", float64(grow)/(1<<20), mibs(heap))
	}
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	t.Logf("profiler heap by second: %.1f MiB (bound %.1f MiB)", mibs(heap), mib(bound))
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

func mibs(v []uint64) []float64 {
	out := make([]float64, len(v))
	for i, b := range v {
		out[i] = mib(b)
	}
	return out
}
