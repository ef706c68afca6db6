package demo_test

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/gotachyon/profiler"
	"github.com/gotachyon/profiler/internal/demo"
	"github.com/gotachyon/profiler/internal/testutil"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/sampler"
)

const tolerance = 0.02 // ±2 percentage points

// profileDemo runs the workload for d under the profiler and summarizes the
// resulting file.
func profileDemo(t *testing.T, d time.Duration, goroutines int, opts ...profiler.Option) (demo.Summary, demo.Result, sampler.Backend) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "demo.bin")
	p := profiler.Start(append([]profiler.Option{profiler.WithPath(path), profiler.WithQuiet(true)}, opts...)...)
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	res, err := demo.Run(ctx, demo.Config{Goroutines: goroutines})
	cancel()
	if serr := p.Stop(); serr != nil {
		t.Fatal(serr)
	}
	if err != nil {
		t.Fatal(err)
	}
	f, err := reader.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sum, err := demo.Summarize(f)
	if err != nil {
		t.Fatal(err)
	}
	return sum, res, p.Backend()
}

// TestSplit checks that CPU mode finds the spinner's 60/40 split between
// hotA and hotB within ±2 points of what the workload measured itself. CPU
// samples are close to independent draws, so ±2 points needs about 2,000 of
// them (σ ≈ 1.1 points): the test pools 5 s runs until it has them, which
// takes about 10 s on an idle machine. If a loaded machine cannot give the
// spinner enough CPU within the time budget, the test skips locally (and
// fails under CI).
func TestSplit(t *testing.T) {
	if testing.Short() {
		t.Skip("statistical, needs seconds of CPU")
	}
	const need = 2000
	budget := 120 * time.Second
	if deadline, ok := t.Deadline(); ok {
		budget = min(budget, time.Until(deadline)/2)
	}
	var a, b int
	var cpuA, cpuB time.Duration
	for start := time.Now(); a+b < need && time.Since(start)+5*time.Second < budget; {
		sum, res, _ := profileDemo(t, 5*time.Second, 10, profiler.WithMode(sampler.CPU), profiler.WithRate(250))
		a, b = a+sum.Roles["hotA"].Samples, b+sum.Roles["hotB"].Samples
		cpuA, cpuB = cpuA+res.CPUA, cpuB+res.CPUB
		t.Logf("run: hotA %d, hotB %d CPU samples; pooled %d", sum.Roles["hotA"].Samples, sum.Roles["hotB"].Samples, a+b)
	}
	want := demo.Result{CPUA: cpuA, CPUB: cpuB}.Split()
	if math.Abs(want-demo.ShareA) > 0.005 {
		t.Fatalf("workload itself split %.3f, not %.2f", want, demo.ShareA)
	}
	n := a + b
	got := float64(a) / float64(max(n, 1))
	if n < need {
		testutil.Missing(t, "only %d CPU samples of the spinner (split %.2f%%): machine too loaded to judge ±2 points", n, 100*got)
	}
	if math.Abs(got-want) > tolerance {
		t.Fatalf("split %.2f%% from %d samples, want %.2f%% ± %.0f", 100*got, n, 100*want, 100*tolerance)
	}
	t.Logf("split %.2f%% from %d samples, workload measured %.2f%%", 100*got, n, 100*want)
}

// TestStates checks, for both backends in wall mode, that the sleeping,
// blocked, IO-waiting, in-syscall and idle goroutines are all seen, each
// in its state for at least 98% of its samples.
func TestStates(t *testing.T) {
	for _, b := range []sampler.Backend{sampler.Trace, sampler.Snapshot} {
		t.Run(b.String(), func(t *testing.T) {
			const pool = 20
			want := []struct {
				role, state string
				goroutines  int
			}{
				{"sleeper", "blocked", 4},
				{"blockedOnChan", "blocked", 1},
				{"waitPipe", "blocked", 1},
				{"readSyscall", "syscall", 1},
				{"idleWorker", "blocked", pool},
			}
			testutil.Retry(t, time.Second, 3, func(d time.Duration) error {
				sum, _, ran := profileDemo(t, d, pool, profiler.WithBackend(b))
				if ran != b {
					t.Skipf("backend %v not available (ran %v)", b, ran)
				}
				for _, w := range want {
					rs := sum.Roles[w.role]
					if rs.Goroutines != w.goroutines {
						return fmt.Errorf("%s: %d goroutines sampled, want %d", w.role, rs.Goroutines, w.goroutines)
					}
					if share := rs.Share(w.state); share < 1-tolerance {
						return fmt.Errorf("%s: %s in %.1f%% of %d samples (%v), want ≥ %.0f%%", w.role, w.state, 100*share, rs.Samples, rs.States, 100*(1-tolerance))
					}
				}
				return nil
			})
		})
	}
}
