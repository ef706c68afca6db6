package pprof

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/google/pprof/profile"

	"github.com/gotachyon/profiler/internal/busiest"
	"github.com/gotachyon/profiler/internal/stacktab"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
)

// Type chooses the name of the time value.
type Type uint8

// Types of the time value.
const (
	Auto Type = iota // cpu when every sample is on a CPU, else wall
	Wall             // wall/nanoseconds
	CPU              // cpu/nanoseconds
)

// ParseType returns the Type named "auto", "wall" or "cpu".
func ParseType(s string) (Type, error) {
	switch s {
	case "auto", "":
		return Auto, nil
	case "wall":
		return Wall, nil
	case "cpu":
		return CPU, nil
	}
	return 0, fmt.Errorf("unknown profile type %q (want wall, cpu or auto)", s)
}

// Options configure Convert. The zero value chooses the type automatically.
type Options struct {
	Type Type
	// MaxStackFrames bounds the frames kept across the profile's distinct
	// stacks, and so the export's memory; 0 means
	// stacktab.DefaultMaxFrames (4 M frames).
	MaxStackFrames int
	// MaxGoroutines bounds the goroutines that keep their own goroutine
	// label (each costs a pprof sample per stack and state, about half a
	// kilobyte); the busiest keep it, the others are merged under
	// goroutine="other". 0 means DefaultMaxGoroutines.
	MaxGoroutines int
	// MaxSamples bounds the profile's distinct samples (stack, goroutine
	// and state), some 400 bytes each while converting; past it Convert
	// fails with ErrTooManySamples. 0 means DefaultMaxSamples.
	MaxSamples int
}

// DefaultMaxSamples is the default Options.MaxSamples.
const DefaultMaxSamples = 250_000

// ErrTooManySamples is Convert's error for a profile of more distinct
// samples than Options.MaxSamples.
var ErrTooManySamples = errors.New("pprof: too many distinct samples")

// MaxLocations bounds the profile's distinct (function, line) locations,
// some 250 bytes each in memory: past it, the further lines of a function
// share one location with line 0, so that a file of a million distinct
// frames converts in bounded memory with its functions intact.
const MaxLocations = 250_000

// DefaultMaxGoroutines is the default Options.MaxGoroutines.
const DefaultMaxGoroutines = 100_000

// OtherGoroutines is the goroutine label of the samples merged past
// Options.MaxGoroutines.
const OtherGoroutines = "other"

// Label keys of the exported samples.
const (
	LabelGoroutine  = "goroutine"
	LabelState      = "state"
	LabelWaitReason = "wait_reason"
)

// sampleKey identifies one exported sample.
type sampleKey struct {
	stack uint32 // index into agg.stacks
	tid   uint64
	state tachyon.State
}

// agg is the aggregation of a file's samples.
type agg struct {
	stacks stacktab.Table // distinct stacks, innermost first
	index  map[sampleKey]int
	keys   []sampleKey
	counts []int64
	onCPU  uint64 // samples on a CPU
	last   uint64 // latest timestamp
	n      uint64
}

// aggregate aggregates f's samples, with the goroutines past the keep
// busiest under otherTID. A file of more goroutines than that is read twice
// (busiest.Read): once to find the busiest, once to aggregate, so that
// memory grows with the goroutines kept, not with the file's.
func aggregate(f *reader.File, maxFrames, keep, maxSamples int) (*agg, error) {
	return busiest.Read(f, keep, keep, busiest.BySamples, func(fold map[busiest.Key]bool, _ int) (*agg, error) {
		return aggregateOnce(f, maxFrames, fold, keep, maxSamples)
	})
}

// aggregateOnce reads f once. With keep nil every goroutine keeps its
// label, and it gives up with busiest.ErrTooMany past 4*limit keys or
// maxSamples (the goroutines are folded first, on a second reading); else
// only those in keep do.
func aggregateOnce(f *reader.File, maxFrames int, keep map[busiest.Key]bool, limit, maxSamples int) (*agg, error) {
	a := &agg{index: map[sampleKey]int{}}
	a.stacks.Frames.Limit = maxFrames
	it := f.Samples()
	defer it.Close()
	for it.Next() {
		s := it.Sample()
		id, err := a.stacks.ID(s.Stack)
		if err != nil {
			return nil, fmt.Errorf("pprof: %w", err)
		}
		tid := s.ThreadID
		if keep != nil && !keep[busiest.Key{ID: tid, Interp: s.InterpreterID}] {
			tid = otherTID
		}
		k := sampleKey{id, tid, s.Status.State()}
		j, ok := a.index[k]
		if !ok {
			if keep == nil && len(a.keys) >= min(4*limit, maxSamples) {
				return nil, busiest.ErrTooMany // fold goroutines first: read again
			}
			if len(a.keys) >= maxSamples {
				return nil, fmt.Errorf("%w: more than %d (stack, goroutine, state), the limit (Options.MaxSamples, --max-samples); raise it, or fold goroutines (--max-goroutines)", ErrTooManySamples, maxSamples)
			}
			j = len(a.keys)
			a.index[k] = j
			a.keys = append(a.keys, k)
			a.counts = append(a.counts, 0)
		}
		a.counts[j]++
		a.n++
		if s.Status.OnCPU() {
			a.onCPU++
		}
		a.last = max(a.last, s.Timestamp)
	}
	if err := it.Err(); err != nil {
		return nil, err
	}
	return a, nil
}

// Convert aggregates f into a pprof profile. It returns the reader's
// error, if any, and then no profile.
func Convert(f *reader.File, o Options) (*profile.Profile, error) {
	keep := o.MaxGoroutines
	if keep <= 0 {
		keep = DefaultMaxGoroutines
	}
	maxSamples := o.MaxSamples
	if maxSamples <= 0 {
		maxSamples = DefaultMaxSamples
	}
	a, err := aggregate(f, o.MaxStackFrames, keep, maxSamples)
	if err != nil {
		return nil, err
	}
	a.foldGoroutines(keep)
	h := f.Header
	period := int64(h.Interval) * 1000
	kind := string(tachyon.ModeWall)
	if o.Type == CPU || (o.Type == Auto && tachyon.InferMode(a.onCPU, a.n) == tachyon.ModeCPU) {
		kind = string(tachyon.ModeCPU)
	}
	p := &profile.Profile{
		SampleType: []*profile.ValueType{
			{Type: "samples", Unit: "count"},
			{Type: kind, Unit: "nanoseconds"},
		},
		DefaultSampleType: kind,
		PeriodType:        &profile.ValueType{Type: kind, Unit: "nanoseconds"},
		Period:            period,
		TimeNanos:         int64(h.StartTime) * 1000,
		Mapping: []*profile.Mapping{{
			ID: 1, File: "tachyon", HasFunctions: true, HasFilenames: true, HasLineNumbers: true,
		}},
	}
	if a.n > 0 && a.last >= h.StartTime {
		p.DurationNanos = int64(a.last-h.StartTime+h.Interval) * 1000
	}
	b := builder{p: p, f: f, funcs: map[[2]string]*profile.Function{}, locs: map[locKey]*profile.Location{},
		byFrame: make([]*profile.Location, len(f.FrameRefs()))}
	stackLocs := make([][]*profile.Location, a.stacks.Len())
	reasons := make([]string, a.stacks.Len())
	for i := range a.stacks.Len() {
		st := a.stacks.Stack(uint32(i))
		if len(st) > 0 {
			if r, ok := tachyon.WaitReason(f.Frame(st[0])); ok {
				reasons[i] = r
				st = st[1:]
			}
		}
		locs := make([]*profile.Location, len(st))
		for j, fi := range st {
			locs[j] = b.location(fi)
		}
		stackLocs[i] = locs
	}
	gids := map[uint64]string{otherTID: OtherGoroutines}
	type labelKey struct {
		g      string
		state  tachyon.State
		reason string
	}
	labelSets := map[labelKey]map[string][]string{}
	p.Sample = make([]*profile.Sample, len(a.keys))
	for i, k := range a.keys {
		g, ok := gids[k.tid]
		if !ok {
			g = strconv.FormatUint(k.tid, 10)
			gids[k.tid] = g
		}
		lk := labelKey{g, k.state, reasons[k.stack]}
		labels := labelSets[lk] // shared by the samples that carry the same labels
		if labels == nil {
			labels = map[string][]string{LabelGoroutine: {g}, LabelState: {k.state.String()}}
			if lk.reason != "" {
				labels[LabelWaitReason] = []string{lk.reason}
			}
			labelSets[lk] = labels
		}
		p.Sample[i] = &profile.Sample{
			Location: stackLocs[k.stack],
			Value:    []int64{a.counts[i], a.counts[i] * period},
			Label:    labels,
		}
	}
	return p, nil
}

// Write converts f and writes the gzip-compressed protobuf to w.
func Write(w io.Writer, f *reader.File, o Options) error {
	p, err := Convert(f, o)
	if err != nil {
		return err
	}
	if err := p.Write(w); err != nil {
		return fmt.Errorf("pprof: %w", err)
	}
	return nil
}

type locKey struct {
	fn   *profile.Function
	line int64
}

// builder interns functions and locations.
type builder struct {
	p       *profile.Profile
	f       *reader.File
	funcs   map[[2]string]*profile.Function // (name, file)
	locs    map[locKey]*profile.Location
	byFrame []*profile.Location // by frame-table index
}

func (b *builder) location(fi uint32) *profile.Location {
	if l := b.byFrame[fi]; l != nil {
		return l
	}
	fr := b.f.Frame(fi)
	fk := [2]string{fr.Func, fr.File}
	fn := b.funcs[fk]
	if fn == nil {
		fn = &profile.Function{ID: uint64(len(b.p.Function) + 1), Name: fr.Func, SystemName: fr.Func, Filename: fr.File}
		b.funcs[fk] = fn
		b.p.Function = append(b.p.Function, fn)
	}
	line := int64(fr.Line)
	if len(b.p.Location) >= MaxLocations {
		line = 0 // past the bound, a function's further lines share one location
	}
	lk := locKey{fn, line}
	l := b.locs[lk]
	if l == nil {
		l = &profile.Location{ID: uint64(len(b.p.Location) + 1), Mapping: b.p.Mapping[0],
			Line: []profile.Line{{Function: fn, Line: line}}}
		b.locs[lk] = l
		b.p.Location = append(b.p.Location, l)
	}
	b.byFrame[fi] = l
	return l
}

// otherTID stands for the goroutines merged by foldGoroutines; goroutine
// ids start at 1.
const otherTID = 0

// foldGoroutines keeps the n busiest goroutines (by samples, then id) and
// merges the samples of the others, per stack and state, under otherTID.
func (a *agg) foldGoroutines(n int) {
	perG := map[uint64]int64{}
	for i, k := range a.keys {
		if k.tid != otherTID { // already merged by aggregate
			perG[k.tid] += a.counts[i]
		}
	}
	if len(perG) <= n {
		return
	}
	type gc struct {
		tid uint64
		n   int64
	}
	gs := make([]gc, 0, len(perG))
	for tid, c := range perG {
		gs = append(gs, gc{tid, c})
	}
	slices.SortFunc(gs, func(x, y gc) int {
		if c := cmp.Compare(y.n, x.n); c != 0 {
			return c
		}
		return cmp.Compare(x.tid, y.tid)
	})
	keep := make(map[uint64]bool, n)
	for _, g := range gs[:n] {
		keep[g.tid] = true
	}
	index := make(map[sampleKey]int, len(a.keys))
	keys, counts := a.keys[:0], a.counts[:0] // compacted in place: entry i is read before any write reaches it
	for i, k := range a.keys {
		c := a.counts[i]
		if k.tid != otherTID && !keep[k.tid] {
			k.tid = otherTID
		}
		if j, ok := index[k]; ok {
			counts[j] += c
			continue
		}
		index[k] = len(keys)
		keys = append(keys, k)
		counts = append(counts, c)
	}
	a.keys, a.counts, a.index = keys, counts, index
}
