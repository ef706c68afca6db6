package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/gotachyon/profiler/internal/busiest"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
)

// finish completes the profile once every sample is read: the time span
// and slices, the call tree's totals and cells, the functions, the groups,
// the lanes and their timelines (reading f again when the goroutines were
// too many to keep their runs).
func (a *aggregator) finish(f *reader.File) (*Profile, error) {
	p := a.p
	p.Goroutines = len(a.gors)
	if p.Samples == 0 {
		a.first, a.last = p.StartTime, p.StartTime
	}
	p.First, p.End = a.first, a.last+min(a.dur, math.MaxUint64-a.last) // saturates: a last sample near 2^64 µs wrapped the duration to one interval
	p.sumTotals()
	p.functions()
	a.children = nodeIndex{} // the tree is whole
	a.slices()
	groupOf := a.group()
	laneOf := a.lanes(groupOf)
	t := a.newTimeliner(groupOf, laneOf)
	if a.detail {
		t.replay(a.details)
	} else if err := t.read(f, a.gs); err != nil {
		return nil, err
	}
	t.finish()
	return p, nil
}

// slices fixes the time slices from the grid and turns the cell log into
// p.Cells.
func (a *aggregator) slices() {
	p, g := a.p, &a.grid
	if !g.seen {
		g.origin = p.StartTime
	}
	p.Slices = int(g.hi-g.lo) + 1
	p.SliceWidth = g.width
	back := uint64(-g.lo) * g.width
	p.Origin = g.origin - min(back, g.origin)
	p.Buckets = p.Options.Buckets
	counts := a.cells.counts()
	p.Cells = make([]Cell, 0, len(counts))
	for _, kn := range counts {
		key, n := kn.key, kn.n
		s := int64(key&cellSliceMask) - cellBias - g.lo
		p.Cells = append(p.Cells, Cell{Node: int32(key >> cellNodeShift), Class: Class(key >> cellClassShift & cellClassMask),
			Slice: uint16(s), LabelSet: uint16(key >> cellSetShift & cellSetMask), N: n})
	}
	a.cells = cellLog{}
	slices.SortFunc(p.Cells, func(x, y Cell) int {
		return cmp.Or(cmp.Compare(x.Node, y.Node), cmp.Compare(x.Class, y.Class), cmp.Compare(x.Slice, y.Slice), cmp.Compare(x.LabelSet, y.LabelSet))
	})
}

// timeliner builds the timelines of the lanes and the groups from state
// runs.
type timeliner struct {
	p       *Profile
	g       grid
	start   float64 // the timeline's start, relative to the grid's origin
	bw, dur float64
	groupOf []int32 // per goroutine
	laneOf  []int32 // per goroutine
	// mix has, per group, bucket and state, the weight of the members'
	// samples.
	mix   []float32
	cells [][]uint64    // per group: state*Slices + slice
	runs  map[int][]run // the runs of goroutines with a lane, read again
}

func (a *aggregator) newTimeliner(groupOf, laneOf []int32) *timeliner {
	p := a.p
	t := &timeliner{
		p: p, g: a.grid, groupOf: groupOf, laneOf: laneOf,
		start: float64(a.grid.lo) * float64(a.grid.width),
		bw:    p.BucketWidth(), dur: float64(a.dur),
		mix:   make([]float32, len(p.Groups)*p.Buckets*tachyon.NumStates),
		cells: make([][]uint64, len(p.Groups)),
	}
	for i := range t.cells {
		t.cells[i] = make([]uint64, tachyon.NumStates*p.Slices)
	}
	return t
}

// add adds a run of goroutine g to its group's timeline.
func (t *timeliner) add(g int, r run) {
	gi := int(t.groupOf[g])
	if gi < 0 {
		return
	}
	nb, ns := t.p.Buckets, tachyon.NumStates
	mix := t.mix[gi*nb*ns : (gi+1)*nb*ns]
	overlap(r.start, r.end, r.n, t.g.origin, t.start, t.bw, t.dur, nb, func(k int, w float64) {
		mix[k*ns+int(r.state)] += float32(w)
	})
	cells := t.cells[gi][int(r.state)*t.p.Slices:]
	t.g.spread(r.start, r.end, r.n, func(k int64, n uint64) {
		cells[k-t.g.lo] += n
	})
}

// replay adds the runs the aggregator kept of every goroutine, and sets
// the lanes' timelines.
func (t *timeliner) replay(details []detail) {
	for g := range details {
		for _, r := range details[g].runs {
			t.add(g, r)
		}
		if l := t.laneOf[g]; l >= 0 {
			t.p.Lanes[l].Timeline = t.laneTimeline(details[g].runs)
		}
	}
}

// read reads f's runs again for the timelines: the aggregator kept no
// runs.
func (t *timeliner) read(f *reader.File, gs index) error {
	t.runs = make(map[int][]run)
	it := f.Samples()
	defer it.Close()
	for it.NextRun() {
		s, r := it.Sample(), it.Run()
		g, ok := gs.get(busiest.Key{ID: s.ThreadID, Interp: s.InterpreterID})
		if !ok {
			continue // cannot happen: the file is the one read first
		}
		rn := run{start: s.Timestamp, end: r.Last, n: r.Count, state: s.Status.State()}
		t.add(int(g), rn)
		if t.laneOf[g] >= 0 {
			t.runs[int(g)] = append(t.runs[int(g)], rn)
		}
	}
	if err := it.Err(); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	for g, runs := range t.runs {
		t.p.Lanes[t.laneOf[g]].Timeline = t.laneTimeline(runs)
	}
	return nil
}

// laneTimeline returns a goroutine's timeline: per bucket, the state
// holding most of it.
func (t *timeliner) laneTimeline(runs []run) string {
	nb := t.p.Buckets
	w := make([][tachyon.NumStates]float64, nb)
	for _, r := range runs {
		overlap(r.start, r.end, r.n, t.g.origin, t.start, t.bw, t.dur, nb, func(k int, v float64) {
			w[k][r.state] += v
		})
	}
	line := make([]byte, nb)
	for k := range line {
		line[k] = '.'
		best := 0.0
		for s, v := range w[k] {
			if v > best {
				best, line[k] = v, byte('0'+s)
			}
		}
	}
	return string(line)
}

// finish sets the groups' Mix and Cells.
func (t *timeliner) finish() {
	nb, ns := t.p.Buckets, tachyon.NumStates
	const digits = "0123456789abcdefghijklmnopqrstuvwxyz"
	for gi := range t.p.Groups {
		gr := &t.p.Groups[gi]
		gr.Cells = t.cells[gi]
		mix := t.mix[gi*nb*ns : (gi+1)*nb*ns]
		for s := range ns {
			if gr.States[s] == 0 {
				continue
			}
			line := make([]byte, nb)
			for k := range nb {
				var sum float32
				for _, v := range mix[k*ns : (k+1)*ns] {
					sum += v
				}
				line[k] = '0'
				if v := mix[k*ns+s]; v > 0 {
					line[k] = digits[max(1, min(35, int(math.Round(float64(v/sum)*35))))]
				}
			}
			gr.Mix[s] = string(line)
		}
	}
}
