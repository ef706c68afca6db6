package spx

import (
	"fmt"
	"hash/maphash"
	"math"

	"github.com/gotachyon/profiler/internal/busiest"
	"github.com/gotachyon/profiler/internal/labelframes"
	"github.com/gotachyon/profiler/internal/stacktab"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
)

// A run is n samples of one thread with one stack and status at ts,
// ts+step, ...: a wall profile's REPEAT records, kept as one entry each, so
// that the conversion holds a few bytes per stack change, not per sample.
// A profile loaded for the Sequential layout, whose time axis is
// synthetic, keeps no timestamps: step is 0, and a run is as long as its
// thread stays at one stack and status.
type run struct {
	ts     uint64
	step   uint32 // µs between the run's samples; 0 while n is 1, or at one time
	n      uint32
	stack  uint32
	status tachyon.Status
}

type thread struct {
	id     uint64
	interp uint32
	n      uint32 // samples
	onCPU  uint32
	runs   []run
}

// add appends a sample to t, extending its last run when it continues it:
// the same stack and status one step on, a step of 0 included, so that
// samples at one time (a REPEAT record whose deltas are 0) cost one run,
// not one each.
func (t *thread) add(ts uint64, stack uint32, status tachyon.Status) {
	t.n++
	if k := len(t.runs); k > 0 {
		r := &t.runs[k-1]
		last := r.ts + uint64(r.n-1)*uint64(r.step)
		if r.stack == stack && r.status == status && r.n < math.MaxUint32 && ts >= last {
			d := ts - last
			if r.n == 1 && d <= math.MaxUint32 {
				r.step, r.n = uint32(d), 2
				return
			}
			if r.n > 1 && d == uint64(r.step) {
				r.n++
				return
			}
		}
	}
	t.runs = append(t.runs, run{ts: ts, n: 1, stack: stack, status: status})
}

// addUntimed appends n samples to t without their times (the Sequential
// layout), extending its last run when it has the same stack and status.
// A thread holds fewer than 2^32 samples, as a file does.
func (t *thread) addUntimed(n uint32, stack uint32, status tachyon.Status) {
	t.n += n
	if k := len(t.runs); k > 0 && t.runs[k-1].stack == stack && t.runs[k-1].status == status {
		t.runs[k-1].n += n
		return
	}
	t.runs = append(t.runs, run{n: n, stack: stack, status: status})
}

// profile is a Tachyon file reduced to per-thread samples of interned
// name stacks (root first).
type profile struct {
	names   []string
	stacks  stacktab.Table // distinct stacks of name ids, root first
	threads []*thread
	states  bool // some sample is on CPU: write ct
	iv      uint64
	start   uint64
}

// loader holds what load needs while it reads a file's samples.
type loader struct {
	p         *profile
	f         *reader.File
	keep      map[busiest.Key]bool // the threads loaded; nil: all
	untimed   bool                 // keep no timestamps (Sequential)
	maxRuns   int                  // most runs held, 0: no bound
	held      int                  // runs held
	frameName []int32              // frame index -> name id, or -1 before first use
	nameIdx   map[string]int32
	// A deep stack is found by a 128-bit prefix hash of its names, from
	// the frames its record changed.
	hashes  stacktab.Prefixes[[2]uint64]
	deep    map[[2]uint64]uint32 // a deep stack's hash -> its stack id
	threads map[busiest.Key]*thread
	lastKey busiest.Key // the thread of the previous sample, if any
	last    *thread     // its thread, nil if not kept
	any     bool        // a sample was read
	names   []uint32    // the current sample's stack of name ids
	labels  *labelframes.Frames
}

// load reads f; with keep not nil, only the samples of the threads in it.
// Past maxRuns runs held (if not 0) it gives up with busiest.ErrTooMany.
// Untimed, for the Sequential layout, it reads runs (NextRun) and keeps
// no timestamps, so its work follows the file's records. Otherwise it
// needs every sample's time (a sample owns the time to the next, and a gap
// inside a REPEAT record is an event of the report), but a REPEAT sample
// costs no stack lookup: it has its thread's previous stack.
func load(f *reader.File, maxFrames int, keep map[busiest.Key]bool, untimed bool, maxRuns int) (*profile, error) {
	l := &loader{
		maxRuns:   maxRuns,
		p:         &profile{iv: f.Header.Interval, start: f.Header.StartTime},
		f:         f,
		keep:      keep,
		untimed:   untimed,
		frameName: make([]int32, len(f.FrameRefs())),
		nameIdx:   map[string]int32{},
		threads:   map[busiest.Key]*thread{},
		labels:    labelframes.Of(f),
	}
	l.p.stacks.Frames.Limit = maxFrames
	seed := maphash.MakeSeed()
	l.hashes = stacktab.Prefixes[[2]uint64]{Next: l.mix,
		Root: [2]uint64{maphash.Comparable(seed, 0), maphash.Comparable(seed, 1)}}
	l.deep = map[[2]uint64]uint32{}
	for i := range l.frameName {
		l.frameName[i] = -1
	}
	it := f.Samples()
	defer it.Close()
	next := it.Next
	if untimed {
		next = it.NextRun
	}
	for next() {
		if err := l.add(it.Sample(), it.Run().Count); err != nil {
			return nil, err
		}
	}
	if err := it.Err(); err != nil {
		return nil, err
	}
	return l.p, nil
}

// add takes the sample s, standing for n samples when untimed.
func (l *loader) add(s *reader.Sample, n uint64) error {
	t := l.thread(s)
	if t == nil {
		return nil
	}
	var sid uint32
	if k := len(t.runs); s.Encoding == tachyon.Repeat && k > 0 {
		sid = t.runs[k-1].stack // a REPEAT repeats its thread's stack
	} else {
		var err error
		if sid, err = l.stackID(s); err != nil {
			return fmt.Errorf("spx: %w", err)
		}
	}
	before := len(t.runs)
	if l.untimed {
		t.addUntimed(uint32(n), sid, s.Status)
	} else {
		t.add(s.Timestamp, sid, s.Status)
	}
	if s.Status.OnCPU() {
		t.onCPU += uint32(n)
		l.p.states = true
	}
	if l.held += len(t.runs) - before; l.maxRuns > 0 && l.held > l.maxRuns {
		return busiest.ErrTooMany
	}
	return nil
}

// stackID returns the id of s's stack in the profile's stacks. A deep
// stack is found by its names' prefix hash, which costs the frames its
// record changed: a hostile file's records can each be 65,536 frames deep
// and differ in their last frame only, among more stacks than a cache
// holds. Two 64-bit hashes from independent roots make a collision among
// the 65,536 deep stacks the frame budget allows about 2^-96 likely.
func (l *loader) stackID(s *reader.Sample) (uint32, error) {
	code := s.Stack[:l.labels.Code(s.Stack)]
	th := stacktab.Thread{ID: s.ThreadID, Interp: s.InterpreterID}
	if len(code) < stacktab.CacheMinDepth {
		l.hashes.Forget(th) // folded whole next time
		return l.p.stacks.ID(l.nameStack(code))
	}
	h := l.hashes.Of(th, code, s.Kept-(len(s.Stack)-len(code)))
	if sid, ok := l.deep[h]; ok {
		return sid, nil
	}
	sid, err := l.p.stacks.ID(l.nameStack(code))
	if err != nil {
		return 0, err
	}
	l.deep[h] = sid
	return sid, nil
}

// mix returns the prefix hashes of frame fi's name from its caller's.
func (l *loader) mix(h [2]uint64, fi uint32) [2]uint64 {
	n := uint32(l.name(fi))
	return [2]uint64{stacktab.Mix(h[0], n), stacktab.Mix(h[1], n)}
}

// nameStack returns the name ids of stack (frame indices, innermost
// first), root first, without its label frames, which are no functions;
// the slice is reused by the next call.
func (l *loader) nameStack(stack []uint32) []uint32 {
	l.names = l.names[:0]
	for j := l.labels.Code(stack) - 1; j >= 0; j-- {
		l.names = append(l.names, uint32(l.name(stack[j])))
	}
	return l.names
}

// name returns the name id of frame fi, interning its function's name.
func (l *loader) name(fi uint32) int32 {
	if n := l.frameName[fi]; n >= 0 {
		return n
	}
	name := funcName(l.f.Frame(fi).Func)
	n, ok := l.nameIdx[name]
	if !ok {
		n = int32(len(l.p.names))
		l.nameIdx[name] = n
		l.p.names = append(l.p.names, name)
	}
	l.frameName[fi] = n
	return n
}

// thread returns the thread of s, adding it to the profile when new, or
// nil if it is not kept.
// The previous sample's answer is kept: a REPEAT record's samples are all
// of one thread.
func (l *loader) thread(s *reader.Sample) *thread {
	k := busiest.Key{ID: s.ThreadID, Interp: s.InterpreterID}
	if l.any && k == l.lastKey {
		return l.last
	}
	l.any, l.lastKey, l.last = true, k, nil
	if l.keep != nil && !l.keep[k] {
		return nil
	}
	t := l.threads[k]
	if t == nil {
		t = &thread{id: k.ID, interp: k.Interp}
		l.threads[k] = t
		l.p.threads = append(l.p.threads, t)
	}
	l.last = t
	return t
}
