package auto

import (
	"log"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/gotachyon/profiler"
	"github.com/gotachyon/profiler/internal/goid"
	"github.com/gotachyon/profiler/sampler"
)

var (
	mu      sync.Mutex
	current *profiler.Profile
	sigs    chan os.Signal
)

func init() {
	opts, ok, err := profiler.EnvOptions()
	if !ok {
		return
	}
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return
	}
	start(opts)
}

func start(opts []profiler.Option) {
	p := profiler.Start(opts...)
	if p.Err() != nil {
		return // logged by Start
	}
	mu.Lock()
	current = p
	if signalsWanted() {
		sigs = make(chan os.Signal, 1)
		signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
		go onSignal(sigs)
	}
	mu.Unlock()
}

// EnvSignals, set to "off", leaves SIGINT and SIGTERM entirely to the
// program: the package does not listen for them, and a profile is then
// finalized only by Stop (or, with segments, segment by segment).
const EnvSignals = "PROFILE_SIGNALS"

// signalsWanted reads EnvSignals.
func signalsWanted() bool {
	switch v := os.Getenv(EnvSignals); v {
	case "", "on", "auto":
		return true
	case "off":
		return false
	default:
		os.Stderr.WriteString("profiler: " + EnvSignals + "=" + strconv.Quote(v) + ": want off, on or auto; signals are handled (auto)\n")
		return true
	}
}

// onSignal finalizes the profile on the first SIGINT or SIGTERM, then
// lets the signal have the effect it would have had without the package:
// if the program's own handler received it too, nothing more (its shutdown
// runs, and it exits as it chooses); if nobody else did, the default
// action, raised again (the process dies by the signal).
func onSignal(c chan os.Signal) {
	self := goid.Current()
	sig, ok := <-c
	if !ok {
		return // Stop was called
	}
	p := Profile()
	Stop() // finalizes, and stops relaying signals to c
	switch handled, known := otherReceivers(p.Stats(), self); {
	case handled:
		return
	case !known:
		log.Printf("profiler: %v: the profile is finalized; whether the program handles %v is not known (the trace backend did not run throughout), so it is not raised again: send it again to end the process", sig, sig)
		return
	}
	if s, ok := sig.(syscall.Signal); ok {
		syscall.Kill(os.Getpid(), s) // nobody listens now: the default action
	}
}

// otherReceivers reports whether a goroutine other than self received the
// signal self received last: a receiver of another signal.Notify channel,
// woken by the os/signal package within 100 ms of self (the same
// delivery). The execution trace records who wakes whom, so the answer
// holds even if the program stops listening at once (signal.NotifyContext's
// stop, called right after its context is done). known is false when the
// trace did not cover the signal.
func otherReceivers(st sampler.Stats, self uint64) (handled, known bool) {
	if !st.SignalWakesKnown {
		return false, false
	}
	var at time.Time
	for _, w := range st.SignalWakes {
		if w.Goroutine == self {
			at = w.At
		}
	}
	if at.IsZero() {
		return false, false // self was not waiting when the signal came
	}
	for _, w := range st.SignalWakes {
		if w.Goroutine != self && w.At.Sub(at).Abs() < 100*time.Millisecond {
			return true, true
		}
	}
	return false, true
}

// Profile returns the profile started from the environment, or nil when
// PROFILE_OUT was not set or profiling failed to start.
func Profile() *profiler.Profile {
	mu.Lock()
	defer mu.Unlock()
	return current
}

// Stop finalizes the profile started from the environment and returns
// Profile.Stop's error; it returns nil when no profile was started. Call it at
// the end of main. It is idempotent and safe from any goroutine.
func Stop() error {
	mu.Lock()
	p, c := current, sigs
	sigs = nil
	mu.Unlock()
	if p == nil {
		return nil
	}
	if c != nil {
		signal.Stop(c)
		close(c)
	}
	return p.Stop()
}
