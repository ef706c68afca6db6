package report

import (
	"fmt"
	"math"

	"github.com/gotachyon/profiler/internal/busiest"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
)

// run is a stretch of one goroutine's samples in one state without gaps.
type run struct {
	start, end uint64 // timestamps of its first and last sample
	n          uint32
	state      tachyon.State
}

// gstate is what Aggregate tracks per goroutine.
type gstate struct {
	id      uint64
	interp  uint32
	stack   []int32 // previous stack, canonical frames, outermost first
	path    []int32 // its tree nodes
	top     counter
	root    counter
	samples uint64
	states  [tachyon.NumStates]uint64
	runs    []run
	shared  bool // the state of every goroutine without a timeline
}

// counter counts runs of equal values into a map, touching the map only when
// the value changes.
type counter struct {
	cur int32
	n   uint64
	all map[int32]uint64
}

func (c *counter) add(v int32) {
	if v != c.cur && c.n > 0 {
		c.flush()
	}
	c.cur = v
	c.n++
}

func (c *counter) flush() {
	if c.n == 0 {
		return
	}
	if c.all == nil {
		c.all = make(map[int32]uint64, 4)
	}
	c.all[c.cur] += c.n
	c.n = 0
}

// best returns the value counted most often (the lowest on ties), -1 if none.
func (c *counter) best() int32 {
	c.flush()
	best, bn := int32(-1), uint64(0)
	for v, n := range c.all {
		if n > bn || n == bn && v < best {
			best, bn = v, n
		}
	}
	return best
}

// aggregator is the state of one reading of a file by aggregate.
type aggregator struct {
	p        *Profile
	keep     map[busiest.Key]bool // the goroutines with a timeline; nil: all
	canon    []int32              // canonical frame of each frame-table index
	funcs    []int32              // function of each canonical frame
	flags    []uint8              // frameFlags of each canonical frame
	children map[uint64]int32     // call-tree node by parent<<32 | frame
	dur      uint64               // a sample's span, µs: the interval, at least 1
	gs       map[busiest.Key]*gstate
	order    []*gstate // the goroutines with a timeline, by first sample
	// shared is the state of every goroutine without a timeline: its call-tree walk.
	shared      *gstate
	first, last uint64 // timestamps of the earliest and the latest sample
}

// newAggregator returns an aggregator whose profile has f's frames and the
// call tree's root.
func newAggregator(f *reader.File, opt Options, keep map[busiest.Key]bool) *aggregator {
	p := &Profile{Options: opt, StartTime: f.Header.StartTime, Interval: f.Header.Interval}
	canon, funcs := p.frames(f)
	p.Nodes = append(p.Nodes, Node{Frame: -1, Parent: -1})
	return &aggregator{
		p: p, keep: keep, canon: canon, funcs: funcs, flags: frameFlags(p.Frames),
		children: make(map[uint64]int32),
		dur:      max(p.Interval, 1),
		gs:       make(map[busiest.Key]*gstate),
		shared:   &gstate{shared: true, top: counter{cur: -1}, root: counter{cur: -1}},
		first:    math.MaxUint64,
	}
}

// read takes every sample of f.
func (a *aggregator) read(f *reader.File) error {
	it := f.Samples()
	defer it.Close()
	var g *gstate
	for it.Next() {
		s := it.Sample()
		if g == nil || g.id != s.ThreadID || g.interp != s.InterpreterID {
			var err error
			if g, err = a.goroutine(busiest.Key{ID: s.ThreadID, Interp: s.InterpreterID}); err != nil {
				return err
			}
		}
		a.count(g, s)
		a.walk(g, s.Stack)
	}
	if err := it.Err(); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

// goroutine returns the state of goroutine k, created at its first sample,
// or the shared state if k has no timeline. It fails with
// busiest.ErrTooMany when keeping every timeline would pass maxDetail.
func (a *aggregator) goroutine(k busiest.Key) (*gstate, error) {
	if g := a.gs[k]; g != nil {
		return g, nil
	}
	switch {
	case a.keep != nil && !a.keep[k]:
		return a.shared, nil
	case a.keep == nil && len(a.gs) >= maxDetail:
		return nil, busiest.ErrTooMany
	}
	g := &gstate{id: k.ID, interp: k.Interp, top: counter{cur: -1}, root: counter{cur: -1}}
	a.gs[k] = g
	a.order = append(a.order, g)
	return g, nil
}

// count adds a sample to the profile's totals, to its goroutine's and to
// the goroutine's timeline, where a run of one state goes on across gaps
// of up to four intervals.
func (a *aggregator) count(g *gstate, s *reader.Sample) {
	ts, st := s.Timestamp, s.Status.State()
	a.first, a.last = min(a.first, ts), max(a.last, ts)
	a.p.Samples++
	a.p.States[st]++
	g.samples++
	g.states[st]++
	if g.shared {
		return
	}
	if r := len(g.runs) - 1; r >= 0 && g.runs[r].state == st && ts >= g.runs[r].end && ts-g.runs[r].end <= 4*a.dur {
		g.runs[r].end = ts
		g.runs[r].n++
		return
	}
	g.runs = append(g.runs, run{start: ts, end: ts, n: 1, state: st})
}

// walk moves g to the sample's stack (innermost first) in the call tree and
// counts the sample in the leaf's Self and, for a goroutine with a
// timeline, in its root and top functions.
func (a *aggregator) walk(g *gstate, stack []uint32) {
	leaf := a.follow(g, stack)
	if len(stack) > 0 && !g.shared {
		g.root.add(a.funcs[g.stack[0]])
		g.top.add(a.funcs[g.stack[topFrame(g.stack, a.flags)]])
	}
	a.p.Nodes[leaf].Self++
}

// follow sets g.stack and g.path to stack, walking the call tree from the
// deepest node shared with g's previous stack, and returns the leaf: the
// node of the innermost frame, the root for an empty stack.
func (a *aggregator) follow(g *gstate, stack []uint32) int32 {
	d := len(stack)
	c, m := 0, min(d, len(g.stack))
	for c < m && a.canon[stack[d-1-c]] == g.stack[c] {
		c++
	}
	if c < d || d != len(g.stack) {
		g.stack, g.path = g.stack[:c], g.path[:c]
		parent := int32(0)
		if c > 0 {
			parent = g.path[c-1]
		}
		for k := c; k < d; k++ {
			fr := a.canon[stack[d-1-k]]
			parent = a.child(parent, fr)
			g.stack = append(g.stack, fr)
			g.path = append(g.path, parent)
		}
	}
	if d == 0 {
		return 0
	}
	return g.path[d-1]
}

// child returns the call-tree node of frame under parent, adding it when
// new.
func (a *aggregator) child(parent, frame int32) int32 {
	k := uint64(parent)<<32 | uint64(uint32(frame))
	if n, ok := a.children[k]; ok {
		return n
	}
	n := int32(len(a.p.Nodes))
	a.p.Nodes = append(a.p.Nodes, Node{Frame: frame, Parent: parent})
	a.children[k] = n
	return n
}

// finish completes the profile once every sample is read: the goroutine
// count (the file's, threads, when only some have a timeline), the time
// span, the call tree's totals, the functions and the lanes.
func (a *aggregator) finish(threads int) *Profile {
	p := a.p
	p.Goroutines = len(a.gs)
	if a.keep != nil {
		p.Goroutines = threads
	}
	if p.Samples == 0 {
		a.first, a.last = p.StartTime, p.StartTime
	}
	p.First, p.End = a.first, a.last+a.dur
	p.sumTotals()
	p.lanes(a.order, p.functions(a.funcs))
	return p
}
