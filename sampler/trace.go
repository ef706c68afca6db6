package sampler

import (
	"fmt"
	"io"
	"runtime"
	"runtime/pprof"
	rtrace "runtime/trace"
	"time"

	xtrace "golang.org/x/exp/trace"

	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// Trace backend: runtime/trace -> io.Pipe -> golang.org/x/exp/trace, folded
// into a per-goroutine state machine.

// wallCPUHz is the CPU-profile rate used in wall mode with
// Config.WallCPUSamples, where CPU samples only refine the stacks of running
// goroutines. 100 Hz is pprof's own rate, so setting it prints no runtime
// warning.
const wallCPUHz = 100

// traceStack is a normalised trace stack, cached per trace.Stack handle.
type traceStack struct {
	frames    []uint32
	leafPC    uint64
	hint      string // wait reason inferred from the frames ("" none)
	panicking bool
	system    bool // runtime system goroutine (outermost frame in runtime)
	internal  bool // the sampler's own helper goroutines
}

// pcFrame is a cached frame of the trace, keyed by PC.
type pcFrame struct {
	idx      uint32
	line     uint64
	kind     frameKind
	hint     string
	system   bool
	internal bool
	goexit   bool
}

// tgor is the sampler's view of one goroutine.
type tgor struct {
	id       uint64
	state    gstate
	reason   int64       // wait-reason frame index, -1 if none
	stack    *traceStack // stack at the last transition
	cpu      *traceStack // latest CPU sample while running
	excluded bool
	seen     bool
	pos      int    // index in traceBackend.live
	due      uint64 // wall mode: first tick not yet written for it
	// With a ThreadSink: the goroutine's handle and what its previous
	// sample held, so that an unchanged goroutine is written as a repeat.
	h          *writer.Thread
	last       *traceStack
	lastReason int64
}

// traceBackend is the trace backend; its loop owns every field but done.
type traceBackend struct {
	st         *state
	pr         *io.PipeReader
	pw         *io.PipeWriter
	rd         *xtrace.Reader
	cpuStarted bool
	done       chan struct{}

	self   uint64
	pcs    map[uint64]pcFrame
	stacks map[xtrace.Stack]*traceStack
	gs     map[xtrace.GoID]*tgor
	live   []*tgor
	// goroutines that ended in this generation: a late CPU sample must not
	// bring them back (their ids would be counted twice by the sink).
	ended map[xtrace.GoID]struct{}

	clockSet  bool
	baseTrace xtrace.Time
	baseWall  int64 // ns since the epoch at baseTrace
	startWall time.Time

	period    xtrace.Time
	tickInit  bool
	firstTick xtrace.Time
	nextTick  xtrace.Time
	nticks    uint64 // wall ticks passed: tick k is at firstTick + k*period
}

// startTrace starts the runtime tracer into a pipe, reads the trace header
// and starts the parsing goroutine. An error means the trace cannot be used
// (the tracer is taken, or the parser does not know this trace version);
// nothing is left running then.
func startTrace(st *state) (*traceBackend, error) {
	pr, pw := io.Pipe()
	start := time.Now()
	if err := rtrace.Start(pw); err != nil {
		return nil, fmt.Errorf("runtime/trace unavailable: %w", err)
	}
	rd, err := xtrace.NewReader(pr)
	if err != nil {
		pr.CloseWithError(err) // unblock the trace writer before stopping it
		rtrace.Stop()
		pw.Close()
		return nil, fmt.Errorf("trace parser rejects this trace: %w", err)
	}
	tb := newTraceBackend(st, rd, start)
	tb.pr, tb.pw = pr, pw
	if st.cfg.Mode == CPU || st.cfg.WallCPUSamples {
		hz := wallCPUHz
		if st.cfg.Mode == CPU {
			hz = st.cfg.Rate
		}
		if hz != 100 {
			// pprof.StartCPUProfile sets 100 Hz itself; setting the rate
			// first makes the runtime keep ours (it prints a warning).
			runtime.SetCPUProfileRate(hz)
		}
		// If the application already profiles the CPU, its samples reach
		// the trace all the same.
		tb.cpuStarted = pprof.StartCPUProfile(io.Discard) == nil
	}
	go tb.loop()
	return tb, nil
}

// newTraceBackend returns a backend that parses rd; start is the wall time
// used if the trace carries no clock snapshot.
func newTraceBackend(st *state, rd *xtrace.Reader, start time.Time) *traceBackend {
	return &traceBackend{
		st:        st,
		rd:        rd,
		done:      make(chan struct{}),
		pcs:       make(map[uint64]pcFrame),
		stacks:    make(map[xtrace.Stack]*traceStack),
		gs:        make(map[xtrace.GoID]*tgor),
		startWall: start,
		period:    xtrace.Time(int64(time.Second) / int64(st.cfg.Rate)),
	}
}

// stop stops CPU profiling and tracing, then waits until the parser has
// consumed and emitted everything.
func (tb *traceBackend) stop() {
	if tb.cpuStarted {
		pprof.StopCPUProfile()
	}
	rtrace.Stop() // returns once all trace data has been written to the pipe
	tb.pw.Close()
	<-tb.done
}

func (tb *traceBackend) loop() {
	defer close(tb.done)
	// Whatever ends the loop, later writes must not block the trace writer.
	defer tb.pr.CloseWithError(io.ErrClosedPipe)
	defer func() {
		if r := recover(); r != nil {
			tb.st.setErr(fmt.Errorf("sampler: trace backend panic: %v", r))
		}
	}()
	tb.self = goid()
	if err := tb.consume(); err != nil {
		tb.st.setErr(err)
	}
}

// consume parses the trace to its end.
func (tb *traceBackend) consume() error {
	for {
		ev, err := tb.rd.ReadEvent()
		if err == io.EOF {
			tb.settleAll()
			return nil
		}
		if err != nil {
			return fmt.Errorf("sampler: reading trace: %w", err)
		}
		tb.handle(&ev)
	}
}

// handle folds one event into the state machine, first emitting the wall
// ticks that fall before it.
func (tb *traceBackend) handle(ev *xtrace.Event) {
	t := ev.Time()
	switch ev.Kind() {
	case xtrace.EventSync:
		if !tb.clockSet {
			if cs := ev.Sync().ClockSnapshot; cs != nil {
				tb.baseTrace, tb.baseWall = cs.Trace, cs.Wall.UnixNano()
			} else {
				tb.baseTrace, tb.baseWall = t, tb.startWall.UnixNano()
			}
			tb.clockSet = true
		}
		// Stack handles are per generation: forget the old ones. Writing
		// every goroutine's deferred ticks once per generation keeps Stop
		// short and the sink's runs flowing.
		tb.settleAll()
		clear(tb.stacks)
		clear(tb.ended)
	case xtrace.EventStateTransition:
		tb.advance(t)
		tb.transition(ev)
	case xtrace.EventStackSample:
		tb.advance(t)
		tb.cpuSample(ev, t)
	default:
		tb.advance(t)
	}
}

// micros maps a trace time onto wall-clock microseconds since the epoch.
func (tb *traceBackend) micros(t xtrace.Time) uint64 {
	if !tb.clockSet {
		tb.baseTrace, tb.baseWall, tb.clockSet = t, tb.startWall.UnixNano(), true
	}
	ns := tb.baseWall + int64(t-tb.baseTrace)
	if ns < 0 {
		return 0
	}
	return uint64(ns / 1000)
}

func (tb *traceBackend) goroutine(id xtrace.GoID) (g *tgor, isNew bool) {
	g = tb.gs[id]
	if g == nil {
		isNew = true
		g = &tgor{id: uint64(id), reason: -1, pos: len(tb.live), due: tb.nticks,
			excluded: uint64(id) == tb.self || uint64(id) == tb.st.helper.Load()}
		tb.gs[id] = g
		tb.live = append(tb.live, g)
	}
	return g, isNew
}

func (tb *traceBackend) remove(id xtrace.GoID) {
	g := tb.gs[id]
	if g == nil {
		return
	}
	tb.settle(g)
	delete(tb.gs, id)
	delete(tb.st.seen, uint64(id)) // ids are never reused
	if tb.ended == nil {
		tb.ended = make(map[xtrace.GoID]struct{})
	}
	tb.ended[id] = struct{}{}
	if g.h != nil {
		tb.st.tsink.Forget(g.h)
	}
	last := tb.live[len(tb.live)-1]
	tb.live[g.pos] = last
	last.pos = g.pos
	tb.live[len(tb.live)-1] = nil
	tb.live = tb.live[:len(tb.live)-1]
}

func goState(s xtrace.GoState) gstate {
	switch s {
	case xtrace.GoRunning:
		return gRunning
	case xtrace.GoRunnable:
		return gRunnable
	case xtrace.GoSyscall:
		return gSyscall
	case xtrace.GoWaiting:
		return gWaiting
	}
	return gUnknown
}

func (tb *traceBackend) transition(ev *xtrace.Event) {
	tr := ev.StateTransition()
	if tr.Resource.Kind != xtrace.ResourceGoroutine {
		return
	}
	id := tr.Resource.Goroutine()
	from, to := tr.Goroutine()
	if to == xtrace.GoNotExist {
		tb.remove(id)
		return
	}
	g, isNew := tb.goroutine(id)
	tb.settle(g)
	if ts := tb.stack(tr.Stack); ts != nil {
		g.stack = ts
		if ts.system || ts.internal {
			g.excluded = true
		}
	}
	if !(from == xtrace.GoRunning && to == xtrace.GoRunning) {
		g.cpu = nil
	}
	g.state = goState(to)
	g.reason = -1
	if g.state == gWaiting {
		r := ""
		if g.stack != nil {
			r = g.stack.hint
		}
		if r == "" {
			r = canonReason(tr.Reason)
		}
		g.reason = int64(tb.st.reasonFrame(r))
	}
	if isNew && from == xtrace.GoUndetermined {
		// The runtime reports a goroutine that did not change state during
		// a generation only at its end: it has been in this state since
		// tracing started, so its ticks start at the first.
		g.due = 0
	}
}

func (tb *traceBackend) cpuSample(ev *xtrace.Event, t xtrace.Time) {
	id := ev.Goroutine()
	if id == xtrace.NoGoroutine {
		return
	}
	if _, ok := tb.ended[id]; ok {
		return
	}
	ts := tb.stack(ev.Stack())
	if ts == nil {
		return
	}
	g, _ := tb.goroutine(id)
	tb.settle(g)
	if ts.system || ts.internal {
		g.excluded = true
	}
	if g.state == gUnknown {
		g.state = gRunning
	}
	if g.state == gRunning {
		g.cpu = ts
	}
	if tb.st.cfg.Mode != CPU {
		return
	}
	tb.st.ticks++
	if g.excluded {
		return
	}
	st := tachyon.StatusOnCPU | tachyon.StatusHasGIL
	if g.state == gSyscall {
		st = status(gSyscall, false)
	}
	if ts.panicking {
		st |= tachyon.StatusHasException
	}
	tb.emit(g, tb.micros(t), st, -1, ts, true)
}

// emit writes one sample of g; cpu says ts is a CPU sample's stack, whose
// leaf PC then goes to Config.LeafPC.
func (tb *traceBackend) emit(g *tgor, us uint64, st uint8, reason int64, ts *traceStack, cpu bool) {
	if tb.st.tsink != nil {
		same := g.last == ts && g.lastReason == reason
		tb.st.emitThread(&g.h, g.id, us, st, reason, ts.frames, same)
		g.last, g.lastReason = ts, reason
	} else {
		tb.st.emit(g.id, us, st, reason, ts.frames)
	}
	tb.markSeen(g)
	if cpu && tb.st.cfg.LeafPC != nil && ts.leafPC != 0 {
		tb.st.cfg.LeafPC(uintptr(ts.leafPC))
	}
}

// markSeen counts g in Stats.Goroutines; g.seen spares the shared map a
// lookup per sample.
func (tb *traceBackend) markSeen(g *tgor) {
	if !g.seen {
		g.seen = true
		tb.st.markSeen(g.id)
	}
}

// advance passes the wall-mode ticks up to and including trace time t. A
// tick writes nothing by itself: each goroutine's ticks are written when it
// changes (settle), so a tick costs the same with 10 or 10,000 goroutines
// and a parked goroutine costs a few bytes of copying per tick.
func (tb *traceBackend) advance(t xtrace.Time) {
	if tb.st.cfg.Mode != Wall {
		return
	}
	if !tb.tickInit {
		tb.firstTick, tb.nextTick, tb.tickInit = t, t, true
	}
	if tb.nextTick <= t {
		n := uint64((t-tb.nextTick)/tb.period) + 1
		tb.nticks += n
		tb.st.ticks += n
		tb.nextTick += xtrace.Time(n) * tb.period
	}
}

// settle writes g's ticks passed since its last change, with the state and
// stack it has held since.
func (tb *traceBackend) settle(g *tgor) {
	first, n := g.due, tb.nticks-g.due
	g.due = tb.nticks
	if n == 0 || g.excluded {
		return
	}
	ts := g.stack
	if g.state == gRunning && g.cpu != nil {
		ts = g.cpu
	}
	if ts == nil {
		return
	}
	running := g.state == gRunning
	st := status(g.state, ts.panicking)
	t0 := tb.firstTick + xtrace.Time(first)*tb.period
	if tb.st.tsink != nil && tb.period%1000 == 0 {
		// Whole microseconds apart: one run.
		same := g.last == ts && g.lastReason == g.reason
		tb.st.emitRun(&g.h, g.id, tb.micros(t0), uint64(tb.period/1000), int(n), st, g.reason, ts.frames, same)
		g.last, g.lastReason = ts, g.reason
		tb.markSeen(g)
	} else {
		for i := range n {
			tb.emit(g, tb.micros(t0+xtrace.Time(i)*tb.period), st, g.reason, ts, false)
		}
	}
	if running && tb.st.cfg.LeafPC != nil && ts.leafPC != 0 {
		for range n {
			tb.st.cfg.LeafPC(uintptr(ts.leafPC))
		}
	}
}

// settleAll settles every live goroutine.
func (tb *traceBackend) settleAll() {
	for _, g := range tb.live {
		tb.settle(g)
	}
}

// stack normalises a trace stack, cached per handle for the generation and
// per PC for the process.
func (tb *traceBackend) stack(s xtrace.Stack) *traceStack {
	if s == xtrace.NoStack {
		return nil
	}
	if ts, ok := tb.stacks[s]; ok {
		return ts
	}
	ts := &traceStack{}
	first := true
	weak := ""
	for f := range s.Frames() {
		e := tb.frame(f)
		if e.internal {
			ts.internal = true
		}
		if !e.goexit {
			ts.system = e.system
		}
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
			if len(ts.frames) < maxDepth {
				ts.frames = append(ts.frames, e.idx)
			}
		case panicFrame:
			if !first {
				ts.panicking = true
				if len(ts.frames) < maxDepth {
					ts.frames = append(ts.frames, tb.panicFrame(f))
				}
			}
		}
		first = false
	}
	if ts.hint == "" {
		ts.hint = weak
	}
	tb.stacks[s] = ts
	return ts
}

// frame classifies and interns one frame, cached per PC.
func (tb *traceBackend) frame(f xtrace.StackFrame) pcFrame {
	if e, ok := tb.pcs[f.PC]; ok && e.line == f.Line {
		return e
	}
	e := pcFrame{
		line:     f.Line,
		kind:     classify(f.Func, f.File),
		hint:     reasonHints[f.Func],
		system:   systemFunc(f.Func),
		internal: internalFunc(f.Func),
		goexit:   f.Func == "runtime.goexit",
	}
	if e.kind == keepFrame {
		e.idx = tb.st.sink.Frame(writer.Frame{File: f.File, Func: f.Func, Line: int32(f.Line)})
	}
	tb.pcs[f.PC] = e
	return e
}

// panicFrame interns the "panic" frame the way runtime.Stack prints it.
func (tb *traceBackend) panicFrame(f xtrace.StackFrame) uint32 {
	return tb.st.sink.Frame(writer.Frame{File: f.File, Func: "panic", Line: int32(f.Line)})
}
