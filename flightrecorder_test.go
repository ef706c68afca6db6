package profiler

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	rtrace "runtime/trace"
	"testing"
	"time"

	xtrace "golang.org/x/exp/trace"

	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/sampler"
)

// TestBesideFlightRecorder: a program with a running flight recorder
// profiles into a file, snapshots its recorder while the profile runs and
// after, and stops. A tracer that deadlocks cannot be stopped from within,
// so the body runs in a child process (this test binary, this test) that
// the parent kills if it has not passed in time.
func TestBesideFlightRecorder(t *testing.T) {
	if !testutil.InChild(t, 40*time.Second) {
		return
	}
	fr := rtrace.NewFlightRecorder(rtrace.FlightRecorderConfig{MinAge: time.Second, MaxBytes: 4 << 20})
	if err := fr.Start(); err != nil {
		t.Fatal(err)
	}
	defer fr.Stop()
	path := filepath.Join(t.TempDir(), "p.bin")
	var p *Profile
	step(t, "Start", func() { p = Start(WithPath(path), WithQuiet(true)) })
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
	park := make(chan struct{})
	go func() { <-park }()
	time.Sleep(200 * time.Millisecond)
	var n int64
	var err error
	step(t, "FlightRecorder.WriteTo while profiling", func() { n, err = fr.WriteTo(&bytes.Buffer{}) })
	if err != nil || n == 0 {
		t.Fatalf("FlightRecorder.WriteTo while profiling: %d bytes, %v", n, err)
	}
	step(t, "Stop", func() { err = p.Stop() })
	close(park)
	if err != nil {
		t.Fatal(err)
	}
	// Auto may move to snapshots for a while on cost (a Switch says so);
	// it must never fall back for want of the trace.
	if st := p.Stats(); st.Fallback != "" || st.Backend != sampler.Trace && len(st.Switches) == 0 {
		t.Errorf("backend %v, fallback %q, switches %v; want the trace beside the flight recorder", st.Backend, st.Fallback, st.Switches)
	}
	if proftest.Validate(t, path) == 0 {
		t.Error("no samples")
	}
	step(t, "FlightRecorder.WriteTo after Stop", func() { n, err = fr.WriteTo(&bytes.Buffer{}) })
	if err != nil || n == 0 {
		t.Fatalf("FlightRecorder.WriteTo after Stop: %d bytes, %v", n, err)
	}
}

// TestAppTraceWhileProfiling: the application's own trace.Start (what
// net/http/pprof's /debug/pprof/trace calls) works while a profile runs,
// and both the application's trace and the profile are whole.
func TestAppTraceWhileProfiling(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.bin")
	// The trace backend itself: Auto may move to snapshots on cost, which
	// would say nothing of the slot.
	p := Start(WithPath(path), WithQuiet(true), WithBackend(sampler.Trace))
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
	park := make(chan struct{})
	go func() { <-park }()
	time.Sleep(100 * time.Millisecond)
	var app bytes.Buffer
	err := rtrace.Start(&app)
	if err == nil {
		time.Sleep(100 * time.Millisecond)
		rtrace.Stop()
	}
	close(park)
	if perr := p.Stop(); perr != nil {
		t.Fatal(perr)
	}
	if err != nil {
		t.Fatalf("the application's trace.Start while profiling: %v", err)
	}
	rd, err := xtrace.NewReader(&app)
	if err != nil {
		t.Fatalf("the application's trace: %v", err)
	}
	for n := 0; ; n++ {
		if _, err := rd.ReadEvent(); err == io.EOF {
			if n == 0 {
				t.Fatal("the application's trace has no events")
			}
			break
		} else if err != nil {
			t.Fatalf("the application's trace, after %d events: %v", n, err)
		}
	}
	if st := p.Stats(); st.Backend != sampler.Trace {
		t.Errorf("backend %v (fallback %q), want the trace", st.Backend, st.Fallback)
	}
	if proftest.Validate(t, path) == 0 {
		t.Error("no samples")
	}
}

// step runs f, and ends the (child) process naming what if f has not
// returned within 10 s.
func step(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		fmt.Printf("%s did not return within 10s\n", what)
		os.Exit(3)
	}
}
