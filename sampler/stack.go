package sampler

import (
	"slices"
	"strings"
)

// A stack is a normalised stack as the sink receives it. Both backends
// build each distinct stack once and hand the same *stack to the emitter
// while it does not change, so that an unchanged goroutine costs a pointer
// comparison.
type stack struct {
	frames    []uint32 // frame indices, innermost first, at most maxDepth
	leafPC    uint64   // PC of the innermost kept frame (trace only)
	hint      string   // wait reason inferred from the frames ("" none)
	hintFrame uint32   // the index of hint's "[reason]" frame plus one, once looked up (traceBackend.waitStack)
	panicking bool
	// evidence says the stack shows where the goroutine is: it has at least
	// one frame that normalisation keeps. A CPU sample cut short inside the
	// runtime (only [runtime.nanotime1], say) has none.
	evidence bool
	// program says the stack has a kept frame outside package runtime:
	// the goroutine runs the program's code, so it is not one of the
	// runtime's system goroutines.
	program bool
	// cpuCut says a CPU sample's stack of these frames was cut before
	// the goroutine's root (traceBackend.cpuStack).
	cpuCut bool
	// start is the role of the goroutine's start function, known when the
	// stack is complete (its outermost frame is runtime.goexit). A CPU
	// sample's stack is; the trace's own stacks leave runtime.goexit out.
	start role
	// outer is the role of the outermost frame: the start function itself
	// in the one-frame stack of a goroutine's creation.
	outer role
	// key identifies the frames, whichever generation's handle made s.
	key uint64
	// num is s's number in the trace backend's stackNums, if it has one
	// there (stackNums.num checks).
	num uint32

	waits  []*stack // this stack under a wait-reason frame, one per reason
	rooted *stack   // this stack under the runtime's root frame, once made
	// truncated is this stack ending in "[truncated]", once made (cpuCut)
	truncated *stack
}

// variant returns a copy of s to change: it holds none of s's cached
// variants, no number (stackNums.num gives it its own), and is never cut
// again (cpuCut is read off a stack as the runtime gave it).
func (s *stack) variant() stack {
	v := *s
	v.waits, v.rooted, v.truncated, v.num, v.cpuCut = nil, nil, nil, 0, false
	return v
}

// waiting returns s under the synthetic wait-reason frame reason (a frame
// index), made once per (stack, reason).
func (s *stack) waiting(reason uint32) *stack {
	for _, w := range s.waits {
		if w.frames[0] == reason {
			return w
		}
	}
	w := s.variant()
	w.frames = append(append(make([]uint32, 0, len(s.frames)+1), reason), s.frames...)
	if len(w.frames) > maxDepth {
		w.frames = w.frames[:maxDepth]
	}
	s.waits = append(s.waits, &w)
	return &w
}

// underRuntime returns s with the frame root (tachyon.RuntimeRoot's)
// outermost, for a runtime system goroutine, cached in s.
func (s *stack) underRuntime(root uint32) *stack { return s.withRoot(root, &s.rooted) }

// withRoot returns s with the frame root outermost, keeping its innermost
// maxDepth-1 frames: *made if it was made before, else made and kept there.
func (s *stack) withRoot(root uint32, made **stack) *stack {
	if *made != nil {
		return *made
	}
	r := s.variant()
	r.frames = append(slices.Clip(s.frames[:min(len(s.frames), maxDepth-1)]), root)
	*made = &r
	return &r
}

// same reports whether s and o are the same stack to every reader: frames,
// leaf PC and what is read off them.
func (s *stack) same(o *stack) bool {
	return s.key == o.key && s.leafPC == o.leafPC && s.hint == o.hint && s.panicking == o.panicking &&
		s.evidence == o.evidence && s.program == o.program && s.cpuCut == o.cpuCut && s.start == o.start && s.outer == o.outer && slices.Equal(s.frames, o.frames)
}

// stackTable interns stacks by content, so that one stack keeps one *stack
// however often a backend meets it (the trace's stack handles last a
// generation; a dump has no handles at all). It starts afresh when it holds
// maxStacks.
type stackTable map[uint64]*stack

// maxStacks bounds a stackTable.
const maxStacks = 1 << 16

// intern returns the table's stack equal to s or, the first time, a copy of
// s that it keeps: s may be a value on the caller's stack whose frames are
// a scratch buffer, so that a stack met again allocates nothing.
func (t stackTable) intern(s *stack) *stack {
	s.key = frameKey(s.frames)
	k := s.tableKey()
	if old := t[k]; old != nil && old.same(s) {
		return old
	}
	if len(t) >= maxStacks {
		clear(t)
	}
	c := *s
	c.frames = slices.Clone(s.frames)
	t[k] = &c
	return &c
}

// tableKey is s's key in a stackTable: its frames' key mixed with what
// else same compares, so that two stacks of the same frames (a CPU
// sample's at another PC of the same line) each keep their entry instead
// of replacing each other, a copy at every turn.
func (s *stack) tableKey() uint64 {
	h := s.key ^ s.leafPC*0x9e3779b97f4a7c15
	for i := 0; i < len(s.hint); i++ {
		h = (h ^ uint64(s.hint[i])) * 1099511628211
	}
	var flags uint64
	for i, b := range [...]bool{s.panicking, s.evidence} {
		if b {
			flags |= 1 << i
		}
	}
	return h ^ (flags|uint64(s.start)<<3|uint64(s.outer)<<5)*0xbf58476d1ce4e5b9
}

// frameKey hashes frame indices (FNV-1a).
func frameKey(frames []uint32) uint64 {
	h := uint64(14695981039346656037)
	for _, f := range frames {
		h = (h ^ uint64(f)) * 1099511628211
	}
	return h
}

// role says whether a goroutine is sampled.
type role uint8

const (
	// roleUnknown: no complete stack seen yet. Such a goroutine is sampled.
	roleUnknown role = iota
	// roleUser: a goroutine of the program, sampled.
	roleUser
	// roleHidden: one of the profiler's own, never sampled.
	roleHidden
	// roleRuntime: a runtime system goroutine (GC workers, the sweeper,
	// the scavenger, the finalizer goroutine): sampled under a
	// tachyon.RuntimeRoot frame, so that views group them.
	roleRuntime
)

// roleOf classifies a goroutine by its start function, which it keeps for
// life: the goroutines that the runtime/trace and runtime/pprof packages
// start for the profiler (the trace reader, the CPU profile reader) are
// hidden, and so is the CPU profiler's watcher (cpuprof.go); runtime
// system goroutines (start function in package runtime, other than
// runtime.main: what runtime.Stack hides) are the runtime's. A goroutine is never
// classified by the frames it passes through: a user goroutine inside
// trace.WithRegion runs runtime/trace code, and a CPU sample cut short may
// show runtime frames only.
func roleOf(startFunc string) role {
	switch {
	case strings.HasPrefix(startFunc, "runtime/trace."), startFunc == "runtime/pprof.profileWriter", startFunc == watchCPUName:
		return roleHidden
	case strings.HasPrefix(startFunc, "runtime.") && startFunc != "runtime.main" && startFunc != "runtime.goexit":
		return roleRuntime
	}
	return roleUser
}
