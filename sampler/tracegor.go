package sampler

import (
	"slices"

	"github.com/gotachyon/profiler/internal/gotrace"
	"github.com/gotachyon/profiler/internal/own"
)

// The trace backend's view of one goroutine. Every tick of its life gets
// its state at the tick and a stack:
//
//   - runnable, blocked, in a system call: the stack of the transition that
//     began the state, which is where the goroutine stopped (the trace
//     records it) and stays until it runs again;
//   - running (holding a P): a stack of its CPU samples, which oncpu.go
//     assigns once a generation; ticks the CPU samples do not pay for are
//     written as runnable, under a "[no CPU sample]" frame.
//
// A goroutine's ticks are written, in order, as soon as their stack is
// known; until then they wait in a queue of runs (pend). A goroutine that
// ran in the generation holds its whole queue until the generation ends,
// when oncpu.go places its CPU samples. The runtime reports a goroutine
// that has not run since tracing began at the end of the first generation,
// with its stack, and its ticks since the first are written then. One
// that ran before that is reported without a stack: its runs wait for its
// first transition with a stack (where it blocks again, most often where
// it was blocked before) and take it.

// run is the ticks [from, to) of a goroutine in one state.
type run struct {
	from, to uint64
	state    gstate
	why      uint32 // wait reason (source.Reason)
	stack    *stack // nil: not known yet (running: not placed yet)
	// sched is, for running ticks, where the scheduler saw the goroutine
	// at the end of their stretch (the stack its block, system call or
	// preemption recorded), once known.
	sched *stack
	// labels is the goroutine's label set over the ticks (labels.go).
	labels *labelSet
}

// maxPend bounds a goroutine's queue; a longer one is merged into its last
// run. A generation's queue has at most one run per tick, so only a
// goroutine reported without a stack for long gets there.
const maxPend = 1 << 12

func goState(s gotrace.GoState) gstate {
	switch s {
	case gotrace.GoRunning:
		return gRunning
	case gotrace.GoRunnable:
		return gRunnable
	case gotrace.GoSyscall:
		return gSyscall
	case gotrace.GoWaiting:
		return gWaiting
	}
	return gUnknown
}

// find returns goroutine id's record, nil if it has none.
func (tb *traceBackend) find(id uint64) *tgor { return tb.lookup(id, 0) }

// lookup returns goroutine id's record, nil if it has none; u is the
// number the event carries (gotrace.Event.User), 0 if none, and then the
// source is asked (a CPU sample's or a task's event carries none). A
// goroutine met before the source knew it is found by id, and numbered
// once the source knows it.
func (tb *traceBackend) lookup(id uint64, u uint32) *tgor {
	if u == 0 {
		u = tb.rd.User(id)
	}
	if g := tb.recs.at(u); g != nil && g.id == id {
		return g
	}
	if len(tb.unattached) == 0 {
		return nil
	}
	g := tb.unattached[id]
	if g != nil && tb.rd.SetUser(id, g.slot) {
		delete(tb.unattached, id)
	}
	return g
}

// number tells the source g's number; g is new.
func (tb *traceBackend) number(g *tgor) {
	if !tb.rd.SetUser(g.id, g.slot) {
		if tb.unattached == nil {
			tb.unattached = make(map[uint64]*tgor)
		}
		tb.unattached[g.id] = g
	}
}

// goroutine returns the goroutine of ev (a transition or CPU sample),
// creating it if new. The backends' own goroutines are hidden by
// identity.
func (tb *traceBackend) goroutine(ev *gotrace.Event) (g *tgor, isNew bool) {
	id := ev.G
	if g = tb.recs.at(ev.User); g != nil && g.id == id {
		return g, false // by the event's number, lookup's first step
	}
	if g = tb.lookup(id, ev.User); g != nil {
		return g, false
	}
	g = tb.recs.add()
	g.id, g.due = id, tb.ticks.n
	// The backend's own goroutines, and those package own says are the
	// profiler's when the backend meets them, are hidden for life;
	// the emitter leaves out those registered after the backend met them
	// (own.go).
	if g.id == tb.self || g.id == tb.em.helper.Load() || own.Has(g.id) {
		g.role = roleHidden
	}
	if s, ok := tb.em.handover[id]; ok {
		tb.setStack(g, s) // where the previous backend last saw it
		delete(tb.em.handover, id)
	}
	tb.number(g)
	site, created := tb.em.sites[id]
	p, labelled := tb.em.labels[id]
	if created || labelled {
		// Created, or labelled, before this trace began, as the
		// previous backend saw.
		delete(tb.em.sites, id)
		delete(tb.em.labels, id)
		b := tb.base(g)
		if created {
			b.created = site
		}
		if labelled {
			b.p = p
			tb.labels.carried = true
		}
		tb.relabelTo(g, nil, b)
	}
	return g, true
}

// sinceFirst makes g's ticks begin at the first: it was there before the
// trace began.
func (tb *traceBackend) sinceFirst(g *tgor) {
	tb.metAtStart(g)
	g.due = 0
	tb.floor[bucketOf(g)] = 0
}

// transition folds a goroutine's state transition at time t.
func (tb *traceBackend) transition(ev *gotrace.Event, t gotrace.Time) {
	id, from, to := ev.G, ev.From, ev.To
	if to == gotrace.GoNotExist {
		if g := tb.lookup(id, ev.User); g != nil {
			s := tb.stack(ev.Stack)
			tb.learn(g, s, false)
			tb.cut(g)
			if g.state == gRunning {
				tb.leaveRunning(g, s, false)
			}
			tb.endedAt(g, t)
			tb.remove(g)
		} else if from != gotrace.GoNotExist {
			// There before the trace, met at its end.
			if !tb.beforeStart(t) {
				tb.atStart++
			}
			tb.noteEnded(id)
		}
		return
	}
	report := from == to || from == gotrace.GoUndetermined
	g, isNew := tb.goroutine(ev)
	if isNew && from == gotrace.GoNotExist {
		tb.born(g, ev)
		if tb.beforeStart(t) {
			tb.metAtStart(g)
		}
	}
	s := tb.stack(ev.Stack)
	tb.learnFromTransition(g, s, from == gotrace.GoNotExist)
	next := goState(to)
	if next == gWaiting && tb.rd.Reason(ev.Reason) == "preempted" {
		// Suspended by the runtime (the GC scans its stack): it waits
		// for nothing of the program's, and runtime.Stack says
		// "preempted", which is runnable (snapshot.go's parseState).
		next = gRunnable
	}
	switch {
	case isNew && from != gotrace.GoNotExist:
		// It was in this state before the trace began: since the first
		// tick.
		tb.sinceFirst(g)
	case report && next == g.state:
		// A status report, at a generation's start or end: most often of
		// a goroutine parked where it was.
		if s != nil && next != gRunning && (s != tb.stackOf(g) || len(tb.pend(g)) > 0) {
			tb.setStack(g, s)
			tb.flush(g)
		}
		return
	case next == gRunning:
		tb.cut(g) // its ticks so far wait for its CPU samples' placement
	default:
		tb.cutOut(g, false)
		if g.state == gRunning {
			tb.leaveRunning(g, s, next == gRunnable)
		}
	}
	g.state = next
	if s != nil {
		tb.setStack(g, s)
	}
	if next == gRunning {
		tb.activate(g)
	}
	g.bits &^= reasonBits
	if next == gWaiting && ev.Reason < gotrace.MaxReasons {
		g.bits |= gbits(ev.Reason)
	}
	tb.flush(g)
}

// learn sets g's role from s if s shows its start function: the one frame of
// its creation's stack, or the frame above runtime.goexit in a complete
// stack. A CPU sample cut short inside the runtime says nothing of the kind
// (see stack). A stack with a frame of the program's ends a guess that g
// is the runtime's.
func (tb *traceBackend) learn(g *tgor, s *stack, created bool) {
	if g.role != roleUnknown && !g.has(fGuessed) || s == nil {
		return
	}
	switch {
	case created:
		g.role = s.outer
		g.unset(fGuessed)
	case s.start != roleUnknown:
		g.role = s.start
		g.unset(fGuessed)
	case s.program:
		g.role = roleUnknown
		g.unset(fGuessed)
		g.set(fProgram)
	}
}

// learnFromTransition is learn for the stack of a state transition. A
// goroutine whose transition shows unexported runtime frames only, whose
// start function is not known yet and which never showed a frame of the
// program's, is taken for the runtime's until a stack says otherwise.
// The trace's stacks leave runtime.goexit out, so that only a CPU sample
// or the goroutine's creation shows its start function: a runtime system
// goroutine's transitions never do, and a program's goroutine stopped
// inside the runtime (blocked where the trace's stack shows runtime
// frames only, or preempted on the system stack under the race detector)
// shows its own frames where it next blocks. Waiting for its start
// function there kept httpprof's labelled handlers, and the transport's
// loops, under the runtime's root, without their labels, until the CPU
// profiler happened to sample them.
//
// The one start function read off a transition's outermost frame is one
// of those left out (roleHidden): the trace's stacks end at the root
// unless cut, so that a goroutine started before the trace, the
// program's CPU profile reader say, is left out as the snapshot backend
// leaves it out, and is not sampled in a system call for the whole
// profile.
func (tb *traceBackend) learnFromTransition(g *tgor, s *stack, created bool) {
	tb.learn(g, s, created)
	if s != nil && s.outer == roleHidden && (g.role == roleUnknown || g.has(fGuessed)) &&
		len(s.frames) > 0 && s.frames[len(s.frames)-1] != tb.markFrame(truncatedFrame) {
		g.role = roleHidden
		g.unset(fGuessed)
		return
	}
	if g.role == roleUnknown && !g.has(fProgram) && s != nil && !s.evidence && len(s.frames) > 0 {
		g.role = roleRuntime
		g.set(fGuessed)
	}
}

// cpuSample folds a CPU sample at time t: a sample in CPU mode; in wall
// mode, CPU time of g that oncpu.go places on its ticks.
func (tb *traceBackend) cpuSample(ev *gotrace.Event, t gotrace.Time) {
	tb.em.cpuSamples++
	id := ev.G
	if id == gotrace.NoGoroutine {
		if tb.em.cfg.Mode == CPU {
			tb.cpuEmitRuntime(ev, t)
		}
		return
	}
	if tb.lookup(id, ev.User) == nil && tb.hasEnded(id) {
		tb.em.cpuUnplaced++ // read after its goroutine's end (ended.go)
		return
	}
	s := tb.cpuStack(tb.stack(ev.Stack))
	if s == nil {
		return
	}
	g, isNew := tb.goroutine(ev)
	if isNew {
		tb.sinceFirst(g) // running since before the trace began
	}
	tb.learn(g, s, false)
	if g.state == gUnknown {
		g.state = gRunning
	}
	if tb.em.cfg.Mode == CPU {
		tb.cpuEmit(g, s, t)
		return
	}
	if g.role == roleHidden {
		return
	}
	tb.cut(g)
	if x := tb.busy(g); len(x.cpu) < maxHits {
		x.cpu = grow(tb, x.cpu, len(x.cpu)+1)
		x.cpu = append(x.cpu, cpuHit{at: t, s: s, ls: tb.recs.labelsOf(g)})
	} else {
		tb.em.cpuUnplaced++
	}
	tb.activate(g)
}

// cpuEmit writes CPU mode's sample of g at t, running.
func (tb *traceBackend) cpuEmit(g *tgor, s *stack, t gotrace.Time) {
	tb.em.ticks++
	if g.role == roleHidden {
		return
	}
	if g.role == roleRuntime {
		s = s.underRuntime(tb.em.runtimeFrame())
	} else {
		s = tb.withLabels(s, tb.recs.labelsOf(g))
	}
	// On a CPU, whatever the scheduler says: a CPU sample taken in a
	// system call is CPU time spent in the kernel.
	tb.write(g, span{ts: tb.micros(t), n: 1}, status(gRunning, s.panicking), s, false)
}

// RuntimeThread is the thread of a CPU-mode profile's samples taken
// outside any goroutine (no goroutine has id 0).
const RuntimeThread = 0

// cpuEmitRuntime writes CPU mode's sample of a CPU sample taken outside
// any goroutine (the scheduler looking for work, its futex calls: CPU time
// runtime/pprof counts too) on thread RuntimeThread, under the runtime's
// frame. Wall mode has no tick to give it: a wall profile's time is its
// goroutines'.
func (tb *traceBackend) cpuEmitRuntime(ev *gotrace.Event, t gotrace.Time) {
	s := tb.cpuStack(tb.stack(ev.Stack))
	if s == nil {
		return
	}
	tb.em.ticks++
	tb.em.write(&tb.runtime, span{ts: tb.micros(t), n: 1}, status(gRunning, false), s.underRuntime(tb.em.runtimeFrame()))
}

// cut queues the ticks passed since the last cut, in g's current state:
// with the stack it stopped at, or, running, with none yet.
func (tb *traceBackend) cut(g *tgor) {
	from, to := g.due, tb.ticks.n
	if from >= to {
		return
	}
	g.due = to
	r := run{from: from, to: to, state: g.state, why: uint32(g.why()), labels: tb.recs.labelsOf(g)}
	if g.state != gRunning {
		r.stack = tb.stackOf(g)
	}
	x := tb.busy(g)
	if n := len(x.pend); n > 0 {
		last := &x.pend[n-1]
		if n >= maxPend || last.to == r.from && last.state == r.state && last.why == r.why && last.stack == r.stack && last.labels == r.labels {
			last.to = r.to
			return
		}
	}
	if len(x.pend) > 0 {
		// A goroutine that queues more than one run queues several in a
		// generation.
		x.pend = grow(tb, x.pend, len(x.pend)+1)
	}
	x.pend = append(x.pend, r)
}

// cutOut is cut for ticks that the next flush would write: those of a
// goroutine whose stack is known, that has not run in the generation and
// has nothing queued before them go straight to the sink, unqueued. With
// end set, it ends g's run in the sink (flushSink) when it writes them,
// and reports whether it did.
func (tb *traceBackend) cutOut(g *tgor, end bool) bool {
	if len(tb.pend(g)) > 0 || g.has(fActive) || g.state == gRunning || g.stackNo == 0 || g.role == roleHidden {
		tb.cut(g)
		return false
	}
	from, to := g.due, tb.ticks.n
	if from >= to {
		return false
	}
	g.due = to
	r := run{from: from, to: to, state: g.state, why: uint32(g.why()), stack: tb.stackOf(g), labels: tb.recs.labelsOf(g)}
	tb.emit(g, &r, end)
	return end
}

// minGrow is the fewest runs or CPU samples a goroutine's queue grows by.
const minGrow = 8

// grow returns s with room for n elements in all: as it was if it has
// them, else grown to at least twice its length and by at least minGrow,
// not one element at a time, so that a goroutine's queues reach their
// high water in a few generations. A growth is counted in tb.grown, for
// the steady-state test.
func grow[T any](tb *traceBackend, s []T, n int) []T {
	if n <= cap(s) {
		return s
	}
	tb.grown++
	return slices.Grow(s, max(n-len(s), len(s), minGrow))
}

// leaveRunning records where the scheduler saw g as its running ticks
// queued so far end: at s, the stack of the event that ends or interrupts
// them (a block, a system call, a preemption), if it shows where g was.
// A preempted goroutine is remembered there until it blocks.
func (tb *traceBackend) leaveRunning(g *tgor, s *stack, preempted bool) {
	s = tb.sighted(g, s)
	switch {
	case preempted:
		tb.busy(g).seen = s
	case g.busyNo != 0:
		tb.busyOf(g).seen = nil
	}
}

// sighted records s as where g was at the end of the running ticks queued
// so far that have no such place yet, or the scheduler's stack if s does
// not show where g was; it returns the stack recorded.
func (tb *traceBackend) sighted(g *tgor, s *stack) *stack {
	if s == nil || !s.evidence {
		s = tb.schedStack(g)
	}
	pend := tb.pend(g)
	for i := len(pend) - 1; i >= 0; i-- {
		r := &pend[i]
		if r.state != gRunning || r.stack != nil || r.sched != nil {
			break
		}
		r.sched = s
	}
	return s
}

// schedStack is where the scheduler last saw g: its latest preemption
// since it last ran, or the stack of its latest transition.
func (tb *traceBackend) schedStack(g *tgor) *stack {
	if x := tb.busyOf(g); x != nil && x.seen != nil {
		return x.seen
	}
	return tb.stackOf(g)
}

// flush writes g's queued runs, oldest first, up to the first whose stack
// is not known yet. A run queued before g's first stack was known takes it.
// A goroutine active in the generation holds its runs until place.
func (tb *traceBackend) flush(g *tgor) {
	x := tb.busyOf(g)
	if x == nil {
		return
	}
	if g.role == roleHidden {
		x.pend = x.pend[:0]
		x.cpu = x.cpu[:0]
		return
	}
	if g.has(fActive) {
		return
	}
	n := 0
	for ; n < len(x.pend); n++ {
		r := &x.pend[n]
		if r.stack == nil && r.state != gRunning {
			r.stack = tb.stackOf(g)
		}
		if r.stack == nil {
			break
		}
		tb.emit(g, r, false)
	}
	x.pend = append(x.pend[:0], x.pend[n:]...)
}

// emit writes the ticks of r, and with end set ends g's run in the sink.
func (tb *traceBackend) emit(g *tgor, r *run, end bool) {
	s := r.stack
	switch r.state {
	case gWaiting:
		s = tb.waitStack(s, r.why)
	case gOffCPU:
		s = s.waiting(tb.em.noCPUFrame())
	}
	if g.role == roleRuntime {
		s = s.underRuntime(tb.em.runtimeFrame())
	} else {
		s = tb.withLabels(s, r.labels)
	}
	tb.write(g, tb.ticks.span(r.from, r.to), status(r.state, s.panicking), s, end)
}

// settle writes g's ticks passed, as far as their stack is known, ends
// its run in the sink, and gives its busy state back if it holds nothing
// and g did not run since the last settle.
func (tb *traceBackend) settle(g *tgor) {
	ended := tb.cutOut(g, true)
	tb.flush(g)
	if !ended {
		tb.flushSink(g)
	}
	if !g.has(fRan) {
		tb.idle(g, false)
	}
	g.unset(fRan)
}

// close writes every tick of g at the end of the trace or of g: a stack
// never known is "[stack unknown]". With end set, it may end g's run in
// the sink too (flushSink), and reports whether it did: where g has no
// busy state, nothing is queued or placed after the ticks cutOut writes.
func (tb *traceBackend) close(g *tgor, end bool) bool {
	if tb.cutOut(g, end && g.busyNo == 0) {
		return true
	}
	if g.state == gRunning {
		tb.leaveRunning(g, nil, false)
	}
	tb.place(g)
	x := tb.busyOf(g)
	if x == nil {
		return false
	}
	tb.adopt(g, x.carry)
	x.carry = x.carry[:0]
	for i := range x.pend {
		if x.pend[i].stack == nil && g.stackNo == 0 {
			x.pend[i].stack = tb.unknownStack()
		}
	}
	tb.flush(g)
	return false
}

// remove forgets a goroutine that ended.
func (tb *traceBackend) remove(g *tgor) {
	tb.close(g, false)
	tb.idle(g, true)
	t := tb.track(g)
	tb.em.forget(&t)
	tb.untrack(g, &t)
	if len(tb.unattached) > 0 {
		delete(tb.unattached, g.id)
	}
	tb.noteEnded(g.id)
	tb.endedGen++
	tb.recs.remove(g)
}

// maxFree bounds the records kept for reuse.
const maxFree = 1 << 12
