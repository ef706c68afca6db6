package auto

import (
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/gotachyon/profiler"
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
	sigs = make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	mu.Unlock()
	go onSignal(sigs)
}

// onSignal finalizes the profile on the first signal, then re-raises it.
func onSignal(c chan os.Signal) {
	sig, ok := <-c
	if !ok {
		return // Stop was called
	}
	Stop()
	signal.Reset(sig)
	if p, err := os.FindProcess(os.Getpid()); err == nil && p.Signal(sig) == nil {
		select {} // the default action ends the process
	}
	os.Exit(1)
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
