package pprof

import (
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/google/pprof/profile"

	"github.com/gotachyon/profiler/internal/labelframes"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
)

// Convert aggregates f into a pprof profile. It returns the reader's
// error, if any, or the error reading Options.Binary, and then no
// profile.
func Convert(f *reader.File, o Options) (*profile.Profile, error) {
	var bin *binaryLines
	if o.Binary != "" {
		var err error
		if bin, err = openBinary(o.Binary); err != nil {
			return nil, err
		}
		defer bin.Close()
	}
	a, err := aggregateFor(f, o)
	if err != nil {
		return nil, err
	}
	v := chooseValues(o.Type, a, int64(f.Header.Interval)*1000)
	p := newProfile(f, a, v)
	lf := labelframes.Of(f)
	p.Mapping[0].File = programName(f, a, lf, o.Binary)
	b := builder{p: p, f: f, lf: lf, noGoroutine: o.MaxGoroutines < 0, funcs: map[[2]string]*profile.Function{}, locs: map[locKey]*profile.Location{},
		byFrame: make([]*profile.Location, len(f.FrameRefs()))}
	b.samples(a, v)
	if bin != nil {
		if err := bin.set(p.Function); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// cmp0 returns v, or def when v is not positive.
func cmp0(v, def int) int {
	if v <= 0 {
		return def
	}
	return v
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

// newProfile returns the profile's header: sample types, period, time,
// duration and the one mapping, still unnamed. DurationNanos is the time
// the samples span, from the header's start time to the last sample plus
// one interval, so that go tool pprof's "Total samples = T (P%)" shows
// the busy CPUs for on_cpu and cpu (as for runtime/pprof's CPU profiles)
// and the goroutines sampled on average for wall.
func newProfile(f *reader.File, a *agg, v values) *profile.Profile {
	h := f.Header
	p := &profile.Profile{
		SampleType:        v.sampleTypes(),
		DefaultSampleType: v.defaultType(),
		PeriodType:        &profile.ValueType{Type: v.periodType(), Unit: "nanoseconds"},
		Period:            v.period,
		TimeNanos:         nanos(h.StartTime), // 0, no time, past 2262
		Mapping: []*profile.Mapping{{
			ID: 1, HasFunctions: true, HasFilenames: true, HasLineNumbers: true, HasInlineFrames: true,
		}},
	}
	if a.n > 0 && a.last >= h.StartTime {
		span := a.last - h.StartTime
		span += min(h.Interval, math.MaxUint64-span)
		if p.DurationNanos = nanos(span); p.DurationNanos == 0 && span > 0 {
			p.DurationNanos = math.MaxInt64
		}
	}
	return p
}

// nanos returns us microseconds in nanoseconds, or 0 where an int64 cannot
// hold them (past 2262 as a time since the epoch): a timestamp near 2^63 µs
// made Time read 1969 and a span near 2^64 µs made Duration read 10ms.
func nanos(us uint64) int64 {
	if us > math.MaxInt64/1000 {
		return 0
	}
	return int64(us) * 1000
}

// labelKey identifies a set of labels, shared by the samples that carry
// them.
type labelKey struct {
	g      string
	state  tachyon.State
	reason string
	set    int // the program's labels: index into stackLabels.sets
}

// samples adds a's samples to b's profile, with their values (v) and
// labels, skipping those v leaves out.
func (b *builder) samples(a *agg, v values) {
	stackLocs, reasons, sl := b.stacks(a)
	gids := map[uint64]string{}
	labelSets := map[labelKey]map[string][]string{}
	b.p.Sample = make([]*profile.Sample, 0, len(a.keys))
	for i, k := range a.keys {
		vals := v.of(a.counts[i], k.state)
		if vals == nil {
			continue
		}
		g, ok := gids[k.tid]
		if !ok {
			g = strconv.FormatUint(k.tid, 10)
			gids[k.tid] = g
		}
		if k.other {
			g = OtherGoroutines
		}
		if b.noGoroutine {
			g = ""
		}
		lk := labelKey{g, k.state, reasons[k.stack], sl.byStack[k.stack]}
		labels := labelSets[lk]
		if labels == nil {
			labels = newLabels(lk, sl.sets[lk.set])
			labelSets[lk] = labels
		}
		b.p.Sample = append(b.p.Sample, &profile.Sample{Location: stackLocs[k.stack], Value: vals, Label: labels})
	}
}

// newLabels returns the labels of lk: goroutine (unless none), state and,
// if any, wait_reason, and the program's labels prog, each under its key
// (programKey).
func newLabels(lk labelKey, prog []tachyon.Label) map[string][]string {
	labels := map[string][]string{LabelState: {lk.state.String()}}
	if lk.g != "" {
		labels[LabelGoroutine] = []string{lk.g}
	}
	if lk.reason != "" {
		labels[LabelWaitReason] = []string{lk.reason}
	}
	for _, l := range prog {
		k := programKey(l.Key, prog)
		labels[k] = append(labels[k], l.Value)
	}
	return labels
}

// ProgramLabelPrefix is put before a program's label key that is one of
// the exporter's own (LabelGoroutine, LabelState, LabelWaitReason), so
// that those keep their meaning: a program label state=idle becomes
// label.state=idle.
const ProgramLabelPrefix = "label."

// programKey returns the key under which a program label of key k is
// exported among the labels prog: k, or k behind ProgramLabelPrefix as
// often as it takes to name neither one of the exporter's keys nor
// another of prog's.
func programKey(k string, prog []tachyon.Label) string {
	if !reservedKey(k) {
		return k
	}
	for {
		k = ProgramLabelPrefix + k
		taken := false
		for _, l := range prog {
			taken = taken || l.Key == k
		}
		if !taken {
			return k
		}
	}
}

// reservedKey reports whether k is one of the exporter's label keys.
func reservedKey(k string) bool {
	return k == LabelGoroutine || k == LabelState || k == LabelWaitReason
}

// stackLabels are the program's labels of each stack: its label frames
// (tachyon.LabelOf), one set for each distinct run of them.
type stackLabels struct {
	byStack []int             // by stack id: index into sets
	sets    [][]tachyon.Label // sets[0] is none
	index   map[string]int    // a run of label frames, as bytes, to its set
}

// add returns the set of the label frames lfs (frame indices).
func (sl *stackLabels) add(f *reader.File, lfs []uint32) int {
	if len(lfs) == 0 {
		return 0
	}
	key := make([]byte, 0, 4*len(lfs))
	for _, fi := range lfs {
		key = append(key, byte(fi), byte(fi>>8), byte(fi>>16), byte(fi>>24))
	}
	if i, ok := sl.index[string(key)]; ok {
		return i
	}
	set := make([]tachyon.Label, 0, len(lfs))
	for _, fi := range lfs {
		l, _ := tachyon.LabelOf(f.Frame(fi))
		set = append(set, l)
	}
	sl.index[string(key)] = len(sl.sets)
	sl.sets = append(sl.sets, set)
	return len(sl.sets) - 1
}

// stacks returns the locations of each of a's stacks, innermost first,
// its wait reason: the Go sampler's synthetic innermost frame such as
// "[chan receive]", removed from the stack, and its labels: its label
// frames, outermost, removed too.
func (b *builder) stacks(a *agg) (locs [][]*profile.Location, reasons []string, sl stackLabels) {
	locs = make([][]*profile.Location, a.stacks.Len())
	reasons = make([]string, a.stacks.Len())
	sl = stackLabels{byStack: make([]int, a.stacks.Len()), sets: [][]tachyon.Label{nil}, index: map[string]int{}}
	for i := range a.stacks.Len() {
		st := a.stacks.Stack(uint32(i))
		code := b.lf.Code(st)
		sl.byStack[i] = sl.add(b.f, st[code:])
		st = st[:code]
		if len(st) > 0 {
			if r, ok := tachyon.WaitReason(b.f.Frame(st[0])); ok {
				reasons[i] = r
				st = st[1:]
			}
		}
		ls := make([]*profile.Location, len(st))
		for j, fi := range st {
			ls[j] = b.location(fi)
		}
		locs[i] = ls
	}
	return locs, reasons, sl
}

type locKey struct {
	fn   *profile.Function
	line int64
}

// builder interns functions and locations.
type builder struct {
	p       *profile.Profile
	f       *reader.File
	lf      *labelframes.Frames
	funcs   map[[2]string]*profile.Function // (name, file)
	locs    map[locKey]*profile.Location
	byFrame []*profile.Location // by frame-table index
	// noGoroutine: no goroutine label (Options.MaxGoroutines < 0).
	noGoroutine bool
}

// location returns the location of frame fi: one per (function, line).
// Tachyon frames carry no address, so a frame inlined into its caller is a
// location of its own, as its caller's is: each keeps its own line.
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
