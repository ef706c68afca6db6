package pprof

import (
	"fmt"
	"io"
	"strconv"

	"github.com/google/pprof/profile"

	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
)

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
