package profiler

import (
	"errors"
	"os"
	"os/signal"

	"github.com/gotachyon/profiler/internal/own"
)

// SignalReason is the reason of the captures the signal of
// WithRecentSignal takes.
const SignalReason = "signal"

// WithRecentSignal makes the signal sig, received while the profile
// runs, take a capture (Capture with reason SignalReason), so that an
// operator can save the recent past of a process from outside it:
// kill -USR1 PID. Only SIGUSR1 and SIGUSR2 are accepted, and none is by
// default. The profile listens for sig (signal.Notify) from Start to
// Stop only, and not at all if the program ignores it (signal.Ignored);
// a program that handles sig itself still receives it, and takes its own
// action too: choose a signal the program leaves alone. Outside the
// profile, sig has its usual effect (in a Go program that does not
// handle them, SIGUSR1 and SIGUSR2 do nothing).
func WithRecentSignal(sig os.Signal) Option {
	return func(c *config) error {
		if !captureSignal(sig) {
			return errors.New("profiler: WithRecentSignal: want SIGUSR1 or SIGUSR2")
		}
		c.recentSignal, c.signalByEnv = sig, false
		return nil
	}
}

// startSignal listens for the capture signal, if one is asked for and
// the program does not ignore it.
func (p *Profile) startSignal() {
	sig := p.cfg.recentSignal
	if sig == nil {
		return
	}
	if p.rw == nil {
		if p.cfg.signalByEnv {
			return // EnvOptions has said it, naming the variable
		}
		p.logf("profiler: WithRecentSignal has no effect without a recent window (WithRecent, or WithSegment, which keeps one): %v takes no capture", sig)
		return
	}
	if signal.Ignored(sig) {
		p.logf("profiler: %v is ignored by the program: it takes no capture (WithRecentSignal)", sig)
		return
	}
	c := make(chan os.Signal, 1)
	signal.Notify(c, sig)
	p.sig = c
	own.Go(func() {
		for range c {
			if err := p.Capture(SignalReason); err != nil {
				p.logf("%v (on %v)", err, sig)
			}
		}
	})
}

// stopSignal stops listening for the capture signal.
func (p *Profile) stopSignal() {
	if p.sig != nil {
		signal.Stop(p.sig)
		close(p.sig)
	}
}
