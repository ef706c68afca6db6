package leaks_test

import (
	"math"
	"testing"

	"github.com/gotachyon/profiler/internal/leaks"
	"github.com/gotachyon/profiler/internal/testing/proftest"
)

// TestAnalyzeCounts checks the groups of proftest.LeakFile against its
// making, slice by slice: the leak counts the goroutines it made before
// each slice began, grows LeakEvery's rate and is marked unreachable in
// the slices that end after LeakMarkedFrom; the pool, there from the
// start, does not grow and is not listed.
func TestAnalyzeCounts(t *testing.T) {
	f := proftest.Open(t, proftest.LeakFile(t))
	res, err := leaks.Analyze([]leaks.Input{{Name: "leak", File: f}}, leaks.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Slices) != 6 || len(res.Groups) != 2 || res.Flat != 1 || !res.Marked {
		t.Fatalf("%d slices, %d groups, %d flat, marked %v; want 6, 2, 1, true", len(res.Slices), len(res.Groups), res.Flat, res.Marked)
	}
	leak, pool := res.Groups[0], res.Groups[1]
	if leak.Site != proftest.LeakSite || pool.Site != proftest.PoolSite || !leak.Listed || pool.Listed || !leak.Grows || pool.Grows {
		t.Fatalf("groups %q (listed %v, grows %v), %q (listed %v, grows %v)", leak.Site, leak.Listed, leak.Grows, pool.Site, pool.Listed, pool.Grows)
	}
	for k, s := range res.Slices {
		// Goroutines made at or before the slice's start (one tick
		// either side: the tolerance is two ticks).
		made := int((s.Start-proftest.LeakStart)/proftest.LeakInterval)/proftest.LeakEvery + 1
		if d := leak.Counts[k] - made; d < 0 || d > 1 {
			t.Errorf("slice %d: leak counts %d, %d made before it", k, leak.Counts[k], made)
		}
		markedAtEnd := (s.End-proftest.LeakStart)/proftest.LeakInterval >= proftest.LeakMarkedFrom
		if (leak.Unreachable[k] == leak.Counts[k]) != markedAtEnd || (!markedAtEnd && leak.Unreachable[k] != 0) {
			t.Errorf("slice %d: %d of %d unreachable, marked by its end: %v", k, leak.Unreachable[k], leak.Counts[k], markedAtEnd)
		}
		if pool.Counts[k] > proftest.PoolSize || pool.Counts[k] < proftest.PoolSize/2 {
			t.Errorf("slice %d: pool counts %d of %d", k, pool.Counts[k], proftest.PoolSize)
		}
	}
	want := 1e6 / float64(proftest.LeakInterval*proftest.LeakEvery)
	if math.Abs(leak.Rate-want) > want*0.05 {
		t.Errorf("leak grows %.2f/s, want %.2f", leak.Rate, want)
	}
	if pool.New != 0 {
		t.Errorf("pool: %d new", pool.New)
	}
	t.Logf("leak %v %v rate %.2f; pool %v", leak.Counts, leak.Unreachable, leak.Rate, pool.Counts)
}
