package profiler_test

import (
	"errors"
	"io"
	"log"
	"runtime/pprof"
	rtrace "runtime/trace"
	"strings"
	"testing"
	"time"

	"github.com/gotachyon/profiler"
	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/internal/workload/benchload"
	"github.com/gotachyon/profiler/tachyon"
)

// TestWriteErrorStopsSampling fills the output while 1,200 goroutines are
// parked and 2,000 new ones start each second: after the first write error
// the sampler must say so in the log, release the tracer and the CPU
// profiler, and Stop must return the error at once.
func TestWriteErrorStopsSampling(t *testing.T) {
	release := benchload.Park(1200)
	defer release()
	stopChurn := benchload.Churn(2000)
	defer stopChurn()
	out := &fullDisk{limit: 64 << 10}
	var logged testutil.Buffer
	p := profiler.Start(profiler.WithOutput(out), profiler.WithCompression(tachyon.CompressionNone), profiler.WithQuiet(true),
		profiler.WithLogger(log.New(&logged, "", 0)))
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if out.failed() {
			break
		}
		if time.Now().After(deadline) {
			p.Stop()
			t.Fatal("the output never filled")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// The sampler notices at its next write; give it a moment.
	for end := time.Now().Add(5 * time.Second); rtrace.IsEnabled() && time.Now().Before(end); {
		time.Sleep(10 * time.Millisecond)
	}
	if rtrace.IsEnabled() {
		t.Error("the tracer is still on 5 s after the first write error")
	} else if !strings.Contains(logged.String(), "profiler: sampling stopped: writing samples: writer: disk full") {
		// The sampler says it before it lets the tracer go.
		t.Errorf("the log did not say the sampling stopped before Stop:\n%s", logged.String())
	}
	if err := pprof.StartCPUProfile(io.Discard); err != nil {
		t.Errorf("the CPU profiler is still taken after the write error: %v", err)
	} else {
		pprof.StopCPUProfile()
	}
	t0 := time.Now()
	err := p.Stop()
	d := time.Since(t0)
	t.Logf("Stop took %v; %d samples, %d dropped", d, p.Stats().Samples, p.Stats().Dropped)
	if !errors.Is(err, errFull) {
		t.Errorf("Stop: %v, want ENOSPC", err)
	}
	if d > 2*time.Second {
		t.Errorf("Stop took %v after the sampler had stopped", d)
	}
}
