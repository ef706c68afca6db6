package segment

import (
	"fmt"

	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// threadKey identifies a thread: (thread id, interpreter id).
type threadKey struct {
	id     uint64
	interp uint32
}

// Thread is the handle of one thread of a Writer (see Writer.Thread),
// valid across segments: in each segment it writes through that segment's
// writer.Writer thread, which it takes at its first sample there.
type Thread struct {
	s         *Writer
	key       threadKey
	lastTS    uint64   // the latest of its samples written or dropped
	stack     []uint32 // its latest stack, in the Writer's frame indices
	started   bool     // has a stack: it has written a sample
	forgotten bool
	// inner is the thread in the open segment's file once it has a sample
	// there, which holds while gen is the Writer's (inner is stale after a
	// rollover).
	inner *writer.Thread
	gen   uint64
}

// ID returns the thread id t was made for.
func (t *Thread) ID() uint64 { return t.key.id }

// Write writes one sample of t whose frames are indices returned by the
// Writer's Frame, innermost first, into the segment its timestamp belongs
// to (rolling over first if it is past the open segment's end). Stacks
// deeper than tachyon.MaxWriteDepth keep their innermost frames.
func (t *Thread) Write(ts uint64, status tachyon.Status, stack []uint32) error {
	s := t.s
	if err := t.check(); err != nil {
		return err
	}
	if len(stack) > tachyon.MaxWriteDepth {
		stack = stack[:tachyon.MaxWriteDepth]
	}
	if ts >= s.deadline {
		s.roll(ts, ts)
	}
	local, err := s.local(stack)
	if err != nil {
		return err
	}
	t.stack = append(t.stack[:0], stack...)
	t.started = true
	if s.full() {
		s.drop(t, ts, 1)
		return nil
	}
	if len(s.dirty) > 0 {
		delete(s.dirty, t)
	}
	s.advance(t, ts, ts)
	return t.write(ts, status, local)
}

// write writes one sample of t into the open segment, its stack in the
// segment's frame indices.
func (t *Thread) write(ts uint64, status tachyon.Status, local []uint32) error {
	w := t.s.cur.w
	in := t.inner
	if !t.here() {
		in = w.Thread(t.key.id, t.key.interp)
	}
	if err := in.Write(ts, status, local); err != nil {
		return err
	}
	t.inner, t.gen = in, t.s.gen
	return nil
}

// here reports whether t has a sample in the open segment.
func (t *Thread) here() bool { return t.inner != nil && t.gen == t.s.gen }

// full reports whether the bytes the directory refused reached the
// bound: samples are then dropped. Meanwhile it tries again, once a retry
// period, to write the open segment's.
func (s *Writer) full() bool {
	if s.held.Load() < s.opts.HoldBytes {
		return false
	}
	s.cur.file.retry()
	return s.held.Load() >= s.opts.HoldBytes
}

// drop counts n samples of t, the latest at last, as dropped; t's next
// sample written is written as a change from its stack in the segment.
func (s *Writer) drop(t *Thread, last uint64, n int) {
	t.lastTS = max(t.lastTS, last)
	s.dirty[t] = true
	s.dropped(uint64(n))
}

// RepeatEvery writes n samples of t with its previous stack at ts,
// ts+step, ... (see writer.Thread.RepeatEvery): a run that crosses the
// open segment's end is split there, the rest going to the next segment,
// where the thread's first sample is written as a full stack. Like
// writer.Thread's, it fails with writer.ErrNoStack before t's first
// sample.
func (t *Thread) RepeatEvery(ts, step uint64, n int, status tachyon.Status) error {
	if n <= 0 {
		return nil
	}
	if err := t.check(); err != nil {
		return err
	}
	if !t.started {
		return writer.ErrNoStack
	}
	s := t.s
	if ts >= s.deadline {
		s.roll(ts, ts+uint64(n-1)*step)
	}
	if s.full() {
		s.drop(t, ts+uint64(n-1)*step, n)
		return nil
	}
	if k := s.before(ts, step, n); k < n {
		if err := t.repeat(ts, step, k, status); err != nil {
			return err
		}
		ts, n = ts+uint64(k)*step, n-k
		s.roll(ts, ts+uint64(n-1)*step)
	}
	return t.repeat(ts, step, n, status)
}

// before returns how many of the n samples at ts, ts+step, ... fall before
// the open segment's end (ts itself does).
func (s *Writer) before(ts, step uint64, n int) int {
	if step == 0 {
		return n
	}
	k := (s.deadline - ts + step - 1) / step
	return int(min(k, uint64(n)))
}

// repeat writes n samples of t's stack into the open segment, the first as
// a full stack if t has none there yet; the rest are the segment's
// writer.Writer's RepeatEvery.
func (t *Thread) repeat(ts, step uint64, n int, status tachyon.Status) error {
	if n <= 0 {
		return nil
	}
	s := t.s
	s.advance(t, ts, ts+uint64(n-1)*step)
	if !t.here() || (len(s.dirty) > 0 && s.dirty[t]) {
		delete(s.dirty, t)
		local, err := s.local(t.stack)
		if err != nil {
			return err
		}
		if err := t.write(ts, status, local); err != nil {
			return err
		}
		ts, n = ts+step, n-1
	}
	return t.inner.RepeatEvery(ts, step, n, status)
}

// Flush ends t's pending run in the open segment (see
// writer.Thread.Flush).
func (t *Thread) Flush() {
	if t.s.closed || t.forgotten || !t.here() {
		return
	}
	t.inner.Flush()
}

// Forget tells the Writer that t will write no more samples (see
// writer.Thread.Forget).
func (t *Thread) Forget() {
	s := t.s
	if s.closed || t.forgotten {
		return
	}
	if t.here() {
		t.inner.Forget()
	}
	t.forgotten, t.inner, t.stack = true, nil, nil
	delete(s.threads, t.key)
	delete(s.dirty, t)
}

// check returns the error that stops t from writing: writer.ErrClosed
// once the Writer is closed, writer.ErrForgotten after Forget.
func (t *Thread) check() error {
	switch {
	case t.s.closed:
		return writer.ErrClosed
	case t.forgotten:
		return writer.ErrForgotten
	}
	return nil
}

// advance counts a first sample of t in the open segment that is older
// than the segment's start (the writer records it at the start), and
// moves t's clock to last, the latest of the samples being written.
func (s *Writer) advance(t *Thread, first, last uint64) {
	if first < s.cur.start && !t.here() {
		s.mu.Lock()
		s.stats.Early++
		s.mu.Unlock()
	}
	t.lastTS = max(t.lastTS, last)
}

// local maps a stack of the Writer's frame indices onto the open
// segment's, interning the frames it has not seen. The result is valid
// until the next call.
func (s *Writer) local(stack []uint32) ([]uint32, error) {
	s.scratch = s.scratch[:0]
	cur := s.cur
	for _, g := range stack {
		if int(g) >= len(s.frmTab) {
			return nil, fmt.Errorf("%w: %d (have %d frames)", writer.ErrFrameIndex, g, len(s.frmTab))
		}
		if int(g) >= len(cur.local) {
			cur.local = growZeroed(cur.local, len(s.frmTab))
		}
		if cur.local[g] == 0 {
			cur.local[g] = cur.w.Frame(s.frmTab[g]) + 1
		}
		s.scratch = append(s.scratch, cur.local[g]-1)
	}
	return s.scratch, nil
}

// growZeroed returns s extended to length n with zeros, in place when its
// capacity allows (the capacity past its length holds zeros: see roll).
func growZeroed(s []uint32, n int) []uint32 {
	if n <= cap(s) {
		return s[:n]
	}
	return append(s, make([]uint32, n-len(s))...)
}
