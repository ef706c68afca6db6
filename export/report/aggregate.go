package report

import (
	"fmt"
	"math"

	"github.com/gotachyon/profiler/internal/busiest"
	"github.com/gotachyon/profiler/internal/gogroup"
	"github.com/gotachyon/profiler/internal/stacktab"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
)

// maxDetail is the most goroutines whose state runs (for the timeline)
// Aggregate keeps while it reads, some 100 bytes each. Past it, the runs
// are dropped and the file is read a second time for the timelines of the
// goroutines and groups that get a lane.
const maxDetail = 100_000

// Aggregate reads every sample of f, a run of samples at a time
// (reader.Samples.NextRun), and returns the report's aggregates. Reader
// errors are returned, and then no Profile.
func Aggregate(f *reader.File, opt Options) (*Profile, error) {
	opt = opt.withDefaults()
	a := newAggregator(f, opt)
	if err := a.read(f); err != nil {
		return nil, err
	}
	p, err := a.finish(f)
	if err != nil {
		return nil, err
	}
	if p.Leaks, err = leaksOf(f, p); err != nil {
		return nil, err
	}
	return p, nil
}

// goroutine is what Aggregate keeps of every goroutine: some 70 bytes,
// for files of a million goroutines. Counts are 32 bits, as a file's
// samples are (its header counts them in 32 bits), and saturate.
type goroutine struct {
	key     busiest.Key
	states  [tachyon.NumStates]uint32
	vote    vote          // the stack it spent most samples in
	start   gogroup.Start // its group's: the start of its first stack with code
	started bool          // start is set
	runtime bool          // a runtime system goroutine: a sample under tachyon.RuntimeRoot
}

// detail is what Aggregate keeps of a goroutine while it keeps detail:
// its state runs, for the timeline, and its own call-tree walk.
type detail struct {
	runs []run
	walk walker
}

// vote finds the stack (leaf node) a goroutine spent most samples in, in
// constant space: a weighted Misra-Gries summary with two counters, which
// keeps every stack holding more than a third of the samples, and the
// heavier of the two is the answer (the last stack seen when both counts
// cancelled out).
type vote struct {
	node [2]int32
	n    [2]uint32
	last int32
}

func (v *vote) add(node int32, n32 uint64) {
	n := uint32(min(n32, math.MaxUint32))
	v.last = node
	for i := range v.node {
		if v.n[i] > 0 && v.node[i] == node {
			v.n[i] = satAdd(v.n[i], n)
			return
		}
	}
	if m := min(n, v.n[0], v.n[1]); m > 0 {
		v.n[0] -= m
		v.n[1] -= m
		n -= m
	}
	for i := range v.node {
		if n > 0 && v.n[i] == 0 {
			v.node[i], v.n[i] = node, n
			return
		}
	}
}

// best returns the winning stack, -1 for none.
func (v *vote) best() int32 {
	switch {
	case v.n[0] == 0 && v.n[1] == 0:
		return v.last
	case v.n[0] >= v.n[1]:
		return v.node[0]
	}
	return v.node[1]
}

// run is a goroutine's run of samples in one state.
type run struct {
	start, end uint64 // timestamps of its first and last sample
	n          uint64
	state      tachyon.State
}

// walker is a position in the call tree: the stack last walked to.
type walker struct {
	stack []int32 // canonical frames, outermost first
	path  []int32 // their tree nodes
	// of is 1 + the goroutine whose previous sample's code frames stack
	// holds, 0 if it is not known to hold any's.
	of int32
}

// aggregator is the state of one reading of a file by Aggregate.
type aggregator struct {
	p        *Profile
	canon    []int32        // canonical frame of each frame-table index
	rtRoot   int32          // the canonical frame tachyon.RuntimeRoot, -1 if none
	children nodeIndex      // call-tree node by parent and frame
	leaves   stacktab.Cache // a sample's code frames -> their leaf node
	cells    cellLog
	grid     grid
	dur      uint64 // a sample's span, µs: the interval, at least 1
	gs       index
	gors     []goroutine
	details  []detail // per goroutine, while detail holds
	detail   bool     // keeping every goroutine's runs and walk
	shared   *walker  // the walk of goroutines without their own
	first    uint64
	last     uint64
	labels   labeler // the samples' label sets
	groups   *gogroup.Rule
	names    *gogroup.Names // the groups' names
}

// newAggregator returns an aggregator whose profile has f's frames and the
// call tree's root.
func newAggregator(f *reader.File, opt Options) *aggregator {
	p := &Profile{Options: opt, StartTime: f.Header.StartTime, Interval: f.Header.Interval}
	canon := p.frames(f)
	p.Nodes = append(p.Nodes, Node{Frame: -1, Parent: -1})
	rtRoot := int32(-1)
	for i := range p.Frames {
		if tachyon.IsRuntimeRoot(p.Frame(int32(i))) {
			rtRoot = int32(i)
		}
	}
	groups := gogroup.Of(f)
	return &aggregator{
		p: p, canon: canon, rtRoot: rtRoot, labels: newLabeler(p, canon),
		groups: groups, names: gogroup.NewNames(groups),
		children: nodeIndex{slots: make([]int32, 64)},
		grid:     newGrid(f.Header.Interval, opt.Slices),
		dur:      max(p.Interval, 1),
		gors:     make([]goroutine, 0, min(f.Header.ThreadCount, f.Header.SampleCount, 1<<20)),
		gs:       newIndex(int(min(f.Header.ThreadCount, f.Header.SampleCount, 1<<20))),
		detail:   f.Header.ThreadCount <= maxDetail,
		shared:   &walker{},
		first:    math.MaxUint64,
	}
}

// read takes every run of samples of f. A sample's label frames (its
// outermost run of them) are its label set, and the rest of its stack is
// what the call tree, the groups and the runtime's detection see. A sample
// of a runtime system goroutine (its outermost code frame
// tachyon.RuntimeRoot) stays out of the call tree unless Options.Runtime:
// its goroutine is counted, in the runtime group.
func (a *aggregator) read(f *reader.File) error {
	it := f.Samples()
	defer it.Close()
	g := int32(-1)
	for it.NextRun() {
		s, r := it.Sample(), it.Run()
		if g < 0 || a.gors[g].key.ID != s.ThreadID || a.gors[g].key.Interp != s.InterpreterID {
			g = a.goroutine(busiest.Key{ID: s.ThreadID, Interp: s.InterpreterID})
		}
		code, set := a.labels.split(s.Stack)
		rt := len(code) > 0 && a.canon[code[len(code)-1]] == a.rtRoot
		a.gors[g].runtime = a.gors[g].runtime || rt
		if st, ok := a.groups.StartOf(code); ok {
			a.names.Add(st, r.Count)
			if !a.gors[g].started {
				a.gors[g].start, a.gors[g].started = st, true
			}
		}
		leaf := int32(-1)
		w := a.shared
		if a.detail {
			w = &a.details[g].walk
		}
		if !rt || a.p.Options.Runtime {
			leaf = a.follow(w, g, code, s.Kept-(len(s.Stack)-len(code)))
		} else if w.of == g+1 {
			w.of = 0 // it no longer holds g's previous sample
		}
		a.count(g, leaf, set, s.Status.State(), s.Timestamp, r.Last, r.Count)
	}
	if err := it.Err(); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

// goroutine returns the index of goroutine k, created at its first
// sample. Past maxDetail goroutines it drops every goroutine's detail.
func (a *aggregator) goroutine(k busiest.Key) int32 {
	if g, ok := a.gs.get(k); ok {
		return g
	}
	if a.detail && len(a.gors) >= maxDetail {
		a.detail = false // a header can understate its threads
		a.details = nil
	}
	g := int32(len(a.gors))
	a.gs.set(k, g)
	a.gors = append(a.gors, goroutine{key: k, vote: vote{last: -1}})
	if a.detail {
		a.details = append(a.details, detail{})
	}
	return g
}

// count adds a run of n samples of one stack (leaf, -1 for a stack left
// out of the call tree), label set and state, from t0 to t1, to the
// totals, to the goroutine's and, in the tree, to the cells of its time
// slices.
func (a *aggregator) count(g int32, leaf int32, set uint16, st tachyon.State, t0, t1, n uint64) {
	a.first, a.last = min(a.first, t0), max(a.last, t1)
	p := a.p
	p.Samples += n
	p.States[st] += n
	gr := &a.gors[g]
	gr.states[st] = satAdd(gr.states[st], uint32(min(n, math.MaxUint32)))
	if d := a.grid.fit(t0, t1); d > 0 {
		a.coarsen(d)
	}
	if leaf >= 0 {
		p.Shown[st] += n
		p.Nodes[leaf].Self += n
		gr.vote.add(leaf, n)
		base := uint64(leaf)<<cellNodeShift | uint64(set)<<cellSetShift | uint64(ClassOf(st))<<cellClassShift
		a.grid.spread(t0, t1, n, func(k int64, c uint64) {
			a.cells.add(base|uint64(k+cellBias), c)
		})
	}
	if !a.detail {
		return
	}
	d := &a.details[g]
	if r := len(d.runs) - 1; r >= 0 && d.runs[r].state == st && t0 >= d.runs[r].end && t0-d.runs[r].end <= 4*a.dur {
		d.runs[r].end = t1
		d.runs[r].n += n
		return
	}
	d.runs = append(d.runs, run{start: t0, end: t1, n: n, state: st})
}

// A cell's key in aggregator.cells: node, label set (16 bits), class (3
// bits) and slice (biased to be positive: a slice kept is within
// Options.Slices of the first sample's, so within maxSlices of 0).
const (
	cellNodeShift  = 30
	cellSetShift   = 14
	cellSetMask    = 1<<(cellNodeShift-cellSetShift) - 1
	cellClassShift = 11
	cellClassMask  = 1<<(cellSetShift-cellClassShift) - 1
	cellBias       = 1 << 10
	cellSliceMask  = 1<<cellClassShift - 1
)

// coarsen merges the cells of slices that became one when the grid's
// width doubled d times: floor halving composes, so old slice s is new
// slice s>>d.
func (a *aggregator) coarsen(d int) {
	a.cells.rekey(func(k uint64) uint64 {
		s := int64(k&cellSliceMask) - cellBias
		return k&^cellSliceMask | uint64(s>>d+cellBias)
	})
}

// satAdd returns a+b, or the largest uint32 when that overflows.
func satAdd(a, b uint32) uint32 {
	if s := a + b; s >= a {
		return s
	}
	return math.MaxUint32
}

// index finds a goroutine by its key: by id alone for interpreter 0 (the
// Go sampler's, and a map of 12-byte entries for a file of a million
// goroutines), by both otherwise.
type index struct {
	byID  map[uint64]int32
	other map[busiest.Key]int32
}

// newIndex returns an index sized for n goroutines (the header's count,
// bounded: a header can overstate it).
func newIndex(n int) index {
	return index{byID: make(map[uint64]int32, n)}
}

func (x *index) get(k busiest.Key) (int32, bool) {
	if k.Interp == 0 {
		g, ok := x.byID[k.ID]
		return g, ok
	}
	g, ok := x.other[k]
	return g, ok
}

func (x *index) set(k busiest.Key, g int32) {
	if k.Interp == 0 {
		x.byID[k.ID] = g
		return
	}
	if x.other == nil {
		x.other = make(map[busiest.Key]int32)
	}
	x.other[k] = g
}

// The slice bits of a cell's key hold every slice a grid keeps.
var _ [cellBias - 2*maxSlices]struct{}
