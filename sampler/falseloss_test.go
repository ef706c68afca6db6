package sampler

import (
	rtrace "runtime/trace"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestStopAfterFalseLoss: beside the application's flight recorder, where
// the runtime cannot be asked whether trace.Start's slot is still the
// backend's, Stop finds the slot silent (startLost 0: a generation slower
// than startLost) while the runtime still writes there. Stop must not fail
// the profile on the generation it cut off, and must leave no tracer of
// its own running: the application's trace.Start after Stop succeeds.
func TestStopAfterFalseLoss(t *testing.T) {
	if !inChild(t, 4*stepLimit) {
		return
	}
	defer func(d time.Duration) { startLost = d }(startLost)
	fr := newFR(t)
	defer fr.Stop()
	var s *Sampler
	var err error
	var said, claimed atomic.Bool
	logf := func(msg string) {
		if strings.Contains(msg, "cut off") {
			said.Store(true)
		}
		if strings.Contains(msg, "(the application called trace.Stop)") {
			claimed.Store(true) // the runtime could not be asked
		}
	}
	within(stepLimit, "Start", func() { s, err = Start(Config{Backend: Trace, Log: logf}, newMemSink()) })
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	defer close(stop)
	for range 4 {
		go func() { // events, so that a generation spans many writes
			for {
				select {
				case <-stop:
					return
				default:
					time.Sleep(time.Microsecond)
				}
			}
		}()
	}
	time.Sleep(1500 * time.Millisecond)
	startLost = 0
	within(stepLimit, "Stop", func() { _, err = s.Stop() })
	if err != nil {
		t.Errorf("Stop after a false loss of trace.Start's slot: %v", err)
	}
	if claimed.Load() {
		t.Error("the log says the application called trace.Stop, which the runtime could not be asked")
	}
	if err == nil && !said.Load() {
		t.Log("Stop's look found the slot still written (no false loss this run)")
	}
	deadline := time.Now().Add(stepLimit)
	for {
		err := rtrace.Start(&countWriter{})
		if err == nil {
			rtrace.Stop()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the application's trace.Start %v after Stop: %v", stepLimit, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
