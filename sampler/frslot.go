package sampler

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	rtrace "runtime/trace"
	"sync/atomic"
	"time"

	"github.com/gotachyon/profiler/internal/gotrace"
	"github.com/gotachyon/profiler/internal/handoff"
	"github.com/gotachyon/profiler/internal/own"
)

// The runtime has two slots for trace consumers: one trace.Start and one
// flight recorder. The trace backend takes the flight recorder's when it
// is free, so that the application's trace.Start (net/http/pprof's
// /debug/pprof/trace, a tracing library's periodic traces) keeps working
// while it runs; trace.Start when the application holds the flight
// recorder's. Through the flight recorder, the trace comes in snapshots of
// the recorder's window (WriteTo), which holds whole generations: frFeed
// takes one every frEvery, leaves out the generations it has written, and
// writes the others into the pipe the parser reads, one continuous trace.
// Its poller is the profiler's own goroutine, and waits while a generation
// waits for the parser: a parser held up lets the recorder's window move
// on, and the next snapshot shows the generations it missed (errBehind).

// The recorder's settings are variables for the tests and BenchmarkSlot.
var (
	// frEvery is how often frFeed snapshots the recorder. Each snapshot
	// ends the generation in progress (the runtime ends one a second by
	// itself), and a generation costs the runtime and the parser a status
	// of every goroutine.
	frEvery = time.Second
	// frBusyRate is the trace's rate, in bytes a second, from which frFeed
	// snapshots twice as often. Stop waits for the parse of the
	// generation the snapshot before its own handed over, as well as its
	// own: a busy program's generations are kept short, so that Stop's
	// wait is; a quiet one's extra generations would cost more than the
	// wait they spare.
	frBusyRate = 256 << 10
	// frMinAge and frMaxBytes are the recorder's window: long enough to
	// keep every generation until the next snapshot while the parser is
	// behind by a few seconds (the pacer lets it fall paceBehind behind).
	frMinAge          = 5 * time.Second
	frMaxBytes uint64 = 64 << 20
)

// frFeed feeds the parser from a flight recorder of its own.
type frFeed struct {
	fr   *rtrace.FlightRecorder
	pipe *handoff.Pipe
	quit chan struct{} // closed by stop
	done chan struct{} // closed when the poller has ended

	// owned by the poller, which calls WriteTo
	first  bool      // the next write is a snapshot's header
	header bool      // the header is in the pipe
	last   uint64    // the newest generation in the pipe whole
	cur    uint64    // generation of the batches being written
	skip   bool      // cur's batches are in the pipe already
	fresh  int       // bytes of batches the latest snapshot put in the pipe
	at     time.Time // when the latest snapshot began
	prevAt time.Time // when the one before it began
}

// errBehind says the parser fell further behind the trace than the
// flight recorder's window: the trace ends there, with what was read.
var errBehind = errors.New("the trace parser fell behind the flight recorder's window")

// startFR takes the flight recorder's slot and starts feeding pipe; it
// fails if the slot is taken.
func startFR(pipe *handoff.Pipe) (*frFeed, error) {
	fr := rtrace.NewFlightRecorder(rtrace.FlightRecorderConfig{MinAge: frMinAge, MaxBytes: frMaxBytes})
	if err := fr.Start(); err != nil {
		return nil, err
	}
	f := &frFeed{fr: fr, pipe: pipe, quit: make(chan struct{}), done: make(chan struct{})}
	own.Go(f.poll)
	return f, nil
}

// poll snapshots the recorder at once (the header), then every frEvery,
// or half that while the trace comes at frBusyRate or more, and once more
// at stop, which ends the generation in progress.
func (f *frFeed) poll() {
	defer close(f.done)
	next := time.NewTimer(frEvery)
	defer next.Stop()
	for {
		err := f.snapshot()
		if err != nil {
			// The parser has ended, or fell behind: it reads the error.
			f.pipe.CloseWithError(err)
			return
		}
		next.Reset(f.pace() - time.Since(f.at)) // from the snapshot's start, as a ticker's
		select {
		case <-f.quit:
			if err := f.snapshot(); err != nil {
				f.pipe.CloseWithError(err)
			}
			return
		case <-next.C:
		}
	}
}

// pace returns the time to the next snapshot: frEvery, or half that if
// the batches the latest snapshot put in the pipe came at frBusyRate or
// more, over the time since the snapshot before it.
func (f *frFeed) pace() time.Duration {
	if f.prevAt.IsZero() || float64(f.fresh) < float64(frBusyRate)*f.at.Sub(f.prevAt).Seconds() {
		return frEvery
	}
	return frEvery / 2
}

// snapshot writes the recorder's generations not yet written.
func (f *frFeed) snapshot() error {
	f.first, f.fresh = true, 0
	f.prevAt, f.at = f.at, time.Now()
	_, err := f.fr.WriteTo(f)
	return err
}

// stop takes the last snapshot and leaves the flight recorder's slot.
func (f *frFeed) stop() {
	close(f.quit)
	<-f.done
	f.fr.Stop()
}

// Write is called by the recorder's WriteTo with the header, then each
// batch of the window's generations, oldest first.
func (f *frFeed) Write(b []byte) (int, error) {
	if f.first {
		f.first = false
		if f.header {
			return len(b), nil
		}
		f.header = true
		return f.pipe.Write(b)
	}
	gen, end, ok := gotrace.Batch(b)
	switch {
	case !ok:
		return 0, fmt.Errorf("flight recorder wrote %d bytes that are not a trace batch", len(b))
	case end:
		if f.skip {
			return len(b), nil
		}
		f.last = f.cur
	case gen <= f.last:
		f.skip = true
		return len(b), nil
	default:
		if gen != f.cur && f.last > 0 && gen > f.last+1 {
			return 0, fmt.Errorf("%w (%v): generations %d to %d were dropped before they were read", errBehind, frMinAge, f.last+1, gen-1)
		}
		f.skip, f.cur = false, gen
	}
	if err := f.pipe.Wait(1); err != nil {
		return 0, err
	}
	f.fresh += len(b)
	return f.pipe.Write(b)
}

// traceOpts says how the trace backend reads the trace.
type traceOpts struct {
	// startFirst takes trace.Start's slot first, the flight recorder's
	// only if the application holds trace.Start's.
	startFirst bool
	// resync: a parser that falls behind the flight recorder ends its
	// trace without an error and sets traceBackend.behind, for the Auto
	// supervisor to go on through trace.Start.
	resync bool
}

// frSlot says the trace backend may take the flight recorder's slot
// first; BenchmarkSlot turns it off to compare.
var frSlot = true

// frMaxGoroutines is the most goroutines with which the flight recorder's
// slot comes first. Each snapshot ends a generation, and the runtime
// starts each with the status of every goroutine: with many goroutines,
// the snapshots double what the trace costs, and trace.Start's slot comes
// first. A variable for the tests and BenchmarkSlot.
var frMaxGoroutines = 2000

// startTracer starts the runtime tracer into tb.pipe, in the slot frFirst
// says, or the other if the application holds it.
func (tb *traceBackend) startTracer() error {
	if !tb.frFirst() {
		err := tb.startSlot()
		if err == nil {
			return nil
		}
		f, err2 := startFR(tb.pipe)
		if err2 != nil {
			return bothTaken(err2, err)
		}
		tb.feed = f
		return nil
	}
	f, err := startFR(tb.pipe)
	if err == nil {
		tb.feed = f
		return nil
	}
	if err2 := tb.startSlot(); err2 != nil {
		return bothTaken(err, err2)
	}
	return nil
}

// startSlot starts the runtime tracer in trace.Start's slot, into tb.pipe
// through a startWriter.
func (tb *traceBackend) startSlot() error {
	sw := &startWriter{w: tb.pipe}
	sw.last.Store(time.Now().UnixNano())
	if err := rtrace.Start(sw); err != nil {
		return err
	}
	tb.slot = sw
	return nil
}

// startLost is how long trace.Start's slot may go without a write to the
// backend's writer before the backend asks whether the slot is still its
// own (startWriter.probe): the runtime ends a generation, and writes it,
// about every second while a trace runs.
var startLost = 5 * time.Second

// startWriter is the writer of a trace the backend runs in trace.Start's
// slot. The slot has no owner the runtime could tell: any trace.Stop
// stops the trace that runs there, and the application may stop the
// backend's (a trace.Start that failed, then its deferred trace.Stop)
// and start its own. startWriter tells whether the runtime still writes
// to it, so that the backend does not stop the application's trace.
type startWriter struct {
	w        io.Writer
	last     atomic.Int64  // when the latest write ended (Unix ns)
	writes   atomic.Uint64 // writes ended
	writing  atomic.Int32  // writes in progress
	orphaned atomic.Bool   // the backend let the slot go without trace.Stop
	stopped  atomic.Bool   // a write came after all: trace.Stop was called
	suspect  time.Time     // the look of lostSeen's caller that first found it lost, zero if none since
	// askAfter is the silence after which lostSeen asks the runtime
	// (probe): startLost, doubled up to askMax each time the runtime
	// answers that the slot is still the backend's. lostSeen's caller's.
	askAfter time.Duration
}

func (s *startWriter) Write(b []byte) (int, error) {
	s.writing.Add(1)
	n, err := s.w.Write(b)
	s.last.Store(time.Now().UnixNano())
	s.writes.Add(1)
	s.writing.Add(-1)
	if s.orphaned.Load() && s.stopped.CompareAndSwap(false, true) {
		// The slot was the backend's after all: the runtime still
		// writes here. Stop it, from another goroutine (trace.Stop
		// waits for this write).
		own.Go(rtrace.Stop)
	}
	return n, err
}

// lost reports whether the runtime no longer writes to s: s has been
// silent for startLost, and the runtime, asked (probe), says it no longer
// writes there, or cannot be asked.
func (s *startWriter) lost() bool {
	lost, _ := s.lostAsked()
	return lost
}

// lostAsked is lost, and reports too whether the runtime said so (sure):
// it did not where the application holds the flight recorder, and the
// silence may be a runtime slow to write.
func (s *startWriter) lostAsked() (lost, sure bool) {
	if !s.silent() {
		return false, false
	}
	gone, known := s.probe()
	return gone || !known, known
}

// silent reports whether no write to s is in progress, and none came for
// startLost. Silence alone does not tell a trace stopped from one the
// runtime is slow to write: with writes only at the ends of generations
// (a quiet program), each end waits for the runtime's pass over every
// goroutine it ever made, with the stack of each that did not run: with
// 150,000 parked goroutines on 2 loaded cores, 2 to 24 s a generation,
// and 17 s without a write.
func (s *startWriter) silent() bool {
	return s.writing.Load() == 0 && time.Since(time.Unix(0, s.last.Load())) > startLost
}

// probe asks the runtime whether it still writes to s, and reports
// whether it does not (gone), if it could tell (known). A tracer that no
// longer runs writes to no one. While it runs, a flight recorder that
// starts makes the runtime end the generation in progress and hand its
// end to trace.Start's writer before the recorder's Start returns: s, if
// the slot is still the backend's. The probe's recorder stops at once
// (an application's recorder started in that instant fails), and runs
// only after startLost of silence; it cannot start while the application
// holds the flight recorder's slot, and the runtime cannot be asked then.
func (s *startWriter) probe() (gone, known bool) {
	if !rtrace.IsEnabled() {
		return true, true
	}
	n := s.writes.Load()
	fr := rtrace.NewFlightRecorder(rtrace.FlightRecorderConfig{MaxBytes: probeBytes})
	if err := fr.Start(); err != nil {
		return false, false
	}
	gone = s.writes.Load() == n && s.writing.Load() == 0
	fr.Stop()
	return gone, true
}

// probeBytes bounds the trace the probe's flight recorder keeps: the
// little written while it runs.
const probeBytes = 1 << 20

// askMax is the most silence after which the Auto supervisor asks the
// runtime again whether trace.Start's slot is still the backend's, while
// a tracer runs (lostSeen).
const askMax = time.Minute

// lostRecheck is how long after a look of the Auto supervisor's that
// found trace.Start's slot lost (lostSeen) another must find it lost
// still, with no write between, where the runtime cannot be asked.
const lostRecheck = 500 * time.Millisecond

// lostSeen is lost for a caller that looks again and again, the Auto
// supervisor, and only it. Where the runtime cannot be asked (probe), it
// reports true only once a look at least lostRecheck before now found the
// slot silent too, with no write since. A process the machine starved of
// CPU for startLost looks silent to its first look after, until its
// trace's writer, starved with it, writes again; taken for the
// application's trace.Stop, the trace went on unread until a write said
// it was the backend's and stopped it.
//
// A tracer that no longer runs is lost at once. While one runs, each
// probe that finds the slot still the backend's doubles the silence
// before the next (askAfter): a runtime slow to end its generations
// stays slow, and each probe ends up to three more of them, each a pass
// over every goroutine.
func (s *startWriter) lostSeen(now time.Time) bool {
	if !s.silent() {
		s.suspect = time.Time{}
		return false
	}
	if !rtrace.IsEnabled() {
		return true
	}
	s.askAfter = max(s.askAfter, startLost)
	if now.Sub(time.Unix(0, s.last.Load())) <= s.askAfter {
		return false
	}
	if gone, known := s.probe(); known {
		s.suspect = time.Time{}
		if !gone {
			s.askAfter = min(2*s.askAfter, askMax)
		}
		return gone
	}
	if s.suspect.IsZero() {
		s.suspect = now
		return false
	}
	return now.Sub(s.suspect) >= lostRecheck
}

// frFirst says whether the flight recorder's slot comes first: unless
// opts say otherwise, while the process has at most frMaxGoroutines
// goroutines.
func (tb *traceBackend) frFirst() bool {
	return frSlot && !tb.opts.startFirst && runtime.NumGoroutine() <= frMaxGoroutines
}

// frDear says whether tb reads a flight recorder that frFirst would no
// longer choose, for the Auto supervisor to go on through trace.Start.
func (tb *traceBackend) frDear() bool {
	return tb.feed != nil && !tb.opts.startFirst && !tb.frFirst()
}

// bothTaken says the application holds both slots.
func bothTaken(frErr, startErr error) error {
	return fmt.Errorf("both slots are taken: flight recorder: %v; trace.Start: %w", frErr, startErr)
}

// stopTracer stops what startTracer started.
func (tb *traceBackend) stopTracer() {
	if tb.feed != nil {
		tb.feed.stop()
		return
	}
	if sw := tb.slot; sw != nil {
		if lost, sure := sw.lostAsked(); lost {
			// Someone else's trace.Stop ended the backend's trace: the
			// trace that runs now, if any, is the application's.
			sw.orphaned.Store(true)
			ago := time.Since(time.Unix(0, sw.last.Load())).Round(time.Second)
			if sure {
				tb.em.log(fmt.Sprintf("the trace through trace.Start's slot ended before Stop (the application called trace.Stop) about %v ago: the profile has no trace after it, and the trace that runs now is left to the application", ago))
			} else {
				tb.em.log(fmt.Sprintf("the trace through trace.Start's slot has had no write for about %v, and the runtime cannot be asked while the application holds the flight recorder: it is taken for ended by the application's trace.Stop, the profile has no trace after it, and the trace that runs now is left to the application; if the runtime was only slow to write, its next write there stops that trace", ago))
			}
			return
		}
	}
	rtrace.Stop()
}
