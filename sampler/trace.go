package sampler

import (
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/gotachyon/profiler/internal/goid"
	"github.com/gotachyon/profiler/internal/gotrace"
	"github.com/gotachyon/profiler/internal/handoff"
	"github.com/gotachyon/profiler/internal/tracelabel"
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
	slot       *startWriter  // trace.Start's writer, if the trace comes through that slot
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
	// reported is set once the runtime has reported every goroutine;
	// until then endedEarly holds the ids of the goroutines that ended
	// (ended.go).
	reported   bool
	synced     bool // a generation has begun
	endedEarly endedIDs
	endedGen   int    // goroutines ended in this generation
	unknown    *stack // "[stack unknown]", for a goroutine never seen with a stack
	// active lists the goroutines that ran or had CPU samples in this
	// generation: oncpu.go places their CPU samples at its end.
	active  []*tgor
	oncpu   placer
	orphans []orphan // CPU samples of goroutines ended between ticks (orphans.go)
	runtime track    // CPU mode's thread of the CPU samples outside any goroutine (cpuEmitRuntime)
	grown   int      // goroutine queues or the placement's scratch grown past their longest, for the steady-state test

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

	// liveGs is how many goroutines were live just after the tracer
	// started, at liveWall (ns since the epoch; both 0 before), and
	// atStart how many of those the parse has met (unmet.go).
	liveGs, liveWall atomic.Int64
	atStart          int

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
	tb.markStart()
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
	tb.attach(rd)
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
		done:      make(chan struct{}),
		pcs:       make(map[uint64]pcFrame),
		known:     make(stackTable),
		funcIDs:   make(map[string]uint32),
		busyFree:  make([]uint32, 0, maxFree),
		labels:    newLabeler(),
		startWall: start,
	}
	tb.ticks.stepUS = uint64(1e6 / em.cfg.Rate)
	if rd != nil {
		tb.attach(rd)
	}
	return tb
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
	n := 0
	for !tb.em.failed() {
		ev, err := tb.rd.NextEvent()
		if err == io.EOF {
			tb.finish(false)
			return nil
		}
		if err != nil && tb.cutOff(err) {
			tb.finish(false)
			return nil
		}
		if err != nil {
			// A parser that fell behind ends before the supervisor
			// knows: it hands over as for a switch.
			tb.finish(tb.fellBehind(err))
			return fmt.Errorf("sampler: reading trace: %w", err)
		}
		tb.handle(ev)
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

// cutOff reports whether err, which ended the parse, is the end of a
// trace cut off in a generation because the backend let trace.Start's
// slot go without trace.Stop (stopTracer: the slot looked lost) while the
// runtime still wrote there: the runtime's next write stops that trace
// (startWriter.Write). The profile keeps what was parsed, and the log
// says what was not.
func (tb *traceBackend) cutOff(err error) bool {
	if tb.slot == nil || !tb.slot.orphaned.Load() || !errors.Is(err, io.ErrUnexpectedEOF) {
		return false
	}
	tb.em.log(fmt.Sprintf("the trace through trace.Start's slot, which looked ended by the application's trace.Stop, was still the profile's: its last generation was cut off and not written (%v); the runtime's next write there stops it", err))
	return true
}

// handle folds one event into the state machine, after passing the wall
// ticks up to its time.
func (tb *traceBackend) handle(ev *gotrace.Event) {
	t := ev.Time
	if ev.Kind == gotrace.Sync {
		tb.sync(ev, t)
		return
	}
	// advance's first checks, here so that an event that passes no tick,
	// as most do, makes no call (advance itself is over the inliner's
	// budget).
	if !tb.ticks.started || tb.ticks.due(t) {
		tb.advance(t)
	}
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
		tb.em.handover, tb.em.sites, tb.em.labels = nil, nil, nil
	}
	if tb.synced && !tb.reported {
		// The runtime reports, in each generation, every goroutine
		// that had no event in it: once the first is parsed, every
		// goroutine has a record.
		tb.allReported()
	}
	tb.synced = true
	tb.placeActive()
	tb.expireOrphans(t, false)
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
