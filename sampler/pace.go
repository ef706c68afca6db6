package sampler

import (
	"sync/atomic"
	"time"
)

// The runtime hands the trace over one generation (about a second) at a
// time, and the parser can read a generation's events only once the next
// has begun. Parsed flat out, a busy service's generation is a burst of
// tens of milliseconds of CPU that takes a P from the application and shows
// in its tail latency. The pacer spreads that work: after each chunk of
// events it sleeps, so that the parser uses at most paceDuty of a CPU while
// it keeps up. It never lets the parser fall behind: once the events being
// parsed are older than paceBehind it stops sleeping until it has caught
// up, and it never sleeps once Stop has begun, whose wait is bounded by the
// last generation's parse.

const (
	// paceChunk is the number of events parsed between two looks at the
	// clock.
	paceChunk = 2048
	// paceDuty is the share of one CPU the parser aims at, in percent.
	paceDuty = 25
	// paceMaxNap caps one sleep, so that the parser is never away long.
	paceMaxNap = 10 * time.Millisecond
	// paceBehind is how old the events being parsed may be before the
	// pacer stops sleeping: one generation waits whole for the next to
	// begin, and the pacer spreads its parse over about one more.
	paceBehind = 2 * time.Second
)

// pacer spreads the trace parser's work; see above.
type pacer struct {
	on       bool      // pacing a live trace (not a recorded one)
	n        int       // events since the chunk began
	chunk    time.Time // when the chunk began
	stopping atomic.Bool
}

// event counts one event parsed; at the end of a chunk it may sleep. wallNS
// is the event's wall-clock time in nanoseconds since the epoch.
func (p *pacer) event(wallNS int64) {
	if !p.on {
		return
	}
	if p.n++; p.n < paceChunk {
		return
	}
	p.n = 0
	now := time.Now()
	work := now.Sub(p.chunk)
	p.chunk = now
	if p.stopping.Load() || work <= 0 || work == now.Sub(time.Time{}) || now.UnixNano()-wallNS > int64(paceBehind) {
		return
	}
	time.Sleep(min(work*(100-paceDuty)/paceDuty, paceMaxNap))
	p.chunk = time.Now()
}
