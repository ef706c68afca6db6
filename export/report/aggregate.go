package report

import (
	"cmp"
	"hash/maphash"
	"slices"
	"strings"

	"github.com/gotachyon/profiler/internal/busiest"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
)

// Defaults of Options.
const (
	DefaultGoroutines   = 40
	DefaultBuckets      = 600
	DefaultMaxNodes     = 20000
	DefaultMaxFunctions = 1000
)

// Options tune the report. The zero value is usable.
type Options struct {
	Title   string // page title; default "Tachyon profile"
	Mode    string // sampling mode ("wall", "cpu"); inferred when empty
	Backend string // sampler backend, shown when known

	Goroutines   int // timeline lanes (the busiest goroutines); default DefaultGoroutines
	Buckets      int // time buckets per lane; default DefaultBuckets
	MaxNodes     int // call-tree nodes embedded for the flame graph; default DefaultMaxNodes
	MaxFunctions int // rows of the functions table; default DefaultMaxFunctions
}

func (o Options) withDefaults() Options {
	if o.Title == "" {
		o.Title = "Tachyon profile"
	}
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.Goroutines, DefaultGoroutines)
	def(&o.Buckets, DefaultBuckets)
	def(&o.MaxNodes, DefaultMaxNodes)
	def(&o.MaxFunctions, DefaultMaxFunctions)
	return o
}

// Frame is a distinct frame of the profile (equal file, function and line
// are one Frame even where the file's frame table repeats them).
type Frame struct {
	Func, File string
	Line       int32
	Function   int32 // identifies the function: equal for frames of one function and file
}

// Node is a node of the call tree. The root (index 0) has Frame -1 and
// stands for all samples; a parent always has a lower index than its
// children.
type Node struct {
	Frame  int32 // index into Profile.Frames, -1 for the root
	Parent int32 // -1 for the root
	Self   uint64
	Total  uint64
}

// Function is a function's share of the samples: Self counts the samples in
// which it is the innermost frame, Total those in which it is anywhere on
// the stack (once per sample, however often it recurses).
type Function struct {
	Func, File string
	Line       int32 // the lowest line sampled in it, 0 if none
	Self       uint64
	Total      uint64
}

// Lane is one goroutine's row of the timeline. Goroutines are told apart
// by thread id and interpreter id; the Go sampler writes the goroutine id as
// the thread id and interpreter 0.
type Lane struct {
	Goroutine   uint64
	Interpreter uint32
	Samples     uint64
	States      [tachyon.NumStates]uint64 // samples per tachyon.State
	Top         string                    // function it spent most samples in (wait frames and runtime.* skipped)
	Root        string                    // its most frequent outermost function
	// Timeline has one byte per time bucket: '.' when the goroutine has no
	// sample there, else '0'+state of the state holding most of the bucket.
	Timeline string
}

// Profile holds the aggregates a report is made of.
type Profile struct {
	Options    Options // with defaults filled in
	Samples    uint64
	Goroutines int
	StartTime  uint64 // header start time, µs
	Interval   uint64 // µs
	First, End uint64 // first sample's timestamp and last sample's plus the interval, µs
	States     [tachyon.NumStates]uint64
	Frames     []Frame
	Nodes      []Node
	Functions  []Function // those sampled, sorted by total, then self, then name
	Lanes      []Lane     // the busiest goroutines, busiest first
}

// BucketWidth returns the span of one timeline bucket in µs.
func (p *Profile) BucketWidth() float64 {
	return float64(p.End-p.First) / float64(p.Options.Buckets)
}

// maxDetail is the most goroutines whose timelines Aggregate keeps while it
// reads (some 350 bytes each). A file of more is read twice: once to find
// the busiest (internal/busiest), which get lanes, once to aggregate.
const maxDetail = 100_000

// Aggregate reads every sample of f and returns the report's aggregates.
// Reader errors are returned, and then no Profile.
func Aggregate(f *reader.File, opt Options) (*Profile, error) {
	opt = opt.withDefaults()
	return busiest.Read(f, maxDetail, opt.Goroutines, busiest.BySamples, func(keep map[busiest.Key]bool, threads int) (*Profile, error) {
		return aggregate(f, opt, keep, threads)
	})
}

// aggregate reads f once. With keep nil it keeps every goroutine's timeline
// and gives up with busiest.ErrTooMany past maxDetail; else only those in keep have
// one, and threads is the file's goroutine count.
func aggregate(f *reader.File, opt Options, keep map[busiest.Key]bool, threads int) (*Profile, error) {
	a := newAggregator(f, opt, keep)
	if err := a.read(f); err != nil {
		return nil, err
	}
	return a.finish(threads), nil
}

// sumTotals sets each node's Total: its Self and its children's Totals
// (a child comes after its parent).
func (p *Profile) sumTotals() {
	for i := len(p.Nodes) - 1; i >= 0; i-- {
		p.Nodes[i].Total += p.Nodes[i].Self
		if i > 0 {
			p.Nodes[p.Nodes[i].Parent].Total += p.Nodes[i].Total
		}
	}
}

// frames builds p.Frames from f's frame table and returns the canonical
// frame of every table index and the function of every canonical frame.
func (p *Profile) frames(f *reader.File) (canon []int32, funcs []int32) {
	refs := f.FrameRefs()
	canon = make([]int32, len(refs))
	p.Frames = make([]Frame, 0, len(refs)) // table entries are distinct but for duplicated strings
	funcs = make([]int32, 0, len(refs))
	// Frames are told apart by a hash of their text, checked against the
	// frame it names: a map keyed by the text itself takes 50 bytes a frame
	// more, and a file can have a million frames.
	seed := maphash.MakeSeed()
	byHash := make(map[uint64]int32, len(refs))
	var clash map[tachyon.Frame]int32 // frames whose hash another has
	type fkey struct{ fn, file string }
	byFunc := make(map[fkey]int32)
	for i := range refs {
		fr := f.Frame(uint32(i))
		h := maphash.Comparable(seed, fr) // by the strings' text
		id, ok := byHash[h]
		if ok && !p.Frames[id].is(fr) {
			id, ok = clash[fr]
		}
		if !ok {
			id = int32(len(p.Frames))
			if _, taken := byHash[h]; !taken {
				byHash[h] = id
			} else {
				if clash == nil {
					clash = make(map[tachyon.Frame]int32)
				}
				clash[fr] = id
			}
			k := fkey{fr.Func, fr.File}
			fn, ok := byFunc[k]
			if !ok {
				fn = int32(len(byFunc))
				byFunc[k] = fn
			}
			p.Frames = append(p.Frames, Frame{Func: fr.Func, File: fr.File, Line: fr.Line, Function: fn})
			funcs = append(funcs, fn)
		}
		canon[i] = id
	}
	return canon, funcs
}

// is reports whether fr names frame f.
func (f Frame) is(fr tachyon.Frame) bool {
	return f.Func == fr.Func && f.File == fr.File && f.Line == fr.Line
}

// Frame flags for choosing a goroutine's top function.
const (
	flagWait    = 1 << iota // synthetic wait-reason frame
	flagRuntime             // runtime.* function
)

func frameFlags(frames []Frame) []uint8 {
	flags := make([]uint8, len(frames))
	for i, fr := range frames {
		if _, ok := tachyon.WaitReason(tachyon.Frame{File: fr.File, Func: fr.Func, Line: fr.Line}); ok {
			flags[i] |= flagWait
		}
		if strings.HasPrefix(fr.Func, "runtime.") {
			flags[i] |= flagRuntime
		}
	}
	return flags
}

// topFrame returns the index in stack (outermost first, not empty) of the
// innermost frame that is neither a wait frame nor in the runtime, falling
// back to the innermost frame that is not a wait frame, then the innermost.
func topFrame(stack []int32, flags []uint8) int {
	fallback := -1
	for i := len(stack) - 1; i >= 0; i-- {
		fl := flags[stack[i]]
		if fl == 0 {
			return i
		}
		if fl&flagWait == 0 && fallback < 0 {
			fallback = i
		}
	}
	if fallback >= 0 {
		return fallback
	}
	return len(stack) - 1
}

// functions fills p.Functions from the call tree and returns them indexed
// by function id (before sorting).
func (p *Profile) functions(funcs []int32) []Function {
	nf := 0
	for _, fn := range funcs {
		nf = max(nf, int(fn)+1)
	}
	fns := make([]Function, nf)
	for _, fr := range p.Frames {
		fn := &fns[fr.Function]
		fn.Func, fn.File = fr.Func, fr.File
		if fr.Line > 0 && (fn.Line == 0 || fr.Line < fn.Line) {
			fn.Line = fr.Line
		}
	}
	// Depth-first walk counting a function's total once per path.
	n := len(p.Nodes)
	firstChild, next := make([]int32, n), make([]int32, n)
	for i := range firstChild {
		firstChild[i] = -1
	}
	for i := n - 1; i > 0; i-- {
		par := p.Nodes[i].Parent
		next[i], firstChild[par] = firstChild[par], int32(i)
	}
	onPath := make([]int32, nf)
	type item struct{ node, next int32 }
	stk := []item{{0, firstChild[0]}}
	for len(stk) > 0 {
		top := &stk[len(stk)-1]
		if c := top.next; c >= 0 {
			top.next = next[c]
			nd := &p.Nodes[c]
			fn := p.Frames[nd.Frame].Function
			if onPath[fn] == 0 {
				fns[fn].Total += nd.Total
			}
			onPath[fn]++
			fns[fn].Self += nd.Self
			stk = append(stk, item{c, firstChild[c]})
			continue
		}
		if top.node != 0 {
			onPath[p.Frames[p.Nodes[top.node].Frame].Function]--
		}
		stk = stk[:len(stk)-1]
	}
	p.Functions = slices.DeleteFunc(slices.Clone(fns), func(f Function) bool { return f.Total == 0 })
	slices.SortFunc(p.Functions, func(a, b Function) int {
		return cmp.Or(cmp.Compare(b.Total, a.Total), cmp.Compare(b.Self, a.Self),
			strings.Compare(a.Func, b.Func), strings.Compare(a.File, b.File))
	})
	return fns
}

// lanes picks the busiest goroutines and buckets their state runs.
func (p *Profile) lanes(order []*gstate, fns []Function) {
	slices.SortStableFunc(order, func(a, b *gstate) int {
		return cmp.Or(cmp.Compare(b.samples, a.samples), cmp.Compare(a.id, b.id), cmp.Compare(a.interp, b.interp))
	})
	order = order[:min(len(order), p.Options.Goroutines)]
	nb := p.Options.Buckets
	bw := p.BucketWidth()
	dur := float64(max(p.Interval, 1))
	weights := make([][tachyon.NumStates]float64, nb)
	line := make([]byte, nb)
	name := func(fn int32) string {
		if fn < 0 {
			return ""
		}
		return fns[fn].Func
	}
	for _, g := range order {
		clear(weights)
		for _, r := range g.runs {
			a := float64(r.start - p.First)
			b := float64(r.end-p.First) + dur
			w := float64(r.n) / (b - a)
			lo, hi := int(a/bw), min(int(b/bw), nb-1)
			for k := max(lo, 0); k <= hi; k++ {
				bs, be := float64(k)*bw, float64(k+1)*bw
				if ov := min(b, be) - max(a, bs); ov > 0 {
					weights[k][r.state] += w * ov
				}
			}
		}
		for k := range line {
			line[k] = '.'
			best := 0.0
			for s, v := range weights[k] {
				if v > best {
					best, line[k] = v, byte('0'+s)
				}
			}
		}
		p.Lanes = append(p.Lanes, Lane{
			Goroutine:   g.id,
			Interpreter: g.interp,
			Samples:     g.samples,
			States:      g.states,
			Top:         name(g.top.best()),
			Root:        name(g.root.best()),
			Timeline:    string(line),
		})
	}
}
