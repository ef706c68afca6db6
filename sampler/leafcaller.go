package sampler

import (
	"slices"

	"github.com/gotachyon/profiler/internal/gotrace"
)

// A preempted goroutine's stack, as the execution trace records it, can
// lack one frame. The runtime unwinds the stacks of its events by frame
// pointers, and a function that calls nothing and needs no stack frame (a
// hot loop, most often) saves none: the unwinding goes from it straight to
// its caller's caller (go.dev/issue/68090). The goroutine's runnable ticks
// after an asynchronous preemption in such a function would show it under
// the wrong caller. CPU samples are unwound by the runtime's full
// unwinder, so place mends the stacks of the runnable ticks, and of the
// running ticks no CPU sample paid for, from the goroutine's CPU samples:
// if the one nearest in time that agrees with the stack shows one more
// frame between the same innermost function and the same outer frames,
// that frame goes in. A stack that a nearer sample shows as it is, and
// one with no agreeing sample in the generation (Config.NoCPUSamples, a
// goroutine that ran too briefly to be sampled), stays as the trace
// recorded it.

// mendScan bounds how many of a goroutine's CPU samples, nearest first on
// each side, a mend looks at.
const mendScan = 32

// mend returns s with the frame the goroutine's CPU sample nearest to at
// shows between s's innermost function and the rest of s, or s.
func (tb *traceBackend) mend(s *stack, at gotrace.Time, claims []cpuHit) *stack {
	if s == nil || len(s.frames) < 2 || len(claims) == 0 {
		return s
	}
	leaf := tb.funcOf(s.frames[0])
	if leaf == 0 {
		return s
	}
	i, _ := slices.BinarySearchFunc(claims, at, func(c cpuHit, t gotrace.Time) int {
		switch {
		case c.at < t:
			return -1
		case c.at > t:
			return 1
		}
		return 0
	})
	best, bestD := -1, gotrace.Time(0)
	for lo, hi, k := i-1, i, 0; k < mendScan && (lo >= 0 || hi < len(claims)); lo, hi, k = lo-1, hi+1, k+1 {
		for _, j := range [2]int{lo, hi} {
			if j < 0 || j >= len(claims) || tb.agrees(claims[j].s, s, leaf) == 0 {
				continue
			}
			if d := absDiff(claims[j].at, at); best < 0 || d < bestD {
				best, bestD = j, d
			}
		}
		if best >= 0 {
			break
		}
	}
	if best < 0 || tb.agrees(claims[best].s, s, leaf) != 2 {
		return s
	}
	return tb.withCaller(s, claims[best].s.frames[1])
}

// agrees compares c, a CPU sample's stack, with s, whose innermost frame is
// in function leaf: 1 if c is s's stack (at any line of leaf), 2 if it is
// s's with one more frame above the innermost, 0 if neither.
func (tb *traceBackend) agrees(c, s *stack, leaf uint32) int {
	cf, sf := c.frames, s.frames
	if len(cf) == 0 || tb.funcOf(cf[0]) != leaf {
		return 0
	}
	if slices.Equal(cf[1:], sf[1:]) {
		return 1
	}
	if len(cf) == len(sf)+1 && slices.Equal(cf[2:], sf[1:]) ||
		len(sf) == maxDepth && len(cf) == maxDepth && slices.Equal(cf[2:], sf[1:maxDepth-1]) {
		return 2
	}
	return 0
}

// withCaller returns s with frame f inserted above its innermost frame,
// interned.
func (tb *traceBackend) withCaller(s *stack, f uint32) *stack {
	m := s.variant()
	m.frames = append(append(append(tb.scratch[:0], s.frames[0]), f), s.frames[1:]...)
	if len(m.frames) > maxDepth {
		m.frames = m.frames[:maxDepth]
	}
	tb.scratch = m.frames[:0]
	return tb.known.intern(&m)
}

// funcOf returns the function of frame idx as a small number (0: not a
// frame of the trace's).
func (tb *traceBackend) funcOf(idx uint32) uint32 {
	if int(idx) < len(tb.frameFunc) {
		return tb.frameFunc[idx]
	}
	return 0
}

// noteFunc records that frame idx is in function fn.
func (tb *traceBackend) noteFunc(idx uint32, fn string) {
	id, ok := tb.funcIDs[fn]
	if !ok {
		id = uint32(len(tb.funcIDs) + 1)
		tb.funcIDs[fn] = id
	}
	for int(idx) >= len(tb.frameFunc) {
		tb.frameFunc = append(tb.frameFunc, 0)
	}
	tb.frameFunc[idx] = id
}

// mendRuns mends the stacks of g's queued runnable runs and the scheduler
// stacks of its running ones from its CPU samples, claims, and g's own
// where they were among them.
func (tb *traceBackend) mendRuns(g *tgor, claims []cpuHit) {
	if len(claims) == 0 {
		return
	}
	var from, to *stack // the latest stack mended, and what it became
	mended := func(s *stack, at gotrace.Time) *stack {
		if s == nil {
			return nil
		}
		if s != from {
			from, to = s, tb.mend(s, at, claims)
		}
		return to
	}
	if x := tb.busyOf(g); x != nil {
		for i := range x.pend {
			r := &x.pend[i]
			switch r.state {
			case gRunnable:
				r.stack = mended(r.stack, tb.tickTime(r.from))
			case gRunning:
				r.sched = mended(r.sched, tb.tickTime(r.to))
			}
		}
		if x.seen != nil {
			x.seen = mended(x.seen, claims[len(claims)-1].at)
		}
	}
	if g.state == gRunnable || g.state == gRunning {
		tb.setStack(g, mended(tb.stackOf(g), claims[len(claims)-1].at))
	}
}
