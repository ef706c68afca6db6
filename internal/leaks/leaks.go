package leaks

import (
	"cmp"
	"encoding/binary"
	"errors"
	"hash/maphash"
	"slices"
	"sort"

	"github.com/gotachyon/profiler/internal/labelframes"
	"github.com/gotachyon/profiler/internal/stacktab"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
)

// FileError is an error reading one of Analyze's files.
type FileError struct {
	Name string
	Err  error
}

// Error names the file, then what went wrong reading it.
func (e *FileError) Error() string { return e.Name + ": " + e.Err.Error() }

// Unwrap returns what went wrong reading the file.
func (e *FileError) Unwrap() error { return e.Err }

// Input is one file to analyse, with the name errors give it.
type Input struct {
	Name string
	File *reader.File
	// Run tells the runs of several apart (the segments of two processes,
	// read together): goroutine ids start again in every process, and
	// goroutines of different runs are different goroutines. Files of
	// one run share it.
	Run int
}

// Options tune Analyze.
type Options struct {
	// First and Last, when Last is set, are the times of the profile's
	// first and last samples, which a caller that has read it knows (the
	// report): Analyze then reads the files once, not twice, and takes
	// it that some samples are off a CPU.
	First, Last uint64
	// Slices is how many slices the profile's time is cut in; 0 means,
	// for one file, one a second, at least 3 and at most 12, and for the
	// segments of a run, one a segment.
	Slices int
}

// Slice is one column of time: from Start to End, in microseconds since
// the epoch; End is the next slice's Start (which belongs to the next),
// and the last slice's the profile's last sample.
type Slice struct {
	Start, End uint64
}

// Group is the goroutines created at one site and blocked at one stack.
type Group struct {
	// Site is where they were created (tachyon.LabelCreatedBy), "" if
	// the profile does not say (created before the sampler saw it).
	Site string
	// Wait is where they wait: the stack's code frames, innermost first
	// (a blocked goroutine's innermost is its wait reason, "[chan send]"),
	// at most the 64 innermost.
	Wait []tachyon.Frame
	// Counts has, for each slice, how many of them were blocked there
	// from the slice's start to its end; Unreachable how many of those the
	// runtime had proved could never wake by the slice's end.
	Counts, Unreachable []int
	// Rate is the count's growth, goroutines a second: the slope of a
	// least-squares line through the counts at the slices' middles.
	Rate float64
	// New is how many of the last slice's count were not there when
	// the profile began: goroutines created since, that stayed; Late how
	// many of them came in its second half (after the start of the
	// middle slice).
	New, Late int
	// Grows says the group still gained in the profile's second half: at
	// least MinGain late goroutines and a rising count (Rate > 0). A pool
	// of workers that were there before the profile's middle never grows,
	// whatever its count does as the samples catch some of them awake.
	Grows bool
	// Listed says the group is a suspect: it grows, or holds goroutines
	// the runtime proved can never wake.
	Listed bool
}

// Last returns the group's count in the last slice.
func (g *Group) Last() int { return g.Counts[len(g.Counts)-1] }

// LastUnreachable returns how many of the last slice's count can never
// wake.
func (g *Group) LastUnreachable() int { return g.Unreachable[len(g.Unreachable)-1] }

// MinGain is the fewest late goroutines a group must hold in its last
// slice to grow.
const MinGain = 2

// Result is what Analyze found.
type Result struct {
	Slices []Slice
	// Goroutines is the number of distinct goroutines sampled.
	Goroutines int
	// Groups are the groups blocked through the last slice: the listed
	// ones first, fastest growing first, then the others (Flat),
	// largest first.
	Groups []Group
	// Flat is how many of Groups are not listed, and FlatGoroutines
	// their count in the last slice.
	Flat, FlatGoroutines int
	// Unreachable is the goroutines of the last slice the runtime proved
	// can never wake, in every group; Marked says the profile holds the
	// mark at all (the leak profile ran and found some).
	Unreachable int
	Marked      bool
	// Untold says the profile has more distinct waits than the analysis
	// tells apart (4,096): the goroutines of the others count in no group.
	Untold bool
}

// ErrNoWaits says a profile has no off-CPU sample: a CPU profile, which
// does not sample blocked goroutines.
var ErrNoWaits = errors.New("no off-CPU samples (a CPU-mode profile?): leaks needs a wall-mode profile")

// Analyze reads files (one profile, or the segments of one run in time
// order) and returns the groups of goroutines blocked through its
// slices.
func Analyze(files []Input, opt Options) (*Result, error) {
	a := &analysis{keys: make(map[uint64]int32), ids: make(map[threadKey]int), seed: maphash.MakeSeed()}
	var lo, hi uint64
	nfiles := len(files)
	if opt.Last > 0 {
		lo, hi = opt.First, opt.Last
	} else {
		offCPU := false
		nfiles = 0
		for _, in := range files {
			b, err := bounds(in)
			if err != nil {
				return nil, err
			}
			offCPU = offCPU || b.offCPU
			if b.samples == 0 {
				continue
			}
			nfiles++
			if lo == 0 || b.min < lo {
				lo = b.min
			}
			hi = max(hi, b.max)
		}
		if hi == 0 {
			return a.result(), nil
		}
		if !offCPU {
			return nil, &FileError{files[0].Name, ErrNoWaits}
		}
	}
	for _, in := range files {
		if a.tol = 2 * in.File.Header.Interval; a.tol > 0 {
			break
		}
	}
	if a.tol == 0 {
		a.tol = 20000
	}
	n := opt.Slices
	if n <= 0 && len(files) > 1 {
		// A segment holds the samples written while it was open, many
		// of them of ticks before its start (a parked goroutine's ticks
		// are written a few seconds late): the run's time is cut in as
		// many slices as it has segments, and every sample goes to the
		// slice of its time.
		n = max(nfiles, 2)
	}
	if n <= 0 {
		n = min(max(int((hi-lo+500000)/1000000), 3), 12)
	}
	for i := range n {
		s := lo + (hi-lo)*uint64(i)/uint64(n)
		e := lo + (hi-lo)*uint64(i+1)/uint64(n)
		a.slices = append(a.slices, Slice{Start: s, End: e})
	}
	a.fresh = a.slices[0].Start + a.tol
	a.late = max(a.slices[(len(a.slices)-1)/2].Start, a.fresh)
	for _, in := range files {
		if err := a.read(in); err != nil {
			return nil, err
		}
	}
	for i := range a.gs {
		a.settle(i)
	}
	return a.result(), nil
}

// fileBounds is a file's first and last sample time and whether any
// sample is off a CPU.
type fileBounds struct {
	min, max, samples uint64
	offCPU            bool
}

func bounds(in Input) (fileBounds, error) {
	var b fileBounds
	it := in.File.Samples()
	defer it.Close()
	for it.NextRun() {
		s, r := it.Sample(), it.Run()
		if b.samples == 0 || s.Timestamp < b.min {
			b.min = s.Timestamp
		}
		b.max = max(b.max, r.Last)
		b.samples += r.Count
		if !s.Status.OnCPU() {
			b.offCPU = true
		}
	}
	if err := it.Err(); err != nil {
		return b, &FileError{in.Name, err}
	}
	return b, nil
}

// group is a Group being counted.
type group struct {
	site        string
	wait        []tachyon.Frame
	counts, unr []int
	fresh, late int // of the last slice's count, those not there at the start, and those come in the second half
}

// gstate is one goroutine's samples in its current slice, in 32 bytes: a
// profile can have a million goroutines. Whether its latest sample
// carries the leak mark is a bit of analysis.leaked.
type gstate struct {
	born        uint64 // its first sample's time
	first, last uint64
	k           int32 // the slice; -1: none yet
	key         int32 // its group; -1: not blocked at one stack all along
}

// Bounds of the analysis's memory, whatever the file: the groups told
// apart (a wait met past them counts in none: Result.Untold), the wait
// frames kept of each, and the stacks cached per file (the cache starts
// afresh when full).
const (
	maxGroups    = 1 << 12
	maxWait      = 64
	maxCacheSize = 1 << 16
)

// frameInfo is what the analysis needs of a frame, found once per frame
// index of a file: a hash of its content (so that the same frame of two
// files, or twice in one table, hashes alike) and its kind.
type frameInfo struct {
	h    uint64
	kind uint8
}

// The kinds of frame.
const (
	frameUnseen  uint8 = iota // not looked at yet
	frameCode                 // a code frame, or a label the analysis ignores
	frameCreated              // the label tachyon.LabelCreatedBy
	frameLeak                 // the label leak=unreachable
)

// stackKey is a stack's group and leak mark, cached per file.
type stackKey struct {
	key    int32 // -1: not a wait
	leaked bool
}

type analysis struct {
	slices []Slice
	tol    uint64           // how far from a slice's ends a goroutine's samples may start and stop
	keys   map[uint64]int32 // content hash -> index in groups
	seed   maphash.Seed
	groups []*group
	ids    map[threadKey]int // goroutine -> index in gs
	gs     []gstate
	leaked []uint64 // bit i: gs[i]'s latest sample carries the leak mark
	fresh  uint64   // a goroutine first sampled after this was not there at the start
	late   uint64   // one first sampled after this came in the second half
	untold bool     // a wait met past maxGroups
	marked bool
}

// read counts one file's goroutines into the slices. The files come in
// time order: each goroutine's samples do.
func (a *analysis) read(in Input) error {
	f := in.File
	lf := labelframes.Of(f)
	infos := make([]frameInfo, len(f.FrameRefs()))
	cache := make(map[uint64]stackKey)
	// A stack's hash is its innermost frame's prefix hash, found from the
	// frames its record changed: each may be a record 65,536 frames deep
	// that changes one frame, among more stacks than a cache holds.
	hashes := stacktab.Prefixes[uint64]{Next: stacktab.Mix, Root: maphash.Comparable(a.seed, 0)}
	it := f.Samples()
	defer it.Close()
	for it.NextEvenRun() {
		s, r := it.Sample(), it.Run()
		sk := stackKey{key: -1}
		th := stacktab.Thread{ID: s.ThreadID, Interp: s.InterpreterID}
		st := s.Status.State()
		wait := st == tachyon.Blocked || st == tachyon.Syscall
		h := hashes.Root
		if wait || len(s.Stack) >= stacktab.CacheMinDepth {
			h = hashes.Of(th, s.Stack, s.Kept)
		} else {
			hashes.Forget(th) // found whole next time, as Of would
		}
		if wait {
			var ok bool
			if sk, ok = cache[h]; !ok {
				sk = a.keyOf(f, lf, infos, s.Stack)
				if len(cache) >= maxCacheSize {
					clear(cache)
				}
				cache[h] = sk
			}
		}
		a.marked = a.marked || sk.leaked
		step := r.Step
		for ts := s.Timestamp; ; {
			k := a.sliceOf(ts)
			end := r.Last
			if k+1 < len(a.slices) && a.slices[k+1].Start <= r.Last {
				end = ts
				if step > 0 {
					// The run's last sample before the next slice.
					end = ts + (a.slices[k+1].Start-1-ts)/step*step
				}
			}
			a.add(threadKey{s.ThreadID, s.InterpreterID, in.Run}, k, ts, end, sk)
			if end >= r.Last || step == 0 {
				break
			}
			ts = end + step
		}
	}
	if err := it.Err(); err != nil {
		return &FileError{in.Name, err}
	}
	return nil
}

// sliceOf returns the slice of time ts: the last that starts at or
// before it.
func (a *analysis) sliceOf(ts uint64) int {
	i := sort.Search(len(a.slices), func(i int) bool { return a.slices[i].Start > ts })
	return max(i-1, 0)
}

// add counts samples of goroutine id in slice k from first to last.
func (a *analysis) add(id threadKey, k int, first, last uint64, sk stackKey) {
	i, ok := a.ids[id]
	if !ok {
		i = len(a.gs)
		a.ids[id] = i
		a.gs = append(a.gs, gstate{born: first, k: -1})
		if i%64 == 0 {
			a.leaked = append(a.leaked, 0)
		}
	}
	g := &a.gs[i]
	if int(g.k) != k {
		a.settle(i)
		*g = gstate{born: g.born, k: int32(k), first: first, last: last, key: sk.key}
	} else {
		g.last = last
		if g.key != sk.key {
			g.key = -1
		}
	}
	bit := uint64(1) << (i % 64)
	if sk.leaked {
		a.leaked[i/64] |= bit
	} else {
		a.leaked[i/64] &^= bit
	}
}

// threadKey is a goroutine of the profile: its id, its thread's
// interpreter id (which tells the runs of a merge apart, see
// merge.Options.SeparateRuns) and its input's run (Input.Run).
type threadKey struct {
	id     uint64
	interp uint32
	run    int
}

// settle counts goroutine gs[i] in its slice if it was blocked at one
// stack all through.
func (a *analysis) settle(i int) {
	g := &a.gs[i]
	if g.k < 0 || g.key < 0 {
		return
	}
	s := a.slices[g.k]
	if g.first > s.Start+a.tol || g.last+a.tol < s.End {
		return
	}
	gr := a.groups[g.key]
	gr.counts[g.k]++
	if a.leaked[i/64]>>(i%64)&1 != 0 {
		gr.unr[g.k]++
	}
	if int(g.k) == len(a.slices)-1 && g.born > a.fresh {
		gr.fresh++
		if g.born > a.late {
			gr.late++
		}
	}
}

// info returns what the analysis needs of frame index i of f, through
// the file's cache.
func (a *analysis) info(f *reader.File, infos []frameInfo, i uint32) frameInfo {
	if int(i) >= len(infos) {
		return frameInfo{kind: frameCode}
	}
	if fi := infos[i]; fi.kind != frameUnseen {
		return fi
	}
	fr := f.Frame(i)
	var h maphash.Hash
	h.SetSeed(a.seed)
	h.WriteString(fr.Func)
	h.WriteByte(0)
	h.WriteString(fr.File)
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(fr.Line))
	h.Write(n[:])
	fi := frameInfo{h: h.Sum64(), kind: frameCode}
	if l, ok := tachyon.LabelOf(fr); ok {
		switch {
		case l.Key == tachyon.LabelCreatedBy:
			fi.kind = frameCreated
		case l.Key == tachyon.LabelLeak && l.Value == tachyon.LeakUnreachable:
			fi.kind = frameLeak
		}
	}
	infos[i] = fi
	return fi
}

// keyOf returns the group of a blocked sample's stack and its leak mark.
func (a *analysis) keyOf(f *reader.File, lf *labelframes.Frames, infos []frameInfo, stack []uint32) stackKey {
	code := lf.Code(stack)
	sk := stackKey{}
	site, hasSite := uint32(0), false
	var h maphash.Hash
	h.SetSeed(a.seed)
	var n [8]byte
	for _, i := range stack[code:] {
		switch fi := a.info(f, infos, i); fi.kind {
		case frameCreated:
			site, hasSite = i, true
			binary.LittleEndian.PutUint64(n[:], fi.h)
			h.Write(n[:])
		case frameLeak:
			sk.leaked = true
		}
	}
	h.WriteByte(0)
	for _, i := range stack[:code] {
		binary.LittleEndian.PutUint64(n[:], a.info(f, infos, i).h)
		h.Write(n[:])
	}
	sum := h.Sum64()
	idx, ok := a.keys[sum]
	if !ok {
		if len(a.groups) >= maxGroups {
			a.untold = true
			return stackKey{key: -1}
		}
		g := &group{counts: make([]int, len(a.slices)), unr: make([]int, len(a.slices))}
		if hasSite {
			l, _ := tachyon.LabelOf(f.Frame(site))
			g.site = l.Value
		}
		g.wait = make([]tachyon.Frame, 0, min(code, maxWait))
		for _, i := range stack[:min(code, maxWait)] {
			g.wait = append(g.wait, f.Frame(i))
		}
		idx = int32(len(a.groups))
		a.keys[sum] = idx
		a.groups = append(a.groups, g)
	}
	sk.key = idx
	return sk
}

// result orders the groups blocked through the last slice.
func (a *analysis) result() *Result {
	res := &Result{Slices: a.slices, Goroutines: len(a.gs), Marked: a.marked, Untold: a.untold}
	if len(a.slices) == 0 {
		return res
	}
	for _, g := range a.groups {
		gr := Group{Site: g.site, Wait: g.wait, Counts: g.counts, Unreachable: g.unr, New: g.fresh, Late: g.late}
		if gr.Last() == 0 {
			continue
		}
		gr.Rate = slope(a.slices, gr.Counts)
		gr.Grows = gr.Late >= MinGain && gr.Rate > 0
		gr.Listed = gr.Grows || gr.LastUnreachable() > 0
		if !gr.Listed {
			res.Flat++
			res.FlatGoroutines += gr.Last()
		}
		res.Unreachable += gr.LastUnreachable()
		res.Groups = append(res.Groups, gr)
	}
	slices.SortStableFunc(res.Groups, func(x, y Group) int {
		if x.Listed != y.Listed {
			if x.Listed {
				return -1
			}
			return 1
		}
		if x.Listed {
			if c := cmp.Compare(y.Rate, x.Rate); c != 0 {
				return c
			}
		}
		if c := cmp.Compare(y.Last(), x.Last()); c != 0 {
			return c
		}
		return cmp.Compare(x.Site, y.Site)
	})
	return res
}

// slope returns the least-squares slope of counts against the slices'
// middles, per second.
func slope(sl []Slice, counts []int) float64 {
	n := float64(len(counts))
	if n < 2 {
		return 0
	}
	var sx, sy, sxx, sxy float64
	t0 := float64(sl[0].Start)
	for i, c := range counts {
		x := (float64(sl[i].Start+sl[i].End)/2 - t0) / 1e6
		y := float64(c)
		sx, sy, sxx, sxy = sx+x, sy+y, sxx+x*x, sxy+x*y
	}
	d := n*sxx - sx*sx
	if d == 0 {
		return 0
	}
	return (n*sxy - sx*sy) / d
}
