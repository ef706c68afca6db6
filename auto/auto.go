package auto

import (
	"io"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"

	"github.com/gotachyon/profiler"
	"github.com/gotachyon/profiler/internal/envnames"
	"github.com/gotachyon/profiler/internal/own"
	"github.com/gotachyon/profiler/internal/quietpipe"
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
		io.WriteString(quietpipe.Stderr, err.Error()+"\n")
		return
	}
	start(opts)
}

func start(opts []profiler.Option) {
	p := profiler.Start(opts...)
	if p.Err() != nil {
		return // logged by Start
	}
	checkUpload(p)
	mu.Lock()
	current = p
	// A signal the process was started with ignored (a background job's
	// SIGINT, nohup's) is left ignored: Notify would make it deliverable,
	// and stop the profile on a signal the program never sees.
	var want []os.Signal
	for _, s := range []os.Signal{syscall.SIGINT, syscall.SIGTERM} {
		if !signal.Ignored(s) {
			want = append(want, s)
		}
	}
	if signalsWanted() && len(want) > 0 {
		sigs = make(chan os.Signal, 1)
		signal.Notify(sigs, want...)
		c := sigs
		own.Go(func() { onSignal(c) })
	}
	mu.Unlock()
}

// EnvSignals, set to "on", makes the package finalize the profile on the
// first SIGINT or SIGTERM and then raise the signal again, so that the
// process dies by it: for a program that does not handle these signals
// itself, it saves the last seconds a crash-safe profile would lose. A
// program that handles them must not set it: it would receive the signal
// twice. Unset, or "off" (the default), the package does not touch
// signals at all, and a process that dies by one leaves its profile as of
// its last checkpoint (see profiler.PartDir).
const EnvSignals = envnames.Signals

// signalsWanted reads EnvSignals.
func signalsWanted() bool {
	switch v := os.Getenv(EnvSignals); v {
	case "", "off", "auto":
		return false
	case "on":
		return true
	default:
		io.WriteString(quietpipe.Stderr, "profiler: "+EnvSignals+"="+strconv.Quote(v)+": want on or off; signals are left to the program (off)\n")
		return false
	}
}

// onSignal finalizes the profile on the first SIGINT or SIGTERM, then
// raises the signal again with nobody listening: the process dies by it,
// as it would have without PROFILE_SIGNALS=on.
func onSignal(c chan os.Signal) {
	sig, ok := <-c
	if !ok {
		return // Stop was called
	}
	Stop() // finalizes, and stops relaying signals to c
	raise(sig)
}

// Profile returns the profile started from the environment, or nil when
// the environment asked for none (neither PROFILE_OUT nor PROFILE_RECENT
// set; see profiler.EnvOptions) or profiling failed to start.
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
