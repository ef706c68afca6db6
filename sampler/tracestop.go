package sampler

import (
	"fmt"
	"time"

	"github.com/gotachyon/profiler/internal/gotrace"
	"github.com/gotachyon/profiler/internal/own"
)

// The trace backend's end: the runtime stops its tracer and hands over the
// last generation, whose parse MaxStopParse bounds, and finish writes every
// goroutine's last ticks.

// stop stops CPU profiling and tracing, then waits until the parser has
// consumed and emitted everything.
func (tb *traceBackend) stop() {
	tb.stopLeaks()
	tb.pace.stop()
	tb.pipe.Between(tb.stopping)
	t0 := time.Now()
	tb.release() // returns once all trace data has been written to the pipe
	now := time.Now()
	tb.handedOver.Store(now.UnixNano())
	tb.pipe.Close()
	<-tb.done
	if tb.em.stopWall.Load() != 0 { // Stop's, not a switch of backends
		tb.em.runtimeStop, tb.em.stopParse = now.Sub(t0), time.Since(now)
	}
}

// release stops the CPU profiler and the tracer this backend started, once:
// at Stop, or as soon as the sink fails, so that a profiler that can no
// longer write costs the program nothing more (and a later Stop does not
// stop a tracer the program started since).
func (tb *traceBackend) release() {
	if !tb.released.CompareAndSwap(false, true) {
		return
	}
	// The CPU profiler stops beside the tracer, on a goroutine of its
	// own: pprof.StopCPUProfile waits for its writer's last read and
	// builds the profile, the tracer's stop walks every goroutine, and
	// neither needs the other. Both have stopped when release returns.
	cpuStopped := make(chan struct{})
	if c := tb.cpuProfile; c != nil {
		own.Go(func() {
			defer close(cpuStopped)
			c.stop()
		})
	} else {
		close(cpuStopped)
	}
	tb.stopTracer()
	<-cpuStopped
	tb.labelsOff()
}

// MaxStopParse bounds the parse left once Stop has stopped the tracer
// (the last generation, which the runtime hands over as it stops): what
// is not parsed by then is not written, so that Stop ends in a bounded
// time however many goroutines the last generation reports. The
// goroutines' ticks up to the last event parsed are written, and the
// samples of the ticks after it, up to the Stop request, are counted in
// Stats.Unparsed and said in the log.
const MaxStopParse = 500 * time.Millisecond

// stopCheckEvery is how many events the parser parses between two looks
// at MaxStopParse's clock (it looks at each generation's start too).
const stopCheckEvery = 1024

// outOfTime reports whether the parse left at Stop took longer than
// MaxStopParse.
func (tb *traceBackend) outOfTime() bool {
	h := tb.handedOver.Load()
	return h != 0 && time.Now().UnixNano()-h > int64(MaxStopParse)
}

// cutShort ends the parse at Stop past MaxStopParse: it counts the samples
// of the ticks not reached, up to the Stop request, of every goroutine
// live then, and writes everything known (finish). A goroutine there
// since before the trace that the parse has not met (a parked one is
// reported by the runtime only at a generation's end: in a profile within
// its first generation, after the Stop request) has none of its ticks
// written, and how many ticks it lived is not known: those that
// runtime.NumGoroutine counted as the tracer started, less those met, are
// counted in Stats.Unmet.
func (tb *traceBackend) cutShort() {
	n := 0
	for g := range tb.lives {
		if g.role != roleHidden {
			n++
		}
	}
	unmet := tb.unmet()
	tb.em.unmet += unmet
	var ticks uint64
	if w := tb.em.stopWall.Load(); w != 0 && tb.ticks.started && tb.em.cfg.Mode == Wall {
		if last := tb.ticks.upTo(max(tb.traceTime(w), tb.ticks.first)); last > tb.ticks.n {
			ticks = last - tb.ticks.n
		}
	}
	tb.finish(false)
	tb.em.unparsed += ticks * uint64(n)
	if ticks == 0 && unmet == 0 {
		return // parsed past the Stop request: nothing asked for is lost
	}
	msg := fmt.Sprintf("Stop's bound of %v to parse the last generation passed: %d samples (%d ticks of %d goroutines) before the Stop request not written",
		MaxStopParse, ticks*uint64(n), ticks, n)
	if unmet > 0 {
		msg += fmt.Sprintf(", nor any of about %d goroutines there since before the trace that the parse had not met (a parked one is reported by the runtime only at the end of a generation)", unmet)
	}
	tb.em.log(msg)
}

// stopping runs on the parser's goroutine between two generations once
// Stop has asked the runtime to stop tracing (handoff.Pipe.Between).
func (tb *traceBackend) stopping() {
	tb.endAtStop()
	tb.settleEarly()
}

// endMargin is how far past the Stop request the parse of a wall-mode
// trace must be before a status report may end it (endAtStop): three
// periods of the CPU profile at its rate in wall mode, within which the
// running ticks before the request find their CPU samples.
const endMargin = 30 * time.Millisecond

// endAtStop has the reader end a wall-mode trace at the first status
// report it leaves out (gotrace.Reader.SkipSame) once the trace is whole
// in the parser's hands (handedOver) and endMargin past the Stop request.
// As the runtime stops tracing it reports the status of every goroutine
// that did not run in the generation (with 100,000 goroutines, tens of
// milliseconds after the request; with a million, most of a second), and
// no such report changes a tick: the ticks stop at the request, and a
// report left out says what the goroutine's latest event said. Not in the
// first generation: a report there may be the first word of a goroutine
// parked since before the trace, and one left out would take the
// goroutine's every sample with it. (A report
// read renames a runtime system goroutine's parking frame, runtime.gopark
// where its block event gave the caller, for its ticks not yet written;
// ended before it, they keep the event's name.) finish then writes every
// goroutine's ticks, the running ones' from the CPU samples up to there.
func (tb *traceBackend) endAtStop() {
	gr, ok := tb.rd.(*gotrace.Reader)
	if !ok || tb.em.cfg.Mode != Wall {
		return
	}
	gr.Enough = func(t gotrace.Time) bool {
		if tb.handedOver.Load() == 0 || !tb.clockSet || !tb.reported {
			return false
		}
		w := tb.em.stopWall.Load()
		return w != 0 && t > tb.traceTime(w)+gotrace.Time(endMargin)
	}
}

// earlyCheckEvery is how many goroutines settleEarly settles between two
// looks at handedOver, and two yields of its P.
const earlyCheckEvery = 256

// settleEarly runs on the parser's goroutine between two generations once
// Stop has asked the runtime to stop tracing (handoff.Pipe.Between): it
// writes every goroutine's ticks passed while the parser would wait for
// the last generation, which the runtime hands over only once it has
// stopped (tens of milliseconds with 100,000 goroutines), so that Stop is
// left with the last generation's ticks to write, not up to settleEvery
// generations' of every goroutine. It stops where it is once that
// generation has come. Only a trace read in place is at a generation's
// end there: another reader may have read ahead.
func (tb *traceBackend) settleEarly() {
	if !tb.inPlace || tb.em.cfg.Mode != Wall || tb.em.failed() {
		return
	}
	for b := range settleEvery {
		if !tb.settleBucket(b, true) {
			return
		}
	}
}

// finish writes every goroutine's remaining ticks at the end of the trace,
// and, if another backend follows (the supervisor switches, or next is
// set), hands over what it knows of the live goroutines. It takes the
// goroutines in the order of their numbers, not bucket by bucket:
// numbers are given in the order the records are made, so that where
// goroutines last (the parked ones Stop is left with most of) it reads the
// records in the order they lie in memory, not every settleEvery-th of
// them.
func (tb *traceBackend) finish(next bool) {
	for g := range tb.lives {
		if !tb.close(g, true) {
			tb.flushSink(g)
		}
	}
	tb.expireOrphans(0, true)
	if tb.runtime.h != 0 {
		tb.em.flush(tb.runtime.h)
	}
	tb.active = tb.active[:0]
	if tb.em.handing.CompareAndSwap(true, false) || next { // another backend follows
		tb.em.handover = make(map[uint64]*stack, tb.recs.live)
		tb.em.sites = make(map[uint64]string, tb.recs.live)
		tb.em.labels = make(map[uint64]*pset)
		tb.em.carry(&tb.runtime) // the next trace backend's thread 0 is this one
		for g := range tb.lives {
			t := tb.track(g)
			tb.em.carry(&t)
			if s := tb.stackOf(g); s != nil && g.role != roleHidden {
				tb.em.handover[g.id] = s
			}
			if b := tb.base(g); g.role != roleHidden {
				if b.created != "" {
					tb.em.sites[g.id] = b.created
				}
				if b.p != nil {
					tb.em.labels[g.id] = b.p
				}
			}
		}
	}
}
