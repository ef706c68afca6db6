package sampler

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	rtrace "runtime/trace"
	"strings"
	"testing"
	"time"

	xtrace "golang.org/x/exp/trace"
)

// A tracer that deadlocks cannot be stopped from within: the tests below
// run their body in a child process (this test binary, this one test), and
// each step that could block has a watchdog that makes the child exit with
// the step's name, so that a regression fails the test at once instead of
// hanging the binary.

// childEnv names the test a child process runs.
const childEnv = "SAMPLER_TEST_CHILD"

// inChild reports whether this process is the child that runs t's body.
// In the parent it runs the child, fails t with its output unless it
// passes within limit, and returns false.
func inChild(t *testing.T, limit time.Duration) bool {
	t.Helper()
	return inChildTries(t, limit, 1)
}

// retryMark begins the failure of a child whose run met a condition of
// the machine, not of the code (inChildTries runs it again).
const retryMark = "retry: "

// inChildTries is inChild, running the child up to tries times while it
// fails with a message that begins with retryMark.
func inChildTries(t *testing.T, limit time.Duration, tries int) bool {
	t.Helper()
	if os.Getenv(childEnv) == t.Name() {
		return true
	}
	for try := 1; ; try++ {
		cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), childEnv+"="+t.Name())
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err == nil && strings.Contains(out.String(), "--- PASS") {
				return false
			}
			if try < tries && strings.Contains(out.String(), retryMark) {
				t.Logf("child %d of %d: %s; again", try, tries, tail(out.String()))
				continue
			}
			t.Fatalf("child: %v\n%s", err, tail(out.String()))
		case <-time.After(limit):
			cmd.Process.Kill()
			<-done
			t.Fatalf("child still running after %v\n%s", limit, tail(out.String()))
		}
		return false
	}
}

// tail returns the end of a child's output.
func tail(s string) string {
	if len(s) > 8000 {
		return "…" + s[len(s)-8000:]
	}
	return s
}

// within runs f and makes the (child) process exit, naming what, if f has
// not returned within d.
func within(d time.Duration, what string, f func()) {
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(d):
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		fmt.Printf("%s did not return within %v\n%s\n", what, d, buf)
		os.Exit(3)
	}
}

// stepLimit bounds one step of the tests below: far above what a step
// takes on a loaded machine under -race, far below a test's patience.
const stepLimit = 10 * time.Second

// newFR starts a flight recorder as an application would.
func newFR(t *testing.T) *rtrace.FlightRecorder {
	t.Helper()
	fr := rtrace.NewFlightRecorder(rtrace.FlightRecorderConfig{MinAge: time.Second, MaxBytes: 4 << 20})
	if err := fr.Start(); err != nil {
		t.Fatalf("flight recorder: %v", err)
	}
	return fr
}

// snapshotFR checks that the application's flight recorder writes a
// readable trace.
func snapshotFR(t *testing.T, fr *rtrace.FlightRecorder, when string) {
	t.Helper()
	var buf bytes.Buffer
	var err error
	within(stepLimit, "FlightRecorder.WriteTo "+when, func() { _, err = fr.WriteTo(&buf) })
	if err != nil {
		t.Fatalf("FlightRecorder.WriteTo %s: %v", when, err)
	}
	if countEvents(t, &buf, "flight recording "+when) == 0 {
		t.Fatalf("flight recording %s has no events", when)
	}
}

// countEvents reads trace r whole and returns its number of events.
func countEvents(t *testing.T, r io.Reader, what string) int {
	t.Helper()
	rd, err := xtrace.NewReader(r)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	n := 0
	for {
		_, err := rd.ReadEvent()
		if err == io.EOF {
			return n
		}
		if err != nil {
			t.Fatalf("%s, after %d events: %v", what, n, err)
		}
		n++
	}
}

// TestBesideFlightRecorder: with the application's flight recorder
// running, the trace backend starts promptly, samples, leaves the recorder
// working, and stops.
func TestBesideFlightRecorder(t *testing.T) {
	if !inChild(t, 4*stepLimit) {
		return
	}
	fr := newFR(t)
	defer fr.Stop()
	for _, b := range []Backend{Trace, Auto} {
		w := startWorkload(t, false)
		sink := newMemSink()
		var s *Sampler
		var err error
		within(stepLimit, b.String()+" Start", func() { s, err = Start(Config{Backend: b}, sink) })
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
		snapshotFR(t, fr, "while the sampler runs")
		var st Stats
		within(stepLimit, b.String()+" Stop", func() { st, err = s.Stop() })
		w.Stop()
		if err != nil {
			t.Fatal(err)
		}
		// Auto may move to snapshots for a while on cost (a Switch says
		// so); neither backend may fall back for want of the trace.
		if st.Fallback != "" || st.Backend != Trace && len(st.Switches) == 0 {
			t.Fatalf("%v: backend %v, fallback %q, switches %v; want the trace beside the flight recorder", b, st.Backend, st.Fallback, st.Switches)
		}
		wantState(t, sink, w.ids, "chan", 0, "[chan receive]", "sampler.blockChan")
		snapshotFR(t, fr, "after Stop")
	}
}

// TestAutoBackToTraceBesideFlightRecorder: while Auto traces, it holds the
// flight recorder's slot, and the application's flight recorder fails to
// start, at once; while Auto runs snapshots, the application starts one.
// Auto's switch back to the trace, now through trace.Start, must not
// block, and Stop returns.
func TestAutoBackToTraceBesideFlightRecorder(t *testing.T) {
	if !inChild(t, 4*stepLimit) {
		return
	}
	w := startWorkload(t, false)
	defer w.Stop()
	sink := newMemSink()
	s, err := Start(Config{Backend: Auto}, sink)
	if err != nil {
		t.Fatal(err)
	}
	fr := rtrace.NewFlightRecorder(rtrace.FlightRecorderConfig{MinAge: time.Second, MaxBytes: 4 << 20})
	within(stepLimit, "FlightRecorder.Start while Auto traces", func() { err = fr.Start() })
	if err == nil {
		t.Fatal("the application's flight recorder started while the sampler holds the slot")
	}
	switchAuto(s, Snapshot)
	within(stepLimit, "FlightRecorder.Start while Auto runs snapshots", func() { err = fr.Start() })
	if err != nil {
		t.Fatalf("the application's flight recorder, while the sampler runs snapshots: %v", err)
	}
	defer fr.Stop()
	switchAuto(s, Trace)
	snapshotFR(t, fr, "after the switches")
	var st Stats
	within(stepLimit, "Stop", func() { st, err = s.Stop() })
	if err != nil {
		t.Fatal(err)
	}
	// Auto may also have moved to snapshots on cost before it was asked
	// (under -race the workload switches goroutines fast): a Switch says
	// so. The last two are the ones asked for.
	n := len(st.Switches)
	if st.Backend != Trace || n < 2 || n > 3 || st.Switches[n-2].To != Snapshot || st.Switches[n-1].To != Trace {
		t.Fatalf("backend %v, switches %+v; want snapshots, then the trace again", st.Backend, st.Switches)
	}
	wantState(t, sink, w.ids, "chan", 0, "[chan receive]", "sampler.blockChan")
	snapshotFR(t, fr, "after Stop")
}

// switchAuto makes s's Auto supervisor switch to b, and waits until b runs.
func switchAuto(s *Sampler, b Backend) {
	within(stepLimit, "switch to "+b.String(), func() {
		s.auto.force <- b
		for s.Backend() != b {
			time.Sleep(time.Millisecond)
		}
	})
}
