package sampler

import (
	"github.com/gotachyon/profiler/internal/gotrace"
)

// A busy program's goroutines make many short system calls that return
// with their P (a read or write that does not block): each is two of the
// trace's events, a third of a server's. Between two ticks such a call
// changes no tick: the goroutine runs at the ticks before and after it,
// and its running ticks take their stacks from CPU samples. The reader
// hands such calls to elideSyscall, which folds in what the two
// transitions would have (where the scheduler saw the goroutine, its
// latest stack) without the rest of their path. A start between two
// ticks (a sixth of the events) is folded in the same way (foldStart).

// attach makes rd the backend's source; in wall mode, a gotrace.Reader
// offers it the system calls and starts it may fold in (elideSyscall,
// foldStart).
func (tb *traceBackend) attach(rd source) {
	tb.rd = rd
	if gr, ok := rd.(*gotrace.Reader); ok && tb.em.cfg.Mode == Wall {
		gr.Elide = tb.elideSyscall
		gr.Start = tb.foldStart
	}
}

// foldStart is gotrace.Reader.Start: it folds in goroutine id's start at
// t, and reports true, when the transition would queue no tick: no tick
// falls at or before t that has not passed, and g is runnable with its
// ticks queued up to the last passed. It does what the transition would
// still have done: g runs, is active in the generation, and is flushed.
func (tb *traceBackend) foldStart(id uint64, user uint32, t gotrace.Time) bool {
	g := tb.recs.at(user)
	if g == nil || g.id != id || g.state != gRunnable || !tb.foldable(g, t) {
		return false
	}
	g.state = gRunning
	tb.activate(g)
	g.bits &^= reasonBits
	tb.flush(g)
	return true
}

// elideSyscall is gotrace.Reader.Elide: it folds in goroutine id's system
// call from..to, entered at stack, and reports true, when its two
// transitions would queue no tick and activate nothing: no tick falls at
// or before to that has not passed (so none falls in the call), and g
// runs, is active in the generation (wall mode, see activate) and has its
// ticks queued up to the last passed. What the transitions would still
// have done, it does in their order: the role learned from the call's
// stack, the scheduler's sighting of g there, its latest stack, and the
// flush (which drops the queue of a goroutine just found hidden). A leak
// profile waiting to be applied at an event's time keeps every event.
func (tb *traceBackend) elideSyscall(id uint64, user uint32, stack uint64, from, to gotrace.Time) bool {
	g := tb.recs.at(user)
	if g == nil || g.id != id || g.state != gRunning || !g.has(fActive) || !tb.foldable(g, to) {
		return false
	}
	s := tb.stack(stack)
	tb.learnFromTransition(g, s, false)
	tb.leaveRunning(g, s, false)
	if s != nil {
		tb.setStack(g, s)
	}
	g.bits &^= reasonBits
	tb.flush(g)
	return true
}

// foldable reports whether g's transitions up to t may be folded in as the
// reader meets them: they would queue no tick (g's ticks are queued up to
// the last passed, and no tick falls at or before t that has not passed),
// and no leak profile waits to be applied at an event's time.
func (tb *traceBackend) foldable(g *tgor, t gotrace.Time) bool {
	return g.due == tb.ticks.n && !tb.ticks.due(t) && (tb.leaks == nil || !tb.leaks.has.Load())
}
