package upload_test

import (
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gotachyon/profiler"
	"github.com/gotachyon/profiler/internal/workload/benchload"
	"github.com/gotachyon/profiler/upload"
)

// TestProfilerSegmentsArrive runs the real profiler in 300 ms segments
// over parked goroutines with the uploader on its OnSegment hook, the
// wiring upload/auto makes: every finalized segment with samples reaches
// the store, in order, with the file's totals, the last one flushed before
// Stop returns.
func TestProfilerSegmentsArrive(t *testing.T) {
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			r := st.new(t)
			r.up()
			u := newUploader(t, st.url(r.addr), upload.Config{})
			release := benchload.Park(200)
			defer release()
			dir := filepath.Join(t.TempDir(), "segments")
			p := profiler.Start(profiler.WithPath(dir), profiler.WithSegment(300*time.Millisecond), profiler.WithQuiet(true))
			if err := p.Err(); err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			var paths []string
			p.OnSegment(func(path string, last bool) {
				mu.Lock()
				paths = append(paths, path)
				mu.Unlock()
				u.Segment(path, last)
			})
			time.Sleep(1500 * time.Millisecond)
			if err := p.Stop(); err != nil {
				t.Fatal(err)
			}
			// A segment without samples is not pushed: on a loaded machine
			// the first one can end before the sampler's first tick.
			paths = slices.DeleteFunc(paths, func(p string) bool { return len(fileTotals(t, p)) == 0 })
			if len(paths) < 2 {
				t.Fatalf("%d segments with samples in 1.5 s of 300 ms segments", len(paths))
			}
			checkReceived(t, r.received(), paths, st.series("checkout"))
			if s := u.Stats(); s.Pushed != int64(len(paths)) || s.Dropped != 0 || s.Failed != 0 {
				t.Errorf("stats: %+v", s)
			}
		})
	}
}
