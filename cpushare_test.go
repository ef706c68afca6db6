package profiler_test

import (
	"io"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gotachyon/profiler"
	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/sampler"
)

//go:noinline
func shareSpin(stop *atomic.Bool) {
	var x uint64
	for !stop.Load() {
		for i := 0; i < 1000; i++ {
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
	shareSink.Add(x)
}

var shareSink atomic.Uint64

// TestAppStopsItsCPUProfile is issue 25's scenario end to end: a CPU
// profile of three seconds, begun while the application runs its own CPU
// profile, which it stops after half a second. The file must hold about
// as many samples of the spinning goroutine as it had CPU time at 100 Hz
// (not the half second's worth), and Stats must say what happened.
func TestAppStopsItsCPUProfile(t *testing.T) {
	if err := pprof.StartCPUProfile(io.Discard); err != nil {
		t.Fatalf("the application's CPU profile: %v", err)
	}
	appStopped := false
	defer func() {
		if !appStopped {
			pprof.StopCPUProfile()
		}
	}()
	path := filepath.Join(t.TempDir(), "cpu.bin")
	p := profiler.Start(profiler.WithPath(path), profiler.WithMode(sampler.CPU), profiler.WithRate(100), profiler.WithBackend(sampler.Trace), profiler.WithQuiet(true))
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
	id, stopSpin := testutil.Spin(shareSpin)
	time.Sleep(500 * time.Millisecond)
	pprof.StopCPUProfile()
	appStopped = true
	time.Sleep(2500 * time.Millisecond)
	cpu := stopSpin()
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	st := p.Stats()
	if p.Backend() != sampler.Trace {
		t.Fatalf("backend %v (%s), want trace", p.Backend(), st.Fallback)
	}
	f, err := reader.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	it := f.Samples()
	for it.Next() {
		if it.Sample().ThreadID == id {
			n++
		}
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	it.Close()
	want := cpu.Seconds() * 100
	t.Logf("%d samples of the spinner for %v of CPU (%.0f expected); Stats.CPUProfile %q, CPUGap %v", n, cpu, want, st.CPUProfile, st.CPUGap)
	if float64(n) < 0.6*want || float64(n) > 1.3*want+10 {
		t.Errorf("%d samples of the spinner for %v of CPU, want about %.0f", n, cpu, want)
	}
	if !strings.Contains(st.CPUProfile, "started it again") || st.CPUGap <= 0 || st.CPUGap > time.Second {
		t.Errorf("Stats.CPUProfile %q, CPUGap %v: want a takeover after a gap under a second", st.CPUProfile, st.CPUGap)
	}
}
