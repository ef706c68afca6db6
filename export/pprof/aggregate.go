package pprof

import (
	"fmt"

	"github.com/gotachyon/profiler/export/limits"
	"github.com/gotachyon/profiler/internal/busiest"
	"github.com/gotachyon/profiler/internal/stacktab"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
)

// sampleKey identifies one exported sample.
type sampleKey struct {
	stack uint32 // index into agg.stacks
	tid   uint64 // 0 when other
	other bool   // merged under goroutine="other" (OtherGoroutines)
	state tachyon.State
}

// agg is the aggregation of a file's samples.
type agg struct {
	stacks stacktab.Table // distinct stacks, innermost first
	deep   stacktab.Deep  // deep ones, by the frames a record changed
	index  map[sampleKey]int
	keys   []sampleKey
	counts []int64
	frames int    // the frames the samples list, each its stack's
	onCPU  uint64 // samples on a CPU (tachyon.State.OnCPU: running)
	last   uint64 // latest timestamp
	n      uint64
}

// aggregateFor aggregates f's samples as o asks: with the busiest
// goroutines' own labels, or (MaxGoroutines < 0) all folded in one pass.
func aggregateFor(f *reader.File, o Options) (*agg, error) {
	b := bounds{frames: o.MaxStackFrames, samples: cmp0(o.MaxSamples, DefaultMaxSamples), sampleFrames: cmp0(o.MaxSampleFrames, DefaultMaxSampleFrames)}
	if o.MaxGoroutines < 0 {
		return aggregateOnce(f, b, map[busiest.Key]bool{}, 0)
	}
	return aggregate(f, b, cmp0(o.MaxGoroutines, DefaultMaxGoroutines))
}

// aggregate aggregates f's samples, with the goroutines past the keep
// busiest (busiest.BySamples) under "other". A file of more goroutines
// than that is read twice (busiest.Read): once to find the busiest, once
// to aggregate, so that memory grows with the goroutines kept, not with
// the file's. A file whose header counts at most keep is read once, with
// every goroutine's label: the reader refuses a file of more threads than
// its header counts, so none is folded.
func aggregate(f *reader.File, b bounds, keep int) (*agg, error) {
	return busiest.Read(f, keep, keep, busiest.BySamples, func(fold map[busiest.Key]bool, _ int) (*agg, error) {
		return aggregateOnce(f, b, fold, keep)
	})
}

// aggregateOnce reads f once, a run of samples at a time
// (reader.Samples.NextRun): a run is one stack, thread and status, weighed
// by its count, so that the work follows the file's records, not its
// samples. With keep nil every goroutine keeps its label, and it gives up
// with busiest.ErrTooMany past 4*limit keys or maxSamples (the goroutines
// are folded first, on a second reading); else only those in keep do.
func aggregateOnce(f *reader.File, b bounds, keep map[busiest.Key]bool, limit int) (*agg, error) {
	a := &agg{index: map[sampleKey]int{}}
	a.stacks.Frames.Limit = b.frames
	it := f.Samples()
	defer it.Close()
	for it.NextRun() {
		s, r := it.Sample(), it.Run()
		id, err := a.deep.ID(&a.stacks, stacktab.Thread{ID: s.ThreadID, Interp: s.InterpreterID}, s.Stack, s.Kept)
		if err != nil {
			return nil, fmt.Errorf("pprof: %w", err)
		}
		k := sampleKey{stack: id, tid: s.ThreadID, state: s.Status.State()}
		if keep != nil && !keep[busiest.Key{ID: k.tid, Interp: s.InterpreterID}] {
			k.tid, k.other = 0, true
		}
		j, err := a.slot(k, keep == nil, limit, b)
		if err != nil {
			return nil, err
		}
		a.add(j, r, s.Status.State())
	}
	if err := it.Err(); err != nil {
		return nil, err
	}
	return a, nil
}

// bounds are the limits aggregateOnce enforces: Options.MaxStackFrames,
// MaxSamples and MaxSampleFrames, the last two with their defaults.
type bounds struct{ frames, samples, sampleFrames int }

// slot returns the index of k's count, adding it if new, or an error past
// the bounds: busiest.ErrTooMany past 4*limit keys, or past b.sampleFrames
// frames listed, when unfolded (the goroutines are folded first, on a
// second reading), a *limits.Error past b.samples (limits.Samples) or
// b.sampleFrames (limits.SampleFrames).
func (a *agg) slot(k sampleKey, unfolded bool, limit int, b bounds) (int, error) {
	if j, ok := a.index[k]; ok {
		return j, nil
	}
	frames := a.frames + len(a.stacks.Stack(k.stack))
	if unfolded && (len(a.keys) >= min(4*limit, b.samples) || frames > b.sampleFrames) {
		return 0, busiest.ErrTooMany
	}
	if len(a.keys) >= b.samples {
		return 0, fmt.Errorf("pprof: %w", &limits.Error{Limit: limits.Samples, Max: int64(b.samples), Value: int64(len(a.keys) + 1)})
	}
	if frames > b.sampleFrames {
		return 0, fmt.Errorf("pprof: %w", &limits.Error{Limit: limits.SampleFrames, Max: int64(b.sampleFrames), Value: int64(frames)})
	}
	j := len(a.keys)
	a.index[k] = j
	a.keys = append(a.keys, k)
	a.counts = append(a.counts, 0)
	a.frames = frames
	return j, nil
}

// add counts the run r, in state st, into slot j.
func (a *agg) add(j int, r reader.Run, st tachyon.State) {
	a.counts[j] += int64(r.Count)
	a.n += r.Count
	if st.OnCPU() {
		a.onCPU += r.Count
	}
	a.last = max(a.last, r.Last)
}
