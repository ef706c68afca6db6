package gogroup

import (
	"strings"

	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
)

// kind is what the rule needs to know of a frame.
type kind uint8

const (
	code        kind = iota
	runtimeCode      // a frame of package runtime
	synthetic        // a wait reason or another sampler-made frame
	runtimeRoot      // tachyon.RuntimeRoot
	label            // a label frame
)

// Rule holds, for one frame table, each frame's function and kind. Its
// methods are not safe for concurrent use with Names.Add.
type Rule struct {
	kind    []kind
	fn      []int32  // function id by frame index
	names   []string // function name by id
	closure []bool   // by function id: a function literal or a go wrapper
}

// New returns the rule for the n frames that frame resolves.
func New(n int, frame func(i uint32) tachyon.Frame) *Rule {
	r := &Rule{kind: make([]kind, n), fn: make([]int32, n)}
	ids := map[string]int32{}
	for i := range n {
		fr := frame(uint32(i))
		switch {
		case tachyon.IsLabel(fr):
			r.kind[i] = label
		case tachyon.IsRuntimeRoot(fr):
			r.kind[i] = runtimeRoot
		case tachyon.Synthetic(fr):
			r.kind[i] = synthetic
		case strings.HasPrefix(fr.Func, "runtime."):
			r.kind[i] = runtimeCode
		}
		id, ok := ids[fr.Func]
		if !ok {
			id = int32(len(r.names))
			ids[fr.Func] = id
			r.names = append(r.names, fr.Func)
			r.closure = append(r.closure, IsClosure(fr.Func))
		}
		r.fn[i] = id
	}
	return r
}

// Of returns the rule for f's frame table.
func Of(f *reader.File) *Rule { return New(len(f.FrameRefs()), f.Frame) }

// Func returns the name of function id.
func (r *Rule) Func(id int32) string { return r.names[id] }

// Start is where one stack says its goroutine started.
type Start struct {
	Func    int32 // the start function (Rule.Func)
	Callee  int32 // for a closure's start, the function it calls in this stack; -1 if none
	Runtime bool  // the stack is rooted at tachyon.RuntimeRoot
}

// StartOf returns the start of stack (frame indices, innermost first, as
// reader.Sample.Stack), and false for a stack of label frames only.
func (r *Rule) StartOf(stack []uint32) (Start, bool) {
	i := len(stack) - 1
	for i >= 0 && r.kind[stack[i]] == label {
		i--
	}
	if i < 0 {
		return Start{}, false
	}
	s := Start{Callee: -1}
	if r.kind[stack[i]] == runtimeRoot {
		s.Runtime = true
		if i > 0 {
			i--
		}
	} else {
		// Past the runtime's frames at the root to the program's.
		j := i
		for j > 0 && r.kind[stack[j]] == runtimeCode {
			j--
		}
		if r.kind[stack[j]] == code {
			i = j
		}
	}
	s.Func = r.fn[stack[i]]
	if r.closure[s.Func] && i > 0 && r.kind[stack[i-1]] == code {
		s.Callee = r.fn[stack[i-1]]
	}
	return s, true
}

// Names counts, per start function that is a closure, the samples of
// each function of the program's it calls, to name its group. It holds
// one counter per (closure, callee) pair seen: a closure calls few
// functions.
type Names struct {
	r       *Rule
	callees map[[2]int32]uint64
	best    map[int32]int32 // by closure, its heaviest callee; made by the first Name
}

// NewNames returns an empty count for rule r.
func NewNames(r *Rule) *Names { return &Names{r: r, callees: map[[2]int32]uint64{}} }

// Add counts n samples of a stack that started at s.
func (x *Names) Add(s Start, n uint64) {
	if s.Callee >= 0 && x.best == nil {
		x.callees[[2]int32{s.Func, s.Callee}] += n
	}
}

// Name returns the name of the group of start function fn: fn's name,
// or for a closure the function it called in most samples (the first by
// name of those tied). Samples added after the first Name are not
// counted.
func (x *Names) Name(fn int32) string {
	if x.best == nil {
		x.best = map[int32]int32{}
		bestN := map[int32]uint64{}
		for k, n := range x.callees {
			b, ok := x.best[k[0]]
			if !ok || n > bestN[k[0]] || n == bestN[k[0]] && x.r.names[k[1]] < x.r.names[b] {
				x.best[k[0]], bestN[k[0]] = k[1], n
			}
		}
	}
	if b, ok := x.best[fn]; ok {
		return x.r.names[b]
	}
	return x.r.names[fn]
}

// IsClosure reports whether fn names a function literal or a go
// statement's wrapper: its last element is funcN or gowrapN (then perhaps
// .M for a nested one).
func IsClosure(fn string) bool {
	for {
		i := strings.LastIndexByte(fn, '.')
		if i < 0 {
			return false
		}
		last := fn[i+1:]
		if digits(last) {
			fn = fn[:i]
			continue
		}
		for _, p := range []string{"func", "gowrap"} {
			if n, ok := strings.CutPrefix(last, p); ok && digits(n) {
				return true
			}
		}
		return false
	}
}

func digits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}
