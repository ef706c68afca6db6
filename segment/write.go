package segment

import (
	"fmt"

	"github.com/gotachyon/profiler/tachyon"
)

// WriteThreadStack writes one sample of t whose frames are indices
// returned by the Segmenter's Frame, innermost first, into the segment
// its timestamp belongs to (rolling over first if it is past the open
// segment's end).
func (s *Segmenter) WriteThreadStack(t *Thread, ts uint64, status tachyon.Status, stack []uint32) error {
	if err := s.check(t); err != nil {
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
	return s.cur.w.WriteThreadStack(s.inner(t), ts, status, local)
}

// full reports whether the bytes the directory refused reached the
// bound: samples are then dropped. Meanwhile it tries again, once a retry
// period, to write the open segment's.
func (s *Segmenter) full() bool {
	if s.held.Load() < s.opts.HoldBytes {
		return false
	}
	s.cur.file.retry()
	return s.held.Load() >= s.opts.HoldBytes
}

// drop counts n samples of t, the latest at last, as dropped; t's next
// sample written is written as a change from its stack in the segment.
func (s *Segmenter) drop(t *Thread, last uint64, n int) {
	t.lastTS = max(t.lastTS, last)
	s.dirty[t] = true
	s.dropped(uint64(n))
}

// RepeatEvery writes n samples of t with its previous stack at ts,
// ts+step, ...: a run that crosses the open segment's end is split there,
// the rest going to the next segment, where the thread's first sample is
// written as a full stack.
func (s *Segmenter) RepeatEvery(t *Thread, ts, step uint64, n int, status tachyon.Status) error {
	if n <= 0 {
		return nil
	}
	if err := s.check(t); err != nil {
		return err
	}
	if !t.started {
		return ErrNoStack
	}
	if ts >= s.deadline {
		s.roll(ts, ts+uint64(n-1)*step)
	}
	if s.full() {
		s.drop(t, ts+uint64(n-1)*step, n)
		return nil
	}
	if k := s.before(ts, step, n); k < n {
		if err := s.repeat(t, ts, step, k, status); err != nil {
			return err
		}
		ts, n = ts+uint64(k)*step, n-k
		s.roll(ts, ts+uint64(n-1)*step)
	}
	return s.repeat(t, ts, step, n, status)
}

// before returns how many of the n samples at ts, ts+step, ... fall before
// the open segment's end (ts itself does).
func (s *Segmenter) before(ts, step uint64, n int) int {
	if step == 0 {
		return n
	}
	k := (s.deadline - ts + step - 1) / step
	return int(min(k, uint64(n)))
}

// repeat writes n samples of t's stack into the open segment, the first as
// a full stack if t has none there yet.
func (s *Segmenter) repeat(t *Thread, ts, step uint64, n int, status tachyon.Status) error {
	if n <= 0 {
		return nil
	}
	s.advance(t, ts, ts+uint64(n-1)*step)
	in := s.inner(t)
	if !in.started || (len(s.dirty) > 0 && s.dirty[t]) {
		delete(s.dirty, t)
		local, err := s.local(t.stack)
		if err != nil {
			return err
		}
		if err := s.cur.w.WriteThreadStack(in, ts, status, local); err != nil {
			return err
		}
		ts, n = ts+step, n-1
	}
	return s.cur.w.RepeatEvery(in, ts, step, n, status)
}

// FlushThread ends t's pending run in the open segment (see
// Writer.FlushThread).
func (s *Segmenter) FlushThread(t *Thread) {
	if s.closed || t.forgotten || t.gen != s.gen || t.inner == nil {
		return
	}
	s.cur.w.FlushThread(t.inner)
}

// Forget tells the Segmenter that t will write no more samples (see
// Writer.Forget).
func (s *Segmenter) Forget(t *Thread) {
	if s.closed || t.forgotten {
		return
	}
	if t.gen == s.gen && t.inner != nil {
		s.cur.w.Forget(t.inner)
	}
	t.forgotten, t.inner, t.stack = true, nil, nil
	delete(s.threads, t.key)
	delete(s.dirty, t)
}

// check returns the error that stops t from writing.
func (s *Segmenter) check(t *Thread) error {
	switch {
	case s.closed:
		return ErrClosed
	case t.forgotten:
		return ErrForgotten
	}
	return nil
}

// advance counts a first sample of t in the open segment that is older
// than the segment's start (the writer records it at the start), and
// moves t's clock to last, the latest of the samples being written.
func (s *Segmenter) advance(t *Thread, first, last uint64) {
	if first < s.cur.start && (t.gen != s.gen || t.inner == nil || !t.inner.started) {
		s.mu.Lock()
		s.stats.Early++
		s.mu.Unlock()
	}
	t.lastTS = max(t.lastTS, last)
}

// inner returns t's thread in the open segment.
func (s *Segmenter) inner(t *Thread) *Thread {
	if t.gen != s.gen || t.inner == nil {
		t.inner, t.gen = s.cur.w.Thread(t.key.id, t.key.interp), s.gen
	}
	return t.inner
}

// local maps a stack of Segmenter frame indices onto the open segment's,
// interning the frames it has not seen. The result is valid until the
// next call.
func (s *Segmenter) local(stack []uint32) ([]uint32, error) {
	s.scratch = s.scratch[:0]
	cur := s.cur
	for _, g := range stack {
		if int(g) >= len(s.frmTab) {
			return nil, fmt.Errorf("%w: %d (have %d frames)", ErrFrameIndex, g, len(s.frmTab))
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
