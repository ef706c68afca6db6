package sampler

import (
	"slices"

	"github.com/gotachyon/profiler/internal/gotrace"
	"github.com/gotachyon/profiler/internal/own"
)

// The trace backend's view of one goroutine. Every tick of its life gets
// its state at the tick and a stack chosen from the evidence the trace
// holds:
//
//   - runnable, blocked, in a system call: the stack of the transition that
//     began the state, which is where the goroutine stopped (the trace
//     records it) and stays until it runs again;
//   - running: the stack of the nearest evidence of where it was, earlier
//     or later, within its active stretch (the time since it last blocked
//     or left a system call: running, and runnable when preempted). The
//     evidence is the stretch's CPU samples and its preemptions' stacks,
//     both taken at moments that do not depend on what the code does; the
//     ticks between two pieces of evidence are split at the midpoint.
//     A stretch without any (one shorter than the CPU profiler's 10 ms)
//     takes the latest evidence of a stretch of the same kind, one that
//     began and ended at the same stacks (a handler's short computation
//     between its read and its reply, where other requests were sampled);
//     failing that, the stack where it ended (the block or system call)
//     and, failing that, where it began.
//
// A goroutine's ticks are written, in order, as soon as their stack is
// known; until then they wait in a short queue of runs (pend). The runtime
// reports a goroutine that has not run since tracing began at the end of
// the first generation, with its stack, and its ticks since the first are
// written then. One that ran before that is reported without a stack: its
// runs wait for its first transition with a stack (where it blocks again,
// most often where it was blocked before) and take it; its running ticks
// take their evidence as usual.

// tgor is one goroutine of the trace.
type tgor struct {
	track
	state gstate
	role  role
	why   string // the trace's wait reason, while waiting
	stack *stack // stack at the latest transition that had one; nil: none yet
	due   uint64 // first tick not yet queued
	ev    *stack // latest evidence of the active stretch, nil if none
	evAt  gotrace.Time
	begin *stack // the stack the active stretch began at
	fresh bool   // no active stretch has begun since the last ended
	pend  []run  // ticks queued, in time order, not yet written
	pos   int    // index in traceBackend.live
	// hs caches the stacks of g's latest trace stack handles: a goroutine
	// moves between a few places (its system calls, its blocks), and a
	// hit saves a lookup in the generation's table.
	hs [2]handleStack
}

// handleStack is a trace stack id and its normalised stack.
type handleStack struct {
	h uint64
	s *stack
}

// run is the ticks [from, to) of a goroutine in one state.
type run struct {
	from, to uint64
	state    gstate
	why      string
	stack    *stack // nil: not known yet
}

// maxPend bounds a goroutine's queue; a longer one is merged into its last
// run (only a goroutine reported without a stack for long can get there).
const maxPend = 16

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

// ends reports whether entering s ends an active stretch.
func ends(s gstate) bool { return s == gWaiting || s == gSyscall }

// goroutine returns the goroutine id, creating it if new. The backends' own
// goroutines are hidden by identity.
func (tb *traceBackend) goroutine(id uint64) (g *tgor, isNew bool) {
	if g = tb.find(id); g != nil {
		return g, false
	}
	g = tb.newTgor()
	*g = tgor{track: track{id: id}, pos: len(tb.live), due: tb.ticks.n, fresh: true, pend: g.pend[:0]}
	if g.id == tb.self || g.id == tb.em.helper.Load() || own.Has(g.id) {
		g.role = roleHidden
	}
	tb.gs[id] = g
	tb.live = append(tb.live, g)
	tb.recent[id%uint64(len(tb.recent))] = g
	return g, true
}

// find returns the goroutine id if it is live. A busy program's events
// name a few hundred goroutines over and over (a server's connections), so
// a small table of recent ones, by id, is checked before the map.
func (tb *traceBackend) find(id uint64) *tgor {
	slot := &tb.recent[id%uint64(len(tb.recent))]
	if g := *slot; g != nil && g.id == id {
		return g
	}
	g := tb.gs[id]
	if g != nil {
		*slot = g
	}
	return g
}

// newTgor returns a goroutine record, reusing one that ended: under churn
// (a server starts a goroutine or two per request) the records would
// otherwise be most of the parser's garbage.
func (tb *traceBackend) newTgor() *tgor {
	if n := len(tb.free); n > 0 {
		g := tb.free[n-1]
		tb.free[n-1] = nil
		tb.free = tb.free[:n-1]
		return g
	}
	return &tgor{}
}

// gstack returns g's normalised stack for stack id h (nil for none),
// through g's cache of its latest ones.
func (tb *traceBackend) gstack(g *tgor, h uint64) *stack {
	if h == 0 {
		return nil
	}
	for i := range g.hs {
		if g.hs[i].h == h {
			return g.hs[i].s
		}
	}
	s := tb.stack(h)
	g.hs[1], g.hs[0] = g.hs[0], handleStack{h, s}
	return s
}

// transition folds a goroutine's state transition at time t.
func (tb *traceBackend) transition(ev *gotrace.Event, t gotrace.Time) {
	id, from, to := ev.G, ev.From, ev.To
	if to == gotrace.GoNotExist {
		if g := tb.find(id); g != nil {
			s := tb.gstack(g, ev.Stack)
			tb.learn(g, s, false)
			tb.cut(g)
			tb.endStretch(g, s)
			tb.remove(g)
		}
		return
	}
	g, isNew := tb.goroutine(id)
	s := tb.gstack(g, ev.Stack)
	tb.learn(g, s, from == gotrace.GoNotExist)
	next := goState(to)
	switch {
	case isNew && from != gotrace.GoNotExist:
		// It was in this state before the trace began: since the first
		// tick.
		g.due = 0
	case (from == to || from == gotrace.GoUndetermined) && next == g.state:
		// A status report, at a generation's start or end.
		if s != nil && next != gRunning {
			g.stack = s
			tb.flush(g)
		}
		return
	default:
		tb.cut(g)
		switch {
		case g.state == gRunning && next == gRunnable && s != nil && s.evidence:
			tb.evidence(g, s, t) // preempted: where it was, now
		case ends(next):
			tb.endStretch(g, s)
		}
	}
	g.state = next
	if s != nil {
		g.stack = s
	}
	if g.fresh && (next == gRunning || next == gRunnable) {
		g.begin, g.fresh = g.stack, false
	}
	g.why = ""
	if next == gWaiting {
		g.why = tb.rd.Reason(ev.Reason)
	}
	tb.flush(g)
}

// learn sets g's role from s if s shows its start function: the one frame of
// its creation's stack, or the frame above runtime.goexit in a complete
// stack.
func (tb *traceBackend) learn(g *tgor, s *stack, created bool) {
	if g.role != roleUnknown || s == nil {
		return
	}
	if created {
		g.role = s.outer
	} else {
		g.role = s.start
	}
}

// cpuSample folds a CPU sample at time t: a sample in CPU mode, evidence of
// where a running goroutine is in wall mode.
func (tb *traceBackend) cpuSample(ev *gotrace.Event, t gotrace.Time) {
	tb.em.cpuSamples++
	id := ev.G
	if id == gotrace.NoGoroutine {
		return
	}
	if tb.ended[id%uint64(len(tb.ended))] == id && tb.find(id) == nil {
		return
	}
	s := tb.stack(ev.Stack)
	if s == nil {
		return
	}
	g, isNew := tb.goroutine(id)
	if isNew {
		g.due = 0 // running since before the trace began
	}
	tb.learn(g, s, false)
	if g.state == gUnknown {
		g.state = gRunning
	}
	if tb.em.cfg.Mode == CPU {
		tb.cpuEmit(g, s, t)
		return
	}
	if g.state != gRunning || !s.evidence {
		return
	}
	tb.cut(g)
	tb.evidence(g, s, t)
	tb.flush(g)
}

// cpuEmit writes CPU mode's sample of g at t.
func (tb *traceBackend) cpuEmit(g *tgor, s *stack, t gotrace.Time) {
	tb.em.ticks++
	if g.role == roleHidden {
		return
	}
	st := gRunning
	if g.state == gSyscall {
		st = gSyscall
	}
	tb.em.write(&g.track, span{ts: tb.micros(t), n: 1}, status(st, s.panicking), s)
}

// cut queues the ticks passed since the last cut, in g's current state:
// with the stack it stopped at, or, running, with none yet.
func (tb *traceBackend) cut(g *tgor) {
	from, to := g.due, tb.ticks.n
	if from >= to {
		return
	}
	g.due = to
	r := run{from: from, to: to, state: g.state, why: g.why}
	if g.state != gRunning {
		r.stack = g.stack
	}
	if n := len(g.pend); n > 0 {
		last := &g.pend[n-1]
		if n >= maxPend || last.to == r.from && last.state == r.state && last.why == r.why && last.stack == r.stack {
			last.to = r.to
			return
		}
	}
	g.pend = append(g.pend, r)
}

// evidence gives the queued running ticks of g's active stretch the stack
// s, seen at t, or the stretch's previous evidence if that is nearer.
func (tb *traceBackend) evidence(g *tgor, s *stack, t gotrace.Time) {
	split := uint64(0) // ticks before split are nearer the previous evidence
	if g.ev != nil {
		split = tb.ticks.upTo(g.evAt + (t-g.evAt)/2)
	}
	for i := 0; i < len(g.pend); i++ {
		r := &g.pend[i]
		if r.state != gRunning || r.stack != nil {
			continue
		}
		if r.from < split && split < r.to {
			// Part nearer the previous evidence, part nearer s.
			g.pend = slices.Insert(g.pend, i+1, g.pend[i])
			g.pend[i].to, g.pend[i+1].from = split, split
			r = &g.pend[i]
		}
		if r.to <= split {
			r.stack = g.ev
		} else {
			r.stack = s
		}
	}
	g.ev, g.evAt = s, t
}

// endStretch gives the queued running ticks of g's active stretch, which
// ends with stack end (nil if the event has none), the stack stretchStack
// chooses. Most stretches of a busy program are shorter than a tick and
// have none.
func (tb *traceBackend) endStretch(g *tgor, end *stack) {
	kind := [2]uint64{keyOf(g.begin), keyOf(end)}
	if g.ev != nil {
		if len(tb.like) >= maxLike {
			clear(tb.like)
		}
		tb.like[kind] = g.ev
	}
	var s *stack
	for i := range g.pend {
		if r := &g.pend[i]; r.state == gRunning && r.stack == nil {
			if s == nil {
				s = tb.stretchStack(g, kind, end)
			}
			r.stack = s
		}
	}
	g.ev, g.begin, g.fresh = nil, nil, true
}

// stretchStack returns the stack for the running ticks of g's stretch of
// the given kind, ending at end: its latest evidence; without any, the
// latest evidence of a stretch of the same kind, or end, or where the
// stretch began.
func (tb *traceBackend) stretchStack(g *tgor, kind [2]uint64, end *stack) *stack {
	switch {
	case g.ev != nil:
		return g.ev
	case tb.like[kind] != nil:
		return tb.like[kind]
	case end != nil && end.evidence:
		return end
	}
	return g.stack
}

// maxLike bounds the table of stretch kinds; it starts afresh when full.
const maxLike = 1 << 14

// flush writes g's queued runs, oldest first, up to the first whose stack
// is not known yet. A run queued before g's first stack was known takes it.
func (tb *traceBackend) flush(g *tgor) {
	if g.role == roleHidden {
		g.pend = g.pend[:0]
		return
	}
	n := 0
	for ; n < len(g.pend); n++ {
		r := &g.pend[n]
		if r.stack == nil && r.state != gRunning {
			r.stack = g.stack
		}
		if r.stack == nil {
			break
		}
		tb.emit(g, r)
	}
	g.pend = append(g.pend[:0], g.pend[n:]...)
}

// emit writes the ticks of r.
func (tb *traceBackend) emit(g *tgor, r *run) {
	s := r.stack
	if r.state == gWaiting {
		s = tb.em.waitStack(s, waitReason(s.hint, r.why))
	}
	tb.em.write(&g.track, tb.ticks.span(r.from, r.to), status(r.state, s.panicking), s)
}

// settle queues and writes g's ticks passed, as far as their stack is known.
func (tb *traceBackend) settle(g *tgor) {
	tb.cut(g)
	tb.flush(g)
}

// close writes every tick of g at the end of the trace or of g: a stack
// never known is "[stack unknown]".
func (tb *traceBackend) close(g *tgor) {
	tb.cut(g)
	tb.endStretch(g, nil)
	for i := range g.pend {
		if g.pend[i].stack == nil && g.stack == nil {
			g.pend[i].stack = tb.unknownStack()
		}
	}
	tb.flush(g)
}

// remove forgets a goroutine that ended.
func (tb *traceBackend) remove(g *tgor) {
	tb.close(g)
	tb.em.forget(&g.track)
	delete(tb.gs, g.id)
	tb.ended[g.id%uint64(len(tb.ended))] = g.id
	tb.endedGen++
	last := tb.live[len(tb.live)-1]
	tb.live[g.pos] = last
	last.pos = g.pos
	tb.live[len(tb.live)-1] = nil
	tb.live = tb.live[:len(tb.live)-1]
	if slot := &tb.recent[g.id%uint64(len(tb.recent))]; *slot == g {
		*slot = nil
	}
	if len(tb.free) < maxFree {
		clear(g.pend[:cap(g.pend)])
		*g = tgor{pend: g.pend[:0]}
		tb.free = append(tb.free, g)
	}
}

// maxFree bounds the records kept for reuse.
const maxFree = 1 << 12
