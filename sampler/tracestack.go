package sampler

import (
	"github.com/gotachyon/profiler/internal/gotrace"
	"github.com/gotachyon/profiler/tachyon"
)

// The trace's stacks, normalised by the rules of frames.go, are cached per
// handle for the generation and per PC for the process.

// pcFrame is a cached frame of the trace, keyed by PC.
type pcFrame struct {
	idx    uint32
	line   uint64
	kind   frameKind
	hint   string
	role   role // the goroutine's role if this were its start function
	goexit bool
}

// stack normalises a trace stack, cached per handle for the generation and
// per PC for the process.
func (tb *traceBackend) stack(id uint64) *stack {
	if id == 0 {
		return nil
	}
	if id < uint64(len(tb.stacks)) && tb.stacks[id] != nil {
		return tb.stacks[id]
	}
	ts := stack{frames: tb.scratch[:0]}
	var first gotrace.Frame
	var above, outer pcFrame // the two outermost frames
	weak := ""
	i := 0
	frames := tb.rd.Stack(id)
	for k := range frames {
		f := &frames[k]
		e := tb.frame(f)
		if i == 0 {
			first = *f
		}
		above, outer = outer, e
		if e.hint != "" && ts.hint == "" {
			if e.hint != weakSemacquire {
				ts.hint = e.hint
			} else if weak == "" {
				weak = e.hint
			}
		}
		switch e.kind {
		case keepFrame:
			if ts.leafPC == 0 {
				ts.leafPC = f.PC
			}
			ts.program = ts.program || e.role != roleRuntime
			if len(ts.frames) < maxDepth {
				ts.frames = append(ts.frames, e.idx)
			}
		case panicFrame:
			if i > 0 {
				ts.panicking = true
				if len(ts.frames) < maxDepth {
					ts.frames = append(ts.frames, tb.namedFrame(f, "panic"))
				}
			}
		}
		i++
	}
	if ts.hint == "" {
		ts.hint = weak
	}
	switch {
	case outer.goexit || len(ts.frames) == 0:
	case i >= traceCutDepth:
		// The runtime cut the stack before the goroutine's root: say so
		// at the root.
		ts.frames = append(ts.frames[:min(len(ts.frames), maxDepth-1)], tb.markFrame(truncatedFrame))
	case i >= cpuCutDepth:
		// Cut, if a CPU sample's: the trace's own stacks leave
		// runtime.goexit out, and end at the root up to traceCutDepth.
		ts.cpuCut = true
	}
	ts.evidence = len(ts.frames) > 0
	if !ts.evidence && i > 0 {
		// Only hidden runtime frames: keep the innermost, so that a CPU
		// sample still says where the time went.
		ts.frames = append(ts.frames, tb.namedFrame(&first, first.Func))
		ts.leafPC = first.PC
	}
	ts.outer = outer.role
	if outer.goexit && i >= 2 {
		ts.start = above.role
	}
	tb.scratch = ts.frames
	st := tb.known.intern(&ts)
	if id < maxStackIDs {
		for uint64(len(tb.stacks)) <= id {
			tb.stacks = append(tb.stacks, nil)
		}
		tb.stacks[id] = st
	}
	return st
}

// maxStackIDs bounds the generation's table of normalised stacks by id;
// a stack with a larger id (none in a real trace: ids count the
// generation's stacks) is normalised at each use.
const maxStackIDs = 1 << 20

// frame classifies and interns one frame, cached per PC.
func (tb *traceBackend) frame(f *gotrace.Frame) pcFrame {
	if e, ok := tb.pcs[f.PC]; ok && e.line == f.Line {
		return e
	}
	e := pcFrame{
		line:   f.Line,
		kind:   classify(f.Func, f.File),
		hint:   reasonHints[f.Func],
		role:   roleOf(f.Func),
		goexit: f.Func == "runtime.goexit",
	}
	if e.kind == keepFrame {
		e.idx = tb.namedFrame(f, f.Func)
		tb.noteFunc(e.idx, f.Func)
	}
	tb.pcs[f.PC] = e
	return e
}

// namedFrame interns frame f under the function name fn.
func (tb *traceBackend) namedFrame(f *gotrace.Frame, fn string) uint32 {
	return tb.em.sink.Frame(tachyon.Frame{File: f.File, Func: fn, Line: int32(f.Line)})
}

// unknownFrame is the one synthetic frame of a goroutine whose stack the
// trace never showed: one that was already runnable when tracing began, ran
// and ended without blocking, being preempted or being sampled.
const unknownFrame = "[stack unknown]"

// truncatedFrame is the outermost frame of a stack the runtime cut before
// the goroutine's root. The runtime keeps cpuCutDepth frames of a CPU
// sample's stack, whose root is runtime.goexit when it is complete, and
// traceCutDepth of a goroutine's where it changes state or logs, which
// leaves runtime.goexit out.
const (
	truncatedFrame = "[truncated]"
	cpuCutDepth    = 64
	traceCutDepth  = 128
)

// cpuStack returns the stack of a CPU sample: s, or s ending in
// truncatedFrame if a CPU sample's stack of its depth was cut (s.cpuCut),
// made once per stack.
func (tb *traceBackend) cpuStack(s *stack) *stack {
	switch {
	case s == nil || !s.cpuCut:
		return s
	case s.truncated != nil:
		return s.truncated
	}
	return s.withRoot(tb.markFrame(truncatedFrame), &s.truncated)
}

// markFrame interns a synthetic frame, one with only a name.
func (tb *traceBackend) markFrame(name string) uint32 {
	return tb.em.sink.Frame(tachyon.Frame{Func: name})
}

// unknownStack is the stack of a goroutine whose stack the trace never
// showed.
func (tb *traceBackend) unknownStack() *stack {
	if tb.unknown == nil {
		tb.unknown = &stack{frames: []uint32{tb.markFrame(unknownFrame)}}
	}
	return tb.unknown
}
