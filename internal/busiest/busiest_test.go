package busiest_test

import (
	"testing"

	"github.com/gotachyon/profiler/internal/busiest"
	"github.com/gotachyon/profiler/internal/testing/hostile"
	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/reader"
)

// TestThreads: of 1,000 goroutines with one sample each, the busiest 10
// are the 10 lowest ids (ties go to the lower id), and all are counted.
func TestThreads(t *testing.T) {
	f, err := reader.NewFileBytes(hostile.ManyThreads(1000))
	if err != nil {
		t.Fatal(err)
	}
	for _, rank := range []busiest.Rank{busiest.BySamples, busiest.ByOnCPU} {
		keep, n, err := busiest.Threads(f, 10, rank)
		if err != nil {
			t.Fatal(err)
		}
		if n != 1000 || len(keep) != 10 {
			t.Fatalf("rank %d: %d threads, %d kept; want 1000 and 10", rank, n, len(keep))
		}
		for id := uint64(1); id <= 10; id++ {
			if !keep[busiest.Key{ID: id}] {
				t.Fatalf("rank %d: goroutine %d not kept: %v", rank, id, keep)
			}
		}
	}
}

// TestThreadsRuns: in a wall profile, whose parked goroutines are long
// runs, the busiest on the CPU are the two busy goroutines, and by samples
// the parked ones, which miss no tick, before them.
func TestThreadsRuns(t *testing.T) {
	f := proftest.Wall(t, 30, 1000)
	keep, n, err := busiest.Threads(f, 2, busiest.ByOnCPU)
	if err != nil {
		t.Fatal(err)
	}
	if n != 32 || !keep[busiest.Key{ID: 1}] || !keep[busiest.Key{ID: 2}] {
		t.Fatalf("%d threads, kept %v; want 32, goroutines 1 and 2", n, keep)
	}
	keep, _, err = busiest.Threads(f, 30, busiest.BySamples)
	if err != nil {
		t.Fatal(err)
	}
	if keep[busiest.Key{ID: 1}] || keep[busiest.Key{ID: 2}] {
		t.Fatalf("by samples, kept %v; want the 30 parked goroutines", keep)
	}
}
