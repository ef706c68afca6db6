package sampler

import (
	"sync/atomic"
	"time"
)

// The runtime hands the trace over one generation (about a second) at a
// time, and the parser can read a generation's events only once the next
// has begun. Parsed flat out, a busy service's generation is a burst of
// parsing that takes a P from the application and shows in its tail
// latency (bench/MEASUREMENTS.md has a service's figures). The pacer spreads that work: after each chunk of
// events it sleeps, so that the parser uses at most paceDuty of a CPU while
// it keeps up. It never lets the parser fall behind: once the events being
// parsed are older than paceBehind it stops sleeping until it has caught
// up, and it never sleeps once Stop has begun (and Stop ends a nap in progress), whose wait is bounded by the
// last generation's parse.

const (
	// paceChunk is a tunable: the number of events parsed between two
	// looks at the clock, each followed by a nap while the parser keeps
	// up. A smaller chunk makes shorter bursts of parsing, and so a lower
	// tail latency under a busy trace, at the cost of more naps. Its
	// evidence, and the benchmark that measures it, are in
	// bench/MEASUREMENTS.md.
	paceChunk = 2048
	// paceDuty is the share of one CPU the parser aims at, in percent.
	paceDuty = 25
	// paceMaxNap caps one sleep, so that the parser is never away long.
	paceMaxNap = 10 * time.Millisecond
	// paceBehind is how old the events being parsed may be before the
	// pacer stops sleeping: one generation waits whole for the next to
	// begin, and the pacer spreads its parse over about one more.
	paceBehind = 2 * time.Second
	// paceReadChunk is the reading between two naps while a generation's
	// batches are read (see batch).
	paceReadChunk = 50 * time.Microsecond
	// paceReadWait is how long reading one batch may take and still count
	// as work: longer, and the reader waited for the runtime to write it.
	paceReadWait = time.Millisecond
)

// pacer spreads the trace parser's work; see above.
type pacer struct {
	on       bool      // pacing a live trace (not a recorded one)
	n        int       // events since the chunk began
	chunk    time.Time // when the chunk began
	stopping atomic.Bool
	wake     chan struct{} // closed by stop: a nap in progress ends
	nap      *time.Timer   // reused, so that a nap allocates nothing
	lastWall int64         // wall time of the latest chunk's last event, ns

	readLast time.Time     // the previous batch read
	readWork time.Duration // batch reading since the last nap
}

// start turns pacing on, for a live trace.
func (p *pacer) start() {
	p.on = true
	p.wake = make(chan struct{})
}

// stop ends pacing, and the nap in progress if any: Stop waits for the
// parse of what is left, not for a sleep. Called once.
func (p *pacer) stop() {
	p.stopping.Store(true)
	if p.wake != nil {
		close(p.wake)
	}
}

// due counts one event parsed and reports whether a chunk has ended, when
// rest must be called: the clock is read once a chunk, not per event.
func (p *pacer) due() bool {
	if !p.on {
		return false
	}
	p.n++
	return p.n >= paceChunk
}

// rest ends a chunk whose last event happened at wallNS (nanoseconds since
// the epoch): it sleeps for the chunk's share of idle time, unless Stop has
// begun or the parser is behind.
func (p *pacer) rest(wallNS int64) {
	p.n, p.lastWall = 0, wallNS
	now := time.Now()
	work := now.Sub(p.chunk)
	first := p.chunk.IsZero()
	p.chunk = now
	if first || work <= 0 || p.stopping.Load() || now.UnixNano()-wallNS > int64(paceBehind) {
		return
	}
	p.sleep(min(work*(100-paceDuty)/paceDuty, paceMaxNap))
	p.chunk = time.Now()
}

// batch is gotrace.Reader.Pace: it is called after each batch of a
// generation is read. A generation is read whole once the next has begun,
// and when the parser comes to it the runtime holds up to a second of
// trace in its buffers: read flat out, megabytes of copying and
// classifying in a few milliseconds on both the runtime's trace writer and
// the parser. batch sleeps like rest once the reading since the last nap
// reaches paceReadChunk. A batch that took longer than paceReadWait was
// waited for, not worked on: no burst, nothing to spread.
func (p *pacer) batch() {
	if !p.on {
		return
	}
	now := time.Now()
	d := now.Sub(p.readLast)
	p.readLast = now
	if d <= 0 || d > paceReadWait {
		// The reader waited for the runtime: the events' chunk counts
		// its work from here, or rest would nap for the wait.
		p.chunk = now
		return
	}
	if p.readWork += d; p.readWork < paceReadChunk {
		return
	}
	work := p.readWork
	p.readWork = 0
	if p.stopping.Load() || now.UnixNano()-p.lastWall > int64(paceBehind) {
		return
	}
	p.sleep(min(work*(100-paceDuty)/paceDuty, paceMaxNap))
	p.readLast = time.Now()
	p.chunk = p.readLast // the events' chunk counts its own work, not the naps
}

// sleep naps for d, or until stop.
func (p *pacer) sleep(d time.Duration) {
	if p.nap == nil {
		p.nap = time.NewTimer(d)
	} else {
		p.nap.Reset(d)
	}
	select {
	case <-p.nap.C:
	case <-p.wake:
		p.nap.Stop()
	}
}
