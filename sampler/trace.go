package sampler

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/gotachyon/profiler/internal/goid"
	"github.com/gotachyon/profiler/internal/gotrace"
	"github.com/gotachyon/profiler/internal/handoff"
	"github.com/gotachyon/profiler/internal/own"
	"github.com/gotachyon/profiler/internal/tracelabel"
	"github.com/gotachyon/profiler/tachyon"
)

// Trace backend: runtime/trace (a flight recorder of its own, or
// trace.Start: frslot.go) -> internal/handoff's Pipe -> internal/gotrace,
// which parses each generation where the pipe holds it (or
// golang.org/x/exp/trace for a trace version gotrace does not know),
// folded into a state machine per goroutine (tracegor.go).

// wallCPUHz is the CPU-profile rate in wall mode, where CPU samples give the
// stacks of running goroutines. 100 Hz is pprof's own rate, so setting it
// prints no runtime warning.
const wallCPUHz = 100

// pcFrame is a cached frame of the trace, keyed by PC.
type pcFrame struct {
	idx    uint32
	line   uint64
	kind   frameKind
	hint   string
	role   role // the goroutine's role if this were its start function
	goexit bool
}

// traceBackend is the trace backend; its loop owns every field but done.
type traceBackend struct {
	em         *emitter
	pipe       *handoff.Pipe // the trace from the runtime's writer to the parser
	rd         source
	cpuProfile *cpuProfiler                // nil without CPU samples
	cpuNow     atomic.Pointer[cpuProfiler] // cpuProfile, for the parser, which starts before it
	released   atomic.Bool                 // the tracer and CPU profiler are stopped
	labelling  atomic.Bool                 // tracelabel.Enable called, Disable not yet
	done       chan struct{}
	state      atomic.Uint32 // headerPending, headerRead or headerAbandoned
	feed       *frFeed       // the flight recorder read, if the trace comes through one
	opts       traceOpts
	behind     atomic.Bool // the parser fell behind the trace (opts.resync)
	full       atomic.Bool // behind the pipe's bound, not the flight recorder's window
	// handedOver is the wall time (ns since the epoch) at which Stop had
	// stopped the tracer, and the trace was whole in the parser's hands; 0
	// before (see MaxStopParse).
	handedOver atomic.Int64
	// inPlace says the parser reads the pipe's generations in place
	// (gotrace), not as a stream: the parser's own, set before it parses.
	inPlace bool
	// begun is closed once startTrace has started the CPU profiler, which
	// release stops.
	begun chan struct{}

	self    uint64
	pcs     map[uint64]pcFrame
	stacks  []*stack   // this generation's, by stack id
	known   stackTable // across generations, by content
	scratch []uint32   // frames of the stack being built
	// frameFunc is the function of each frame index met, as a number from
	// funcIDs (leafcaller.go).
	frameFunc []uint32
	funcIDs   map[string]uint32
	// recs holds the live goroutines by number. A goroutine's bucket, the
	// generation of the settleEvery in which settleShare writes it,
	// follows from its number (bucketOf).
	// unattached holds, by id, the goroutines the source did not know
	// when the backend met them (a CPU sample's, before the goroutine's
	// first event), until it numbers them; every goroutine, if the source
	// keeps no numbers.
	recs       records
	unattached map[uint64]*tgor
	// floor is, by bucket, a tick at or before the first one not yet
	// written of every goroutine of the bucket: the oldest of those the
	// bucket's last settleShare left unwritten (watermark).
	floor [settleEvery]uint64
	// nums numbers the stacks the records hold (stacknum.go).
	nums stackNums
	// busyTab holds the busy states (tracegor.go) by number, less one;
	// busyFree the numbers given back with their state kept for reuse,
	// busyGone those given back without. busyUsed is the most held at
	// once lately (busyHeld), which bounds busyFree.
	busyTab            []*gbusy
	busyFree, busyGone []uint32
	busyUsed           int
	// goroutines that ended lately, by id: a CPU sample taken as one
	// ended and ordered after its end must not bring it back (its id would
	// be counted twice by the sink). A table, not a map: under churn, a
	// map cleared every generation was a large share of the parse
	// (bench/MEASUREMENTS.md).
	ended    [1 << 12]uint64
	endedGen int    // goroutines ended in this generation
	unknown  *stack // "[stack unknown]", for a goroutine never seen with a stack
	// active lists the goroutines that ran or had CPU samples in this
	// generation: oncpu.go places their CPU samples at its end.
	active []*tgor
	oncpu  placer
	grown  int // goroutine queues or the placement's scratch grown past their longest, for the steady-state test

	clockSet  bool
	baseTrace gotrace.Time
	baseWall  int64 // ns since the epoch at baseTrace
	startWall time.Time

	// whyFrames holds, by the source's wait reason number, the index of
	// its "[reason]" frame plus one, once looked up (waitStack).
	whyFrames []uint32

	labels labeler   // label state across goroutines (labels.go)
	sites  siteCache // creation sites (creation.go)
	leaks  *leakFeed // goroutine leak profiles, nil if not taken (leakprof.go)

	ticks tickGrid
	pace  pacer
	gen   uint64 // generations begun
}

// startTrace starts the runtime tracer into a pipe, reads the trace header
// and starts the parsing goroutine. An error means the trace cannot be used
// (the tracer is taken, the parser does not know this trace version, or
// the header did not come within headerWait); nothing is left running then.
//
// The runtime's trace writer never waits for the parser: it copies each
// write into the pipe, which wakes the parser once a generation (beside an
// application's flight recorder, the same writer feeds it, and any end of
// a generation, the runtime's own or the recorder's WriteTo, waits until
// the writer has written the generation). A parser that falls pipeMaxBytes
// behind ends the trace (handoff.ErrFull), as one that falls behind the
// flight recorder's window does.
func startTrace(em *emitter, o traceOpts) (*traceBackend, error) {
	pipe := handoff.New(pipeMaxBytes)
	tb := newTraceBackend(em, nil, time.Now())
	tb.pipe, tb.opts = pipe, o
	tb.begun = make(chan struct{})
	ready := make(chan error, 1)
	go tb.run(ready)
	// Label events are asked for before the tracer starts, so that none
	// written once it runs is missed.
	tb.labelsOn()
	if err := tb.startTracer(); err != nil {
		tb.labelsOff()
		pipe.CloseRead(err) // the parsing goroutine ends
		return nil, fmt.Errorf("runtime/trace unavailable: %w", err)
	}
	wait := time.NewTimer(headerWait)
	defer wait.Stop()
	var err error
	select {
	case err = <-ready:
	case <-wait.C:
		if tb.state.CompareAndSwap(headerPending, headerAbandoned) {
			pipe.CloseRead(errNoHeader) // the parsing goroutine ends
			err = errNoHeader
		} else {
			err = <-ready // it came just now
		}
	}
	if err != nil {
		pipe.CloseRead(err) // later writes keep nothing
		tb.stopTracer()
		tb.labelsOff()
		if errors.Is(err, errNoHeader) {
			return nil, fmt.Errorf("runtime/trace unusable: %w", err)
		}
		return nil, fmt.Errorf("trace parser rejects this trace: %w", err)
	}
	tb.startCPU()
	tb.startLeaks()
	close(tb.begun)
	return tb, nil
}

// headerWait bounds the wait for the trace header after trace.Start. The
// runtime writes it at once, or, beside a flight recorder, before
// trace.Start returns.
const headerWait = 5 * time.Second

// errNoHeader says the trace header did not come within headerWait.
var errNoHeader = fmt.Errorf("no trace header within %v", headerWait)

// pipeMaxBytes bounds the trace the pipe holds for the parser beyond the
// generation it parses (and one generation, whatever its size): the
// flight recorder's window, many seconds of a busy service's trace, where
// the pacer keeps the parser within paceBehind.
const pipeMaxBytes = 64 << 20

// The parsing goroutine's start: waiting for the header, parsing, or
// abandoned by startTrace (the header came too late).
const (
	headerPending uint32 = iota
	headerRead
	headerAbandoned
)

// run is the parsing goroutine: it reads the trace header, reports on
// ready, and parses the trace unless startTrace abandoned it.
func (tb *traceBackend) run(ready chan<- error) {
	tb.self = goid.Current()
	rd, err := newSource(tb.pipe)
	if err == nil && !tb.state.CompareAndSwap(headerPending, headerRead) {
		err = errNoHeader
	}
	if err != nil {
		tb.pipe.Done(err) // before startTrace's CloseRead, so that writes fail with err
		ready <- err
		return
	}
	tb.rd = rd
	tb.pace.start()
	if gr, ok := rd.(*gotrace.Reader); ok {
		gr.Pace = tb.pace.batch
		tb.inPlace = true // given the pipe, gotrace reads it in place
	}
	ready <- nil
	tb.loop()
}

// startCPU starts the CPU profiler, whose samples reach the trace with
// goroutine ids: in CPU mode they are the samples, in wall mode they give
// running goroutines their stacks (unless Config.NoCPUSamples). If the
// application already profiles the CPU, the backend shares its profile and
// takes the CPU profiler over when the application stops it (cpuprof.go).
func (tb *traceBackend) startCPU() {
	cfg := tb.em.cfg
	if cfg.Mode == Wall && cfg.NoCPUSamples {
		return
	}
	hz := wallCPUHz
	if cfg.Mode == CPU {
		hz = cfg.Rate
	}
	tb.cpuProfile = startCPUProfiler(cfg.Mode, hz, &tb.em.cpu)
	tb.cpuNow.Store(tb.cpuProfile)
}

// newTraceBackend returns a backend that parses rd; start is the wall time
// used if the trace carries no clock snapshot.
func newTraceBackend(em *emitter, rd source, start time.Time) *traceBackend {
	tb := &traceBackend{
		em:        em,
		rd:        rd,
		done:      make(chan struct{}),
		pcs:       make(map[uint64]pcFrame),
		known:     make(stackTable),
		funcIDs:   make(map[string]uint32),
		busyFree:  make([]uint32, 0, maxFree),
		labels:    newLabeler(),
		startWall: start,
	}
	tb.ticks.stepUS = uint64(1e6 / em.cfg.Rate)
	return tb
}

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
	if tb.em.stopWall.Load() != 0 { // Stop's, not a switch of backends
		tb.em.runtimeStop = now.Sub(t0)
	}
	tb.pipe.Close()
	<-tb.done
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

// labelsOn asks profiler.Do and SetGoroutineLabels to write label events
// into the trace (internal/tracelabel), until labelsOff.
func (tb *traceBackend) labelsOn() {
	if tb.labelling.CompareAndSwap(false, true) {
		tracelabel.Enable()
	}
}

// labelsOff stops asking for label events, once.
func (tb *traceBackend) labelsOff() {
	if tb.labelling.CompareAndSwap(true, false) {
		tracelabel.Disable()
	}
}

func (tb *traceBackend) loop() {
	defer close(tb.done)
	// Whatever ends the loop, later writes keep nothing, and the pipe lets
	// go of the generation the parser held.
	defer tb.pipe.Done(io.ErrClosedPipe)
	// gotrace's reader keeps its records of the goroutines off the Go
	// heap, until closed.
	if c, ok := tb.rd.(io.Closer); ok {
		defer c.Close()
	}
	// So do the backend's own records, until released.
	defer tb.releaseRecords()
	defer func() {
		if r := recover(); r != nil {
			tb.em.setErr(fmt.Errorf("sampler: trace backend panic: %v", r))
		}
	}()
	if err := tb.consume(); err != nil {
		if tb.fellBehind(err) {
			tb.full.Store(errors.Is(err, handoff.ErrFull))
			tb.behind.Store(true)
		} else {
			tb.em.setErr(err)
		}
	}
	if tb.em.failed() || tb.behind.Load() {
		// Nothing is kept of the trace written while the tracer stops.
		tb.pipe.CloseRead(io.ErrClosedPipe)
		<-tb.begun
		tb.release()
	}
}

// fellBehind reports whether err, which ended the parse, is the parser
// falling behind the trace (the flight recorder's window or the pipe's
// bound) under Auto, whose supervisor then goes on with another trace
// backend.
func (tb *traceBackend) fellBehind(err error) bool {
	return tb.opts.resync && (errors.Is(err, errBehind) || errors.Is(err, handoff.ErrFull))
}

// behindReason says how the parser fell behind, once behind is set.
func (tb *traceBackend) behindReason() string {
	if tb.full.Load() {
		return handoff.ErrFull.Error()
	}
	return errBehind.Error()
}

// consume parses the trace to its end, or until the sink fails.
func (tb *traceBackend) consume() error {
	var ev gotrace.Event
	n := 0
	for !tb.em.failed() {
		err := tb.rd.Next(&ev)
		if err == io.EOF {
			tb.finish(false)
			return nil
		}
		if err != nil {
			// A parser that fell behind ends before the supervisor
			// knows: it hands over as for a switch.
			tb.finish(tb.fellBehind(err))
			return fmt.Errorf("sampler: reading trace: %w", err)
		}
		tb.handle(&ev)
		if tb.pace.due() {
			tb.pace.rest(tb.wallNS(ev.Time))
		}
		if n++; (n%stopCheckEvery == 0 || ev.Kind == gotrace.Sync) && tb.outOfTime() {
			tb.cutShort()
			return nil
		}
	}
	return nil
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
// live then, and writes everything known (finish).
func (tb *traceBackend) cutShort() {
	n := 0
	for g := range tb.lives {
		if g.role != roleHidden {
			n++
		}
	}
	var ticks uint64
	if w := tb.em.stopWall.Load(); w != 0 && tb.ticks.started && tb.em.cfg.Mode == Wall {
		if last := tb.ticks.upTo(max(tb.traceTime(w), tb.ticks.first)); last > tb.ticks.n {
			ticks = last - tb.ticks.n
		}
	}
	tb.finish(false)
	if ticks == 0 {
		return // parsed past the Stop request: nothing asked for is lost
	}
	tb.em.unparsed += ticks * uint64(n)
	tb.em.log(fmt.Sprintf("Stop's bound of %v to parse the last generation passed: %d samples (%d ticks of %d goroutines) before the Stop request not written",
		MaxStopParse, ticks*uint64(n), ticks, n))
}

// handle folds one event into the state machine, after passing the wall
// ticks up to its time.
func (tb *traceBackend) handle(ev *gotrace.Event) {
	t := ev.Time
	if ev.Kind == gotrace.Sync {
		tb.sync(ev, t)
		return
	}
	tb.advance(t)
	if tb.leaks != nil && tb.leaks.has.Load() {
		tb.applyLeaks(t)
	}
	switch ev.Kind {
	case gotrace.Transition:
		tb.transition(ev, t)
	case gotrace.Sample:
		tb.cpuSample(ev, t)
	case gotrace.TaskBegin, gotrace.TaskEnd, gotrace.RegionBegin, gotrace.RegionEnd, gotrace.Log:
		tb.userEvent(ev)
	}
}

// sync starts a generation. Stack handles are per generation: forget them.
// Writing the settled ticks of a share of the goroutines at each keeps Stop
// short and the sink's runs flowing.
func (tb *traceBackend) sync(ev *gotrace.Event, t gotrace.Time) {
	if !tb.clockSet {
		if cs, ok := tb.rd.Clock(); ok {
			tb.baseTrace, tb.baseWall = cs.Trace, cs.Wall
		} else {
			tb.baseTrace, tb.baseWall = t, tb.startWall.UnixNano()
		}
		tb.clockSet = true
	}
	tb.advance(t)
	if tb.gen == 2 {
		// Every goroutine has been reported by now (see handover).
		tb.em.handover, tb.em.sites = nil, nil
	}
	tb.placeActive()
	if tb.handedOver.Load() == 0 {
		// Not the last generation, whose end (finish) writes every
		// goroutine's ticks.
		tb.settleShare()
	}
	tb.busyUsed = max(tb.busyHeld(), tb.busyUsed-tb.busyUsed/8)
	tb.sweepStacks()
	tb.watermark(t)
	clear(tb.stacks)
	tb.stacks = tb.stacks[:0]
	tb.sites.newGeneration()
	tb.endedGen = 0
}

// settleShare writes the ticks passed of a quarter of the goroutines, a
// different quarter each generation, as far as their stack is known, and
// ends each one's run in the sink. A goroutine's ticks thus reach the file
// at least every settleEvery generations (about a second each), in runs
// four times longer than with a settle per generation (a parked
// goroutine's run is a count in the sink, and longer runs compress faster),
// and Stop has at most settleEvery generations of ticks left to write.
func (tb *traceBackend) settleShare() {
	tb.gen++
	tb.settleBucket(int((settleEvery-tb.gen%settleEvery)%settleEvery), false)
}

// settleBucket writes the ticks passed of the goroutines of bucket b and
// ends each one's run in the sink, and reports whether it went through:
// with early set it stops once the trace is whole in the parser's hands
// (handedOver), leaving the bucket's floor as it was, for the last
// generation's parse (bounded by MaxStopParse) to begin, and it yields
// its P between chunks of goroutines: it runs while the runtime stops its
// tracer, and in a busy program the program's goroutines, and the
// runtime's stop itself, go first.
func (tb *traceBackend) settleBucket(b int, early bool) bool {
	floor := tb.ticks.n
	for i := uint32(b); i < tb.recs.made(); i += settleEvery {
		if early && i%(earlyCheckEvery*settleEvery) == uint32(b) {
			if tb.handedOver.Load() != 0 {
				return false
			}
			runtime.Gosched()
		}
		g := tb.recs.rec(i)
		if g.slot == 0 {
			continue // ended
		}
		tb.settle(g)
		tb.flushSink(g)
		floor = min(floor, g.due)
		if pend := tb.pend(g); len(pend) > 0 {
			floor = min(floor, pend[0].from)
		}
	}
	tb.floor[b] = floor
	return true
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
// report left out says what the goroutine's latest event said. (A report
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
		if tb.handedOver.Load() == 0 || !tb.clockSet {
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

// bucketOf returns g's bucket: the generations gen at which settleShare
// writes g are those at which (slot-1+gen)%settleEvery is 0, and a
// bucket's goroutines are every settleEvery-th record of recs. Numbers
// are given from one up, an ended goroutine's to the next new one, so the
// buckets are about even, as they were by id.
func bucketOf(g *tgor) int { return int((g.slot - 1) % settleEvery) }

// lives yields every live goroutine, in the order of their numbers.
func (tb *traceBackend) lives(yield func(*tgor) bool) { tb.recs.all(yield) }

// watermark tells a sink that takes watermarks the oldest tick that may
// still be written: in wall mode the oldest of the buckets' floors (a
// goroutine's first unwritten tick moves only forward between two
// settleShares of its bucket, and ticks are queued from there: the
// oldest is most often a parked goroutine's, written at its bucket's last
// settleShare, so that the floors cost nothing a goroutine), in CPU mode
// the generation's start (its samples are written as they come).
// Goroutines the runtime has not reported yet are only known after the
// first generation, so before the third it says 0 (nothing yet), which
// still marks the generation's end for a sink that acts on it.
func (tb *traceBackend) watermark(t gotrace.Time) {
	if tb.em.wm == nil {
		return
	}
	switch {
	case tb.gen < 3:
		tb.em.watermark(0)
		return
	case tb.em.cfg.Mode != Wall:
		tb.em.watermark(tb.micros(t))
		return
	case !tb.ticks.started:
		tb.em.watermark(0)
		return
	}
	oldest := tb.ticks.n
	for _, f := range tb.floor {
		oldest = min(oldest, f)
	}
	tb.em.watermark(tb.ticks.span(oldest, oldest).ts)
}

// settleEvery is how many generations apart settleShare writes a goroutine.
const settleEvery = 4

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
		tb.close(g)
		tb.flushSink(g)
	}
	tb.active = tb.active[:0]
	if tb.em.handing.CompareAndSwap(true, false) || next { // another backend follows
		tb.em.handover = make(map[uint64]*stack, tb.recs.live)
		tb.em.sites = make(map[uint64]string, tb.recs.live)
		for g := range tb.lives {
			t := tb.track(g)
			tb.em.carry(&t)
			if s := tb.stackOf(g); s != nil && g.role != roleHidden {
				tb.em.handover[g.id] = s
			}
			if c := tb.base(g).created; c != "" && g.role != roleHidden {
				tb.em.sites[g.id] = c
			}
		}
	}
}

// micros maps a trace time onto wall-clock microseconds since the epoch.
func (tb *traceBackend) micros(t gotrace.Time) uint64 {
	ns := tb.wallNS(t)
	if ns < 0 {
		return 0
	}
	return uint64(ns / 1000)
}

// wallNS maps a trace time onto wall-clock nanoseconds since the epoch.
func (tb *traceBackend) wallNS(t gotrace.Time) int64 {
	if !tb.clockSet {
		tb.baseTrace, tb.baseWall, tb.clockSet = t, tb.startWall.UnixNano(), true
	}
	return tb.baseWall + int64(t-tb.baseTrace)
}

// advance passes the wall-mode ticks up to and including trace time t, and
// none past the Stop request: the runtime goes on tracing while it stops
// (with a million goroutines, for seconds), and no tick after the request
// is sampled. A tick writes nothing by itself: each goroutine's ticks are
// written when its stack over them is known, so a tick costs the same with
// 10 or 10,000 goroutines and a parked goroutine costs a few bytes of
// copying per tick.
func (tb *traceBackend) advance(t gotrace.Time) {
	if tb.em.cfg.Mode != Wall {
		return
	}
	if !tb.ticks.started {
		tb.ticks.start(t, tb.micros(t))
	}
	if !tb.ticks.due(t) {
		return
	}
	if w := tb.em.stopWall.Load(); w != 0 {
		t = max(min(t, tb.traceTime(w)), tb.ticks.first)
	}
	tb.em.ticks += tb.ticks.advance(t)
}

// traceTime maps wall-clock nanoseconds since the epoch onto trace time.
func (tb *traceBackend) traceTime(wallNS int64) gotrace.Time {
	return tb.baseTrace + gotrace.Time(wallNS-tb.baseWall)
}

// tickGrid is the wall-mode ticks: tick k is at trace time first + k*step
// and wall time firstUS + k*stepUS. The step is a whole number of
// microseconds, so that a run of ticks is one RepeatEvery.
type tickGrid struct {
	started bool
	first   gotrace.Time
	firstUS uint64
	stepUS  uint64
	n       uint64       // ticks passed: those at or before the latest event
	next    gotrace.Time // time of tick n (the first not passed), once n > 0
}

func (g *tickGrid) start(t gotrace.Time, us uint64) {
	g.started, g.first, g.firstUS = true, t, us
}

func (g *tickGrid) step() gotrace.Time { return gotrace.Time(g.stepUS * 1000) }

// due reports whether t is at or past the first tick not passed yet: most
// events fall between two ticks, and one comparison says so.
func (g *tickGrid) due(t gotrace.Time) bool { return g.n == 0 || t >= g.next }

// advance passes the ticks at or before t and returns how many it passed.
func (g *tickGrid) advance(t gotrace.Time) uint64 {
	if !g.due(t) {
		return 0
	}
	n := g.upTo(t)
	if n <= g.n {
		return 0
	}
	d := n - g.n
	g.n = n
	g.next = g.first + gotrace.Time(n)*g.step()
	return d
}

// upTo returns the number of ticks at or before t.
func (g *tickGrid) upTo(t gotrace.Time) uint64 {
	if !g.started || t < g.first {
		return 0
	}
	return uint64((t-g.first)/g.step()) + 1
}

// span returns the ticks [from, to) as a span of samples.
func (g *tickGrid) span(from, to uint64) span {
	return span{ts: g.firstUS + from*g.stepUS, step: g.stepUS, n: int(to - from)}
}

// stack normalises a trace stack, cached per handle for the generation and
// per PC for the process.
func (tb *traceBackend) stack(id uint64) *stack {
	if id == 0 {
		return nil
	}
	if id < uint64(len(tb.stacks)) && tb.stacks[id] != nil {
		return tb.stacks[id]
	}
	ts := stack{frames: tb.scratch[:0]}
	var first gotrace.Frame
	var above, outer pcFrame // the two outermost frames
	weak := ""
	i := 0
	frames := tb.rd.Stack(id)
	for k := range frames {
		f := &frames[k]
		e := tb.frame(f)
		if i == 0 {
			first = *f
		}
		above, outer = outer, e
		if e.hint != "" && ts.hint == "" {
			if e.hint != weakSemacquire {
				ts.hint = e.hint
			} else if weak == "" {
				weak = e.hint
			}
		}
		switch e.kind {
		case keepFrame:
			if ts.leafPC == 0 {
				ts.leafPC = f.PC
			}
			ts.program = ts.program || e.role != roleRuntime
			if len(ts.frames) < maxDepth {
				ts.frames = append(ts.frames, e.idx)
			}
		case panicFrame:
			if i > 0 {
				ts.panicking = true
				if len(ts.frames) < maxDepth {
					ts.frames = append(ts.frames, tb.namedFrame(f, "panic"))
				}
			}
		}
		i++
	}
	if ts.hint == "" {
		ts.hint = weak
	}
	switch {
	case outer.goexit || len(ts.frames) == 0:
	case i >= traceCutDepth:
		// The runtime cut the stack before the goroutine's root: say so
		// at the root.
		ts.frames = append(ts.frames[:min(len(ts.frames), maxDepth-1)], tb.markFrame(truncatedFrame))
	case i >= cpuCutDepth:
		// Cut, if a CPU sample's: the trace's own stacks leave
		// runtime.goexit out, and end at the root up to traceCutDepth.
		ts.cpuCut = true
	}
	ts.evidence = len(ts.frames) > 0
	if !ts.evidence && i > 0 {
		// Only hidden runtime frames: keep the innermost, so that a CPU
		// sample still says where the time went.
		ts.frames = append(ts.frames, tb.namedFrame(&first, first.Func))
		ts.leafPC = first.PC
	}
	ts.outer = outer.role
	if outer.goexit && i >= 2 {
		ts.start = above.role
	}
	tb.scratch = ts.frames
	st := tb.known.intern(&ts)
	if id < maxStackIDs {
		for uint64(len(tb.stacks)) <= id {
			tb.stacks = append(tb.stacks, nil)
		}
		tb.stacks[id] = st
	}
	return st
}

// maxStackIDs bounds the generation's table of normalised stacks by id;
// a stack with a larger id (none in a real trace: ids count the
// generation's stacks) is normalised at each use.
const maxStackIDs = 1 << 20

// frame classifies and interns one frame, cached per PC.
func (tb *traceBackend) frame(f *gotrace.Frame) pcFrame {
	if e, ok := tb.pcs[f.PC]; ok && e.line == f.Line {
		return e
	}
	e := pcFrame{
		line:   f.Line,
		kind:   classify(f.Func, f.File),
		hint:   reasonHints[f.Func],
		role:   roleOf(f.Func),
		goexit: f.Func == "runtime.goexit",
	}
	if e.kind == keepFrame {
		e.idx = tb.namedFrame(f, f.Func)
		tb.noteFunc(e.idx, f.Func)
	}
	tb.pcs[f.PC] = e
	return e
}

// namedFrame interns frame f under the function name fn.
func (tb *traceBackend) namedFrame(f *gotrace.Frame, fn string) uint32 {
	return tb.em.sink.Frame(tachyon.Frame{File: f.File, Func: fn, Line: int32(f.Line)})
}

// unknownFrame is the one synthetic frame of a goroutine whose stack the
// trace never showed: one that was already runnable when tracing began, ran
// and ended without blocking, being preempted or being sampled.
const unknownFrame = "[stack unknown]"

// truncatedFrame is the outermost frame of a stack the runtime cut before
// the goroutine's root. The runtime keeps cpuCutDepth frames of a CPU
// sample's stack, whose root is runtime.goexit when it is complete, and
// traceCutDepth of a goroutine's where it changes state or logs, which
// leaves runtime.goexit out.
const (
	truncatedFrame = "[truncated]"
	cpuCutDepth    = 64
	traceCutDepth  = 128
)

// cpuStack returns the stack of a CPU sample: s, or s ending in
// truncatedFrame if a CPU sample's stack of its depth was cut (s.cpuCut),
// made once per stack.
func (tb *traceBackend) cpuStack(s *stack) *stack {
	switch {
	case s == nil || !s.cpuCut:
		return s
	case s.truncated != nil:
		return s.truncated
	}
	return s.withRoot(tb.markFrame(truncatedFrame), &s.truncated)
}

// markFrame interns a synthetic frame, one with only a name.
func (tb *traceBackend) markFrame(name string) uint32 {
	return tb.em.sink.Frame(tachyon.Frame{Func: name})
}

// unknownStack is the stack of a goroutine whose stack the trace never
// showed.
func (tb *traceBackend) unknownStack() *stack {
	if tb.unknown == nil {
		tb.unknown = &stack{frames: []uint32{tb.markFrame(unknownFrame)}}
	}
	return tb.unknown
}
