// Filling a file takes seconds, and over a minute under the race
// detector, which the writer's other tests run under: this one runs
// without it (CI's second pass).

//go:build !race

package writer_test

import (
	"errors"
	"math"
	"path/filepath"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// TestFileFull fills a file to the format's 2^32-1 samples, as a long
// profile of many parked goroutines does: threads of 400 M ticks each
// until RepeatEvery writes what fits and says ErrTooManySamples. Every
// later sample must be refused, Close must finalize the file, and the
// reader must find every sample the header counts.
func TestFileFull(t *testing.T) {
	path := filepath.Join(t.TempDir(), "full.tachyon")
	w, err := writer.Create(path, writer.Options{Compression: tachyon.CompressionZstd, StartTime: 1, Interval: 10_000})
	if err != nil {
		t.Fatal(err)
	}
	stack := []uint32{w.Frame(tachyon.Frame{File: "a.go", Func: "a", Line: 1})}
	const ticks = 400_000_000
	full := false
	for id := uint64(1); !full; id++ {
		th := w.NewThread(id, 0)
		if err := th.Write(1, 0, stack); err != nil {
			t.Fatalf("thread %d's first sample: %v", id, err)
		}
		switch err := th.RepeatEvery(10_001, 10_000, ticks, 0); {
		case errors.Is(err, writer.ErrTooManySamples):
			full = true
		case err != nil:
			t.Fatalf("thread %d: %v", id, err)
		}
		th.Flush()
	}
	if got := w.Stats().Samples; got != math.MaxUint32 {
		t.Fatalf("full at %d samples", got)
	}
	if err := w.NewThread(1<<40, 0).Write(1, 0, stack); !errors.Is(err, writer.ErrTooManySamples) {
		t.Errorf("a sample past the limit: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f := proftest.Open(t, path)
	it := f.Samples()
	var n uint64
	for it.NextRun() {
		n += it.Run().Count
	}
	if err := it.Err(); err != nil || n != math.MaxUint32 || f.Header.SampleCount != math.MaxUint32 {
		t.Errorf("read %d samples, the header says %d: %v", n, f.Header.SampleCount, err)
	}
}
