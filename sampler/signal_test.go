package sampler

import (
	"os"
	"os/signal"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/goid"
)

// TestSignalWakes checks that the trace backend names the goroutine the
// os/signal package woke with a signal, and no other.
func TestSignalWakes(t *testing.T) {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGUSR1)
	defer signal.Stop(c)
	ids := make(chan uint64)
	got := make(chan struct{})
	go func() {
		ids <- goid.Current()
		<-c
		close(got)
	}()
	receiver := <-ids
	other := make(chan int)
	go func() { <-other }() // woken by a plain send: not a receiver
	s, err := Start(Config{Backend: Trace}, newMemSink())
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	syscall.Kill(os.Getpid(), syscall.SIGUSR1)
	other <- 1
	select {
	case <-got:
	case <-time.After(5 * time.Second):
		t.Fatal("the signal did not arrive")
	}
	st, err := s.Stop()
	if err != nil {
		t.Fatal(err)
	}
	var woken []uint64
	for _, w := range st.SignalWakes {
		woken = append(woken, w.Goroutine)
		if d := time.Since(w.At); d < 0 || d > 5*time.Second {
			t.Errorf("wake of %d at %v, %v ago", w.Goroutine, w.At, d)
		}
	}
	if !st.SignalWakesKnown || !slices.Equal(woken, []uint64{receiver}) {
		t.Errorf("SignalWakes %v (known %v), want goroutine %d", st.SignalWakes, st.SignalWakesKnown, receiver)
	}
}
