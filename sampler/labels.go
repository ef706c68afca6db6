package sampler

import (
	"slices"

	"github.com/gotachyon/profiler/internal/gotrace"
	"github.com/gotachyon/profiler/internal/tracelabel"
	"github.com/gotachyon/profiler/tachyon"
)

// Labels (trace backend only). Each goroutine's labels at a moment are
// made of three things the trace tells:
//
//   - its pprof labels: the whole set of its latest log event in the
//     category tracelabel.Category (profiler.Do, SetGoroutineLabels), an
//     empty message clearing it; a goroutine created by one that has a
//     set starts with that set, as runtime/pprof's labels are inherited;
//   - its active regions (trace.WithRegion, StartRegion): the innermost
//     one's type is the label tachyon.LabelRegion;
//   - its task, tachyon.LabelTask: the type of its innermost region's
//     task if that region is in one, else of the latest task it began
//     (trace.NewTask) and has not ended. Tasks and regions are not
//     inherited: a goroutine is in a task by its own regions in it.
//
// The combination is interned once per distinct set (labelSet), with its
// label frames interned in the sink, so that a change costs a map lookup
// and a tick nothing. A change cuts the goroutine's queued ticks, so that
// the ticks after it carry the new set and those before the old (a tick
// at the very nanosecond of the change sees the set before it), exactly
// as a change of state does; each run of ticks carries its set, and the
// emitter appends the set's frames outermost to the run's stack.
//
// The trace is read continuously from its start, so a region or task
// begun in one generation and ended in a later one labels every tick
// between. What began before the trace (before the profile started, or
// before the trace backend took over under Auto) is not in it, and the
// runtime does not report active regions at a generation's start: such a
// region or task is not carried (its end, met without its begin, is
// stepped over), a region in a task whose begin the trace does not hold
// carries no task label, and pprof labels set before the trace are not
// known until the goroutine sets its labels again. Nothing is carried
// rather than a label that may be wrong.

// labelSet is one distinct set of labels, with its frames and what it is
// made of, which is the goroutines' label state beside their regions and
// tasks: a goroutine's pprof set, creation site and leak mark are its
// set's (tgor.base).
type labelSet struct {
	// frames are the label frames' indices in the sink, innermost first,
	// interned at the set's first sample (withLabels): a set no sample
	// carries, such as a request's that no tick saw, leaves nothing in
	// the sink, whose tables last as long as the profile. Until then
	// pending holds the frames.
	frames  []uint32
	pending []tachyon.Frame
	key     setKey
}

// pset is one distinct pprof label set, as a label log's message gave it.
type pset struct {
	labels []tachyon.Label
}

// setKey identifies a labelSet: the pprof set, the trace's task and
// region types, the goroutine's creation site and whether the runtime
// proved it leaked.
type setKey struct {
	p            *pset
	task, region string
	created      string
	leaked       bool
}

// labelledKey identifies a stack with a label set.
type labelledKey struct {
	s  *stack
	ls *labelSet
}

// taskRec is a task the trace saw begin and not yet end.
type taskRec struct {
	id  uint64
	typ string
	g   uint64 // the goroutine that began it
}

// regionRec is one of a goroutine's active regions.
type regionRec struct {
	task    uint64
	typ     string
	taskTyp string // its task's type, "" if none or not known
}

// Bounds of the label state: a goroutine's regions and tasks kept, and
// the distinct sets, messages and labelled stacks remembered (each table
// starts afresh when full: the sets in use stay valid).
const (
	maxRegions   = 64
	maxTasks     = 64
	maxLabelSets = 1 << 12
	maxTaskIDs   = 1 << 16
)

// labeler is the trace backend's label state across goroutines.
type labeler struct {
	psets    map[string]*pset
	sets     map[setKey]*labelSet
	tasks    map[uint64]taskRec // tasks begun and not ended
	labelled map[labelledKey]*stack
	scratch  []tachyon.Label
	// last is the set labelSet returned last: goroutines created one
	// after another at one site take the same set, and comparing its key
	// is cheaper than hashing it.
	last *labelSet
	// carried says a goroutine holds a pprof set handed over by the
	// previous trace backend (emitter.labels), which psets does not
	// hold: the goroutines it creates inherit it.
	carried bool
}

func newLabeler() labeler {
	return labeler{
		psets:    make(map[string]*pset),
		sets:     make(map[setKey]*labelSet),
		tasks:    make(map[uint64]taskRec),
		labelled: make(map[labelledKey]*stack),
	}
}

// userEvent folds a task, region or label log event at time t.
func (tb *traceBackend) userEvent(ev *gotrace.Event) {
	lb := &tb.labels
	// seen is where the event shows g, if it is the event's goroutine.
	seen := func(g *tgor) *stack {
		if g.id != ev.G {
			return nil
		}
		return tb.stack(ev.Stack)
	}
	switch ev.Kind {
	case gotrace.TaskBegin:
		g := tb.find(ev.G)
		if g == nil || len(lb.tasks) >= maxTaskIDs {
			return
		}
		rec := taskRec{id: ev.Task, typ: tb.rd.String(ev.Name), g: g.id}
		lb.tasks[ev.Task] = rec
		x := tb.busy(g)
		if len(x.tasks) == maxTasks {
			x.tasks = append(x.tasks[:0], x.tasks[1:]...)
		}
		x.tasks = append(x.tasks, rec)
		tb.relabel(g, seen(g))
	case gotrace.TaskEnd:
		rec, ok := lb.tasks[ev.Task]
		if !ok {
			return // begun before the trace
		}
		delete(lb.tasks, ev.Task)
		g := tb.find(rec.g)
		if g == nil || g.busyNo == 0 {
			return
		}
		x := tb.busyOf(g)
		for i := len(x.tasks) - 1; i >= 0; i-- {
			if x.tasks[i].id == ev.Task {
				x.tasks = append(x.tasks[:i], x.tasks[i+1:]...)
				tb.relabel(g, seen(g))
				break
			}
		}
	case gotrace.RegionBegin:
		g := tb.find(ev.G)
		if g == nil {
			return
		}
		x := tb.busy(g)
		if len(x.regions) == maxRegions {
			x.deep++
			return
		}
		r := regionRec{task: ev.Task, typ: tb.rd.String(ev.Name)}
		if ev.Task != 0 {
			r.taskTyp = lb.tasks[ev.Task].typ
		}
		x.regions = append(x.regions, r)
		tb.relabel(g, seen(g))
	case gotrace.RegionEnd:
		g := tb.find(ev.G)
		if g == nil || g.busyNo == 0 {
			return // no region: it began before the trace
		}
		x := tb.busyOf(g)
		if x.deep > 0 {
			x.deep--
			return
		}
		typ := tb.rd.String(ev.Name)
		for i := len(x.regions) - 1; i >= 0; i-- {
			if x.regions[i].typ == typ && x.regions[i].task == ev.Task {
				clear(x.regions[i:])
				x.regions = x.regions[:i]
				tb.relabel(g, seen(g))
				break
			}
		}
		// Not found: it began before the trace.
	case gotrace.Log:
		g := tb.find(ev.G)
		if g == nil {
			return
		}
		b := tb.base(g)
		b.p = lb.pset(tb.rd.String(ev.Name))
		tb.relabelTo(g, seen(g), b)
	}
}

// pset returns the interned pprof set of a label log's message; nil for
// none, and for a message that does not parse (nothing rather than a
// label that may be wrong).
func (lb *labeler) pset(msg string) *pset {
	if msg == "" {
		return nil
	}
	if p, ok := lb.psets[msg]; ok {
		return p
	}
	ls, ok := tracelabel.Parse(msg, lb.scratch[:0])
	lb.scratch = ls[:0]
	if !ok || len(ls) == 0 {
		return nil
	}
	if len(lb.psets) >= maxLabelSets {
		clear(lb.psets)
	}
	p := &pset{labels: slices.Clone(ls)}
	lb.psets[msg] = p
	return p
}

// inherited returns the pprof labels a goroutine g created by the
// goroutine creator inherits, as runtime/pprof's are: the creator's; nil
// if none.
func (tb *traceBackend) inherited(g *tgor, creator uint64) *pset {
	if len(tb.labels.psets) == 0 && !tb.labels.carried || creator == gotrace.NoGoroutine || creator == g.id {
		return nil // no label event met yet: nothing to inherit
	}
	if c := tb.find(creator); c != nil {
		return tb.base(c).p
	}
	return nil
}

// base returns what g's labels are made of beside its regions and tasks:
// its pprof set, creation site and leak mark.
func (tb *traceBackend) base(g *tgor) setKey {
	ls := tb.recs.labelsOf(g)
	if ls == nil {
		return setKey{}
	}
	k := ls.key
	k.task, k.region = "", ""
	return k
}

// relabel sets g's label set from its state, first queuing the ticks
// passed with the set they had. A running goroutine's ticks so far are
// where s, the stack of the event that changed its labels, shows it (or,
// if s shows nothing, where the scheduler last saw it), should no CPU
// sample under their labels tell where: not where the scheduler sees it
// later, under other labels.
func (tb *traceBackend) relabel(g *tgor, s *stack) { tb.relabelTo(g, s, tb.base(g)) }

// relabelTo is relabel with b, what the labels are made of beside the
// regions and tasks (see base), replacing g's.
func (tb *traceBackend) relabelTo(g *tgor, s *stack, b setKey) {
	k := setKey{p: b.p, created: b.created, leaked: b.leaked}
	if x := tb.busyOf(g); x != nil {
		if n := len(x.regions); n > 0 {
			k.region = x.regions[n-1].typ
		}
		if n := len(x.regions); n > 0 && x.regions[n-1].task != 0 {
			k.task = x.regions[n-1].taskTyp // "" if its begin is not in the trace
		} else if n := len(x.tasks); n > 0 {
			k.task = x.tasks[n-1].typ
		}
	}
	ls := tb.labelSet(k)
	if ls == tb.recs.labelsOf(g) {
		return
	}
	tb.cut(g)
	if g.state == gRunning {
		tb.sighted(g, s)
	}
	tb.recs.setLabels(g, ls)
}

// labelSet returns the interned set of k, nil if it holds no label.
func (tb *traceBackend) labelSet(k setKey) *labelSet {
	if k == (setKey{}) {
		return nil
	}
	lb := &tb.labels
	if ls := lb.last; ls != nil && ls.key == k {
		return ls
	}
	if ls, ok := lb.sets[k]; ok {
		lb.last = ls
		return ls
	}
	all := lb.scratch[:0]
	if k.p != nil {
		all = append(all, k.p.labels...)
	}
	// The trace's own keys win over pprof labels of the same name.
	if k.task != "" {
		all = append(all, tachyon.Label{Key: tachyon.LabelTask, Value: k.task})
	}
	if k.region != "" {
		all = append(all, tachyon.Label{Key: tachyon.LabelRegion, Value: k.region})
	}
	if k.created != "" {
		all = append(all, tachyon.Label{Key: tachyon.LabelCreatedBy, Value: k.created})
	}
	if k.leaked {
		all = append(all, tachyon.Label{Key: tachyon.LabelLeak, Value: tachyon.LeakUnreachable})
	}
	frames := tachyon.LabelFrames(all)
	lb.scratch = all[:0]
	ls := &labelSet{pending: frames[max(0, len(frames)-maxDepth/2):], key: k} // the outermost kept
	if len(lb.sets) >= maxLabelSets {
		clear(lb.sets)
	}
	lb.sets[k] = ls
	lb.last = ls
	return ls
}

// withLabels returns s with the frames of ls outermost, made once per
// (stack, set): code frames past the depth bound go, label frames stay.
func (tb *traceBackend) withLabels(s *stack, ls *labelSet) *stack {
	if ls == nil {
		return s
	}
	lb := &tb.labels
	k := labelledKey{s, ls}
	if w, ok := lb.labelled[k]; ok {
		return w
	}
	if ls.pending != nil {
		ls.frames = make([]uint32, 0, len(ls.pending))
		for _, f := range ls.pending {
			if i, ok := tb.em.labelFrame(f); ok {
				ls.frames = append(ls.frames, i)
			}
		}
		ls.pending = nil
	}
	w := s.variant()
	room := maxDepth - len(ls.frames)
	w.frames = make([]uint32, 0, min(len(s.frames), room)+len(ls.frames))
	if len(s.frames) <= room {
		w.frames = append(w.frames, s.frames...)
	} else {
		w.frames = append(append(w.frames, s.frames[:room-1]...), tb.markFrame(truncatedFrame))
	}
	w.frames = append(w.frames, ls.frames...)
	if len(lb.labelled) >= maxStacks {
		clear(lb.labelled)
	}
	lb.labelled[k] = &w
	return &w
}
