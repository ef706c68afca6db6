package busiest_test

import (
	"testing"

	"github.com/gotachyon/profiler/internal/busiest"
	"github.com/gotachyon/profiler/internal/hostile"
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
