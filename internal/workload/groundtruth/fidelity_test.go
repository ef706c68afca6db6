package groundtruth_test

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/gotachyon/profiler"
	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/internal/workload/groundtruth"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/sampler"
)

// profile runs the workload for d under the profiler and scores the file.
func profile(t testing.TB, d time.Duration, opts ...profiler.Option) (*groundtruth.Report, error) {
	t.Helper()
	w, err := groundtruth.Start(groundtruth.Config{Seed: uint64(time.Now().UnixNano())})
	if err != nil {
		return nil, err
	}
	path := filepath.Join(t.TempDir(), "gt.bin")
	p := profiler.Start(append([]profiler.Option{profiler.WithPath(path), profiler.WithQuiet(true)}, opts...)...)
	time.Sleep(d)
	serr := p.Stop()
	w.Stop()
	if serr != nil {
		return nil, serr
	}
	f, err := reader.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return groundtruth.Score(f, w)
}

// TestFidelity profiles the ground-truth workload in wall and CPU mode and
// checks every goroutine against what it recorded of itself: function
// shares within ±2 points, state shares within ±3, present at 99% of the
// ticks and at the first and last, under the right wait-reason frame; 100
// samples on CPU per CPU-second (in wall mode: running ticks paid for by a
// CPU sample). The function shares are those of the samples whose stack
// the profile knows: the running ticks no CPU sample paid for, at a stack
// borrowed from the nearest one under "[no CPU sample]", are reported
// with how often they name the right phase, not judged (a loaded machine
// has many). The spinner's shares rest on about 100 CPU samples a second
// (σ ≈ 1.3 points after 15 s), so a failed run is retried twice as long,
// up to 2 minutes: beside other tests the spinner has about half a CPU,
// and a minute's samples still leave ±2 points near two standard
// deviations of its largest share.
func TestFidelity(t *testing.T) {
	if testing.Short() {
		t.Skip("statistical: tens of seconds of profiling")
	}
	for _, mode := range []sampler.Mode{sampler.Wall, sampler.CPU} {
		t.Run(mode.String(), func(t *testing.T) {
			limits := groundtruth.DefaultLimits
			limits.Rate = profiler.DefaultRate
			testutil.Retry(t, 15*time.Second, 4, func(d time.Duration) error {
				r, err := profile(t, d, profiler.WithMode(mode))
				if err != nil {
					t.Fatal(err)
				}
				t.Log(r)
				if err := r.Check(limits); err != nil {
					return fmt.Errorf("%v", err)
				}
				return nil
			})
		})
	}
}
