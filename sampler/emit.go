package sampler

import (
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gotachyon/profiler/tachyon"
)

// maxDepth caps the stacks handed to the sink (innermost frames kept).
const maxDepth = tachyon.MaxWriteDepth

// The emitter is the one path from a goroutine's state to the sink: both
// backends decide which stack and status a goroutine had over a span of
// ticks, and the emitter writes that span as one sample and one run of
// repeats. It owns the counters behind Stats and the first sink error;
// after that error it writes nothing more.

// A track is one goroutine as the sink sees it: its handle's number
// (emitter.out), 0 until its first sample is written (when the goroutine
// is counted), and the stack
// of its latest sample written. The trace backend keeps its parts in its
// record and beside it, and makes a track of them for each call
// (traceBackend.track).
type track struct {
	id   uint64
	h    uint32
	last *stack
}

// span is n samples at ts, ts+step, ..., in microseconds since the epoch.
type span struct {
	ts, step uint64
	n        int
}

// emitter writes samples; it is used by one goroutine at a time (the running
// backend's, then Stop's once that goroutine has ended).
type emitter struct {
	cfg     Config
	sink    Sink
	out     Streams           // the sink's, or its handles numbered (handles)
	rf      RunFlusher        // the sink, if it is one and out is its own
	wm      Watermarker       // the sink, if it takes watermarks
	obs     Observer          // Config.Observer
	hideOwn bool              // leave out the samples of the profiler's goroutines (own.go)
	hidden  uint64            // samples left out as the profiler's
	reasons map[string]uint32 // wait reason -> index of its "[reason]" frame

	samples, ticks, dropped uint64
	dumps                   uint64        // snapshot dumps parsed, each standing for one or more ticks
	grids                   int           // wall-mode tick grids begun, each with a tick at its start (ticks.go)
	cpuSamples              uint64        // CPU samples the trace carried (Stats.CPUSamples)
	unparsed                uint64        // Stats.Unparsed
	unmet                   int           // Stats.Unmet
	runtimeStop, stopParse  time.Duration // Stats.RuntimeStop, Stats.StopParse
	noCPU, cpuUnplaced      uint64        // Stats.NoCPUSample, Stats.CPUUnplaced
	cpuAdopted              uint64        // Stats.CPUAdopted
	noCPUIdx, rootIdx       uint32        // the "[no CPU sample]" and "[runtime]" frames, once interned (+1)
	cpu                     cpuRecord     // the trace backends' use of the CPU profiler
	goroutines              int
	// carried holds, after Auto switched backends, the handles of the
	// live goroutines the outgoing backends wrote (and counted in
	// goroutines): the next backend's tracks of them are new, and take
	// them instead of asking the sink again. Empty unless a switch
	// happened.
	carried map[uint64]uint32
	err     error // the first problem met
	// refusals counts the snapshot dumps not taken (the Auto supervisor
	// reads it as they come), the latest for refusedN goroutines
	// estimated to stop the world refusedPause each (see Stats.Refused,
	// formatted at Stop, not at each refusal).
	refusals     atomic.Int64
	refusedN     int
	refusedPause time.Duration
	// overflows counts the snapshot dumps not used because they did not
	// fit snapMaxBuf, the latest of overflowN goroutines.
	overflows, overflowN int
	// sinkErr: err is the sink's, and nothing more is written. Atomic, as
	// the Auto supervisor reads it too.
	sinkErr atomic.Bool

	// handover holds, between two trace backends under Auto, the latest
	// stack the first knew of each live goroutine: the runtime reports a
	// goroutine that does not run again without its stack when the second
	// trace begins, and it would otherwise stay "[stack unknown]". The
	// supervisor sets handing before it stops a backend to switch (not at
	// Stop, where the map would be work for nothing); the next trace
	// backend drops the map once the runtime has reported every goroutine.
	handing  atomic.Bool
	handover map[uint64]*stack
	// sites holds, across a switch under Auto, the creation site of each
	// live goroutine the outgoing backend knew (creation.go): the next
	// trace backend sees no creation for them. Dropped with handover.
	sites map[uint64]string
	// labels holds, across a switch from one trace backend to another
	// under Auto, the pprof labels of each live goroutine the outgoing
	// backend knew: a goroutine logs its labels once, when it sets them,
	// and the next trace would see it unlabelled. Dropped with handover.
	labels map[uint64]*pset

	// The goroutine leak profiles (leakprof.go): taken, refused, the
	// goroutines marked, and why none could be taken.
	leakTaken, leakRefused, leakMarked int
	leakNote                           string

	labelBound labelBound // the label values interned (labelbound.go)

	// helper is the goroutine id of the Auto supervisor (0 if none), left
	// out of the samples like the backends' own goroutines.
	helper atomic.Uint64
	// stopWall is the wall time of the Stop request, in nanoseconds since
	// the epoch (0 before): the last tick sampled is at or before it, as
	// the trace runs on while the tracer stops. The trace backend moves it
	// past the last leak profile's ticks (stopLeaks).
	stopWall atomic.Int64
}

func newEmitter(cfg Config, sink Sink) *emitter {
	wm, _ := sink.(Watermarker)
	out, ok := sink.(Streams)
	var rf RunFlusher
	if ok {
		rf, _ = sink.(RunFlusher)
	} else {
		out = &handles{sink: sink}
	}
	return &emitter{cfg: cfg, sink: sink, out: out, rf: rf, wm: wm, obs: cfg.Observer, reasons: make(map[string]uint32)}
}

// watermark passes ts to the sink, if it takes watermarks.
func (e *emitter) watermark(ts uint64) {
	if e.wm != nil && !e.failed() {
		e.wm.Watermark(ts)
	}
}

// write writes the samples of sp for t, all with status st and stack s: the
// first through Write unless s is t's latest stack, the rest as one
// RepeatEvery; with hideOwn, those of the times t was the profiler's are
// left out (they come first).
func (e *emitter) write(t *track, sp span, st tachyon.Status, s *stack) { e.put(t, sp, st, s, false) }

// writeFlush is write, then flush(t.h): a RunFlusher takes the run that
// repeats t's latest stack, if write ends with one, with the flush in one
// call.
func (e *emitter) writeFlush(t *track, sp span, st tachyon.Status, s *stack) {
	if !e.put(t, sp, st, s, e.rf != nil) {
		e.flush(t.h)
	}
}

// put is write; with flush set, a run that repeats t's latest stack goes
// to the RunFlusher with its flush, and put reports whether it did so.
func (e *emitter) put(t *track, sp span, st tachyon.Status, s *stack, flush bool) bool {
	if sp.n <= 0 {
		return false
	}
	if e.failed() {
		e.dropped += uint64(sp.n)
		return false
	}
	fresh := t.last != s
	all, skip := sp, 0
	if e.hideOwn {
		skip = hideOwn(t.id, sp.ts, sp.step, sp.n)
		e.hidden += uint64(skip)
		sp.ts, sp.n = sp.ts+uint64(skip)*sp.step, sp.n-skip
	}
	if sp.n == 0 {
		return false
	}
	if t.h == 0 {
		e.open(t)
	}
	if fresh {
		if err := e.out.WriteStream(t.h, sp.ts, st, s.frames); err != nil {
			e.sinkFailed(err, sp.n)
			return false
		}
		t.last = s
		e.samples++
		sp.ts += sp.step
		sp.n--
	}
	if sp.n > 0 {
		var err error
		if flush {
			err = e.rf.RepeatFlushStream(t.h, sp.ts, sp.step, sp.n, st)
		} else {
			err = e.out.RepeatStream(t.h, sp.ts, sp.step, sp.n, st)
		}
		if err != nil {
			e.sinkFailed(err, sp.n)
			return false
		}
		e.samples += uint64(sp.n)
	} else {
		flush = false
	}
	e.onCPU(t, all, skip, st, s)
	return flush
}

// onCPU tells the Observer of the on-CPU samples of sp, just written for t
// with status st and stack s: all of them in CPU mode, those of a running
// goroutine in wall mode; not the first skip, left out as the profiler's.
func (e *emitter) onCPU(t *track, sp span, skip int, st tachyon.Status, s *stack) {
	if e.obs == nil || s.leafPC == 0 {
		return
	}
	sp.ts, sp.n = sp.ts+uint64(skip)*sp.step, sp.n-skip
	if e.cfg.Mode == Wall && st.State() != tachyon.Running {
		return
	}
	for i := range uint64(sp.n) {
		e.obs.OnCPU(t.id, sp.ts+i*sp.step, uintptr(s.leafPC))
	}
}

// log says msg in Config.Log, if set.
func (e *emitter) log(msg string) {
	if e.cfg.Log != nil {
		e.cfg.Log(msg)
	}
}

// refuse records a snapshot dump not taken: n goroutines would have
// stopped the world about pause.
func (e *emitter) refuse(n int, pause time.Duration) {
	e.refusals.Add(1)
	e.refusedN, e.refusedPause = n, pause
}

// overflow records a snapshot dump of n goroutines not used: it did not
// fit snapMaxBuf.
func (e *emitter) overflow(n int) {
	e.overflows++
	e.overflowN = n
}

// refused says why dumps were not taken or not used, "" if all were.
func (e *emitter) refused() string {
	var why []string
	if n := e.refusals.Load(); n > 0 {
		why = append(why, fmt.Sprintf("%d times: snapshot dumps not taken: %d goroutines would stop the world for about %v each, over the %v bound (sampler.MaxSnapshotPause)",
			n, e.refusedN, e.refusedPause.Round(time.Millisecond), MaxSnapshotPause))
	}
	if e.overflows > 0 {
		bound := fmt.Sprintf("%d MB", snapMaxBuf>>20)
		if snapMaxBuf < 1<<20 {
			bound = fmt.Sprintf("%d KB", snapMaxBuf>>10)
		}
		why = append(why, fmt.Sprintf("%d times: snapshot dumps not used: the stacks of %d goroutines did not fit in %s",
			e.overflows, e.overflowN, bound))
	}
	return strings.Join(why, "; ")
}

// open gives t its handle as its first sample is written: the one a
// backend before kept for its goroutine (carried), or else a new one from
// the sink, and then t's goroutine is counted in Stats.Goroutines. So the
// sink is asked once for each goroutine however many backends write it.
func (e *emitter) open(t *track) {
	if len(e.carried) > 0 {
		if h, ok := e.carried[t.id]; ok {
			delete(e.carried, t.id)
			t.h = h
			return
		}
	}
	t.h = e.out.Stream(t.id)
	if t.id != RuntimeThread { // a thread of the file, not a goroutine
		e.goroutines++
	}
}

// carry keeps t's handle, as a backend stops to hand over to another under
// Auto, for the next backend's track of t's goroutine (see carried).
func (e *emitter) carry(t *track) {
	if t.h == 0 {
		return
	}
	if e.carried == nil {
		e.carried = make(map[uint64]uint32)
	}
	e.carried[t.id] = t.h
}

// forget tells the sink that t ended, so that its state is released: t's
// handle, or the one a backend before kept for it.
func (e *emitter) forget(t *track) {
	if t.h == 0 && len(e.carried) > 0 {
		t.h = e.carried[t.id]
		delete(e.carried, t.id) // ids are never reused
	}
	if t.h != 0 {
		e.out.ForgetStream(t.h)
		t.h = 0
	}
}

// flush tells the sink that a batch of samples has been written of the
// goroutine whose handle is h (track.h, 0 if none yet).
func (e *emitter) flush(h uint32) {
	if h != 0 && !e.failed() {
		e.out.FlushStream(h)
	}
}

// failed reports whether a sink error has stopped the writing.
func (e *emitter) failed() bool { return e.sinkErr.Load() }

// sinkFailed records the sink's first error; n samples were not written.
// Before Stop is asked, it says so at once in Config.Log: the profile
// may run on for hours without another sample.
func (e *emitter) sinkFailed(err error, n int) {
	e.dropped += uint64(n)
	if e.err != nil {
		return
	}
	e.err = fmt.Errorf("sampler: writing samples: %w", err)
	e.sinkErr.Store(true)
	if e.stopWall.Load() == 0 {
		e.log(fmt.Sprintf("sampling stopped: writing samples: %v; the profile keeps what was written before, and Stop returns this error", err))
	}
}

// setErr records the first problem that is not the sink's.
func (e *emitter) setErr(err error) {
	if e.err == nil {
		e.err = err
	}
}

// reasonFrame returns the frame index of the synthetic "[reason]" frame.
func (e *emitter) reasonFrame(reason string) uint32 {
	if idx, ok := e.reasons[reason]; ok {
		return idx
	}
	idx := e.sink.Frame(tachyon.WaitFrame(reason))
	e.reasons[reason] = idx
	return idx
}

// noCPUFrame returns the frame index of the "[no CPU sample]" frame.
func (e *emitter) noCPUFrame() uint32 {
	if e.noCPUIdx == 0 {
		e.noCPUIdx = e.sink.Frame(tachyon.Frame{Func: tachyon.NoCPUSample}) + 1
	}
	return e.noCPUIdx - 1
}

// runtimeFrame returns the frame index of the "[runtime]" root frame.
func (e *emitter) runtimeFrame() uint32 {
	if e.rootIdx == 0 {
		e.rootIdx = e.sink.Frame(tachyon.Frame{Func: tachyon.RuntimeRoot}) + 1
	}
	return e.rootIdx - 1
}

// waitStack returns s as a blocked goroutine's sample shows it: under its
// "[reason]" frame unless Config.NoWaitReasonFrames.
func (e *emitter) waitStack(s *stack, reason string) *stack {
	if e.cfg.NoWaitReasonFrames || reason == "" {
		return s
	}
	return s.waiting(e.reasonFrame(reason))
}
