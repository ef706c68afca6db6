package segment

import (
	"fmt"
	"slices"

	"github.com/gotachyon/profiler/internal/stackset"
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
// writer.Writer thread, which it takes at its first sample there. Its
// fields fit 48 bytes (TestThreadSize).
type Thread struct {
	s         *Writer
	id        uint64
	interp    uint32
	started   bool // has a stack: it has written a sample
	forgotten bool
	indexed   bool // made by Writer.Thread: kept by id in Writer.threads
	moved     bool // its stack changed since the last Flush
	// stack is its latest stack, in the Writer's frame indices: its own
	// while it changes, shared by content once it holds still for a
	// batch (Writer.stacks).
	stack *stackset.Stack
	// inner is the thread in seg's file, seg the segment of its latest
	// sample written (nil before the first): inner is valid while seg is
	// open (not handed to finishLoop).
	inner *writer.Thread
	seg   *segment
}

// ID returns the thread id t was made for.
func (t *Thread) ID() uint64 { return t.id }

// Write writes one sample of t whose frames are indices returned by the
// Writer's Frame, innermost first, into the segment whose range holds its
// timestamp (opening it if it is past the newest's end). Stacks deeper
// than tachyon.MaxWriteDepth keep their innermost frames.
func (t *Thread) Write(ts uint64, status tachyon.Status, stack []uint32) error {
	s := t.s
	if err := t.check(); err != nil {
		return err
	}
	if len(stack) > tachyon.MaxWriteDepth {
		stack = stack[:tachyon.MaxWriteDepth]
	}
	seg := s.route(ts)
	var local []uint32
	var err error
	if seg == nil {
		err = s.checkFrames(stack)
	} else {
		local, err = s.local(seg, stack)
	}
	if err != nil {
		return err
	}
	if t.stack == nil || !slices.Equal(t.stack.Frames(), stack) {
		t.stack = s.stacks.Own(t.stack, stack)
		t.moved = true
	}
	t.started = true
	switch {
	case seg == nil:
		s.late(t, 1)
		return nil
	case s.full():
		s.drop(t, 1)
		return nil
	}
	if len(s.dirty) > 0 {
		delete(s.dirty, t)
	}
	return t.write(seg, ts, status, local)
}

// write writes one sample of t into seg, its stack in the segment's frame
// indices.
func (t *Thread) write(seg *segment, ts uint64, status tachyon.Status, local []uint32) error {
	in := t.inner
	if t.seg != seg {
		in = seg.w.Thread(t.id, t.interp)
	}
	if err := in.Write(ts, status, local); err != nil {
		return err
	}
	t.inner, t.seg = in, seg
	t.s.wrote(seg, ts)
	return nil
}

// full reports whether the bytes the directory refused reached the
// bound: samples are then dropped. Meanwhile it tries again, once a retry
// period, to write the newest segment's.
func (s *Writer) full() bool {
	if s.held.Load() < s.opts.HoldBytes {
		return false
	}
	s.newest().file.retry()
	return s.held.Load() >= s.opts.HoldBytes
}

// drop counts n samples of t as dropped; t's next sample written is
// written as a change from its stack in the segment.
func (s *Writer) drop(t *Thread, n int) {
	s.dirty[t] = true
	s.dropped(uint64(n))
}

// late counts n samples of t older than every open segment, and wakes
// finishLoop to log the first; t's next sample written is written as a
// change from its stack in the segment.
func (s *Writer) late(t *Thread, n int) {
	s.dirty[t] = true
	s.mu.Lock()
	s.stats.Late += uint64(n)
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// RepeatEvery writes n samples of t with its previous stack at ts,
// ts+step, ... (see writer.Thread.RepeatEvery), each into the segment
// whose range holds it: a run that crosses boundaries is split there, and
// t's first sample in a segment is written as a full stack. Like
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
	for n > 0 {
		seg := s.route(ts)
		var k int
		switch {
		case seg == nil:
			k = before(ts, step, n, s.nextStart(ts))
			s.late(t, k)
		case s.full():
			k = before(ts, step, n, seg.end)
			s.drop(t, k)
		default:
			k = before(ts, step, n, seg.end)
			if err := t.repeat(seg, ts, step, k, status); err != nil {
				return err
			}
		}
		ts, n = ts+uint64(k)*step, n-k
	}
	return nil
}

// before returns how many of the n samples at ts, ts+step, ... fall before
// end (ts itself does).
func before(ts, step uint64, n int, end uint64) int {
	if step == 0 {
		return n
	}
	k := (end-ts-1)/step + 1
	return int(min(k, uint64(n)))
}

// repeat writes n samples of t's stack into seg, the first as a full
// stack if t has none there yet (or dropped samples since); the rest are
// the segment's writer.Writer's RepeatEvery.
func (t *Thread) repeat(seg *segment, ts, step uint64, n int, status tachyon.Status) error {
	s := t.s
	if t.seg != seg || (len(s.dirty) > 0 && s.dirty[t]) {
		delete(s.dirty, t)
		local, err := s.local(seg, t.stack.Frames())
		if err != nil {
			return err
		}
		if err := t.write(seg, ts, status, local); err != nil {
			return err
		}
		ts, n = ts+step, n-1
	}
	if n == 0 {
		return nil
	}
	if err := t.inner.RepeatEvery(ts, step, n, status); err != nil {
		return err
	}
	s.wrote(seg, ts+uint64(n-1)*step)
	return nil
}

// Flush ends t's pending run in the segment of its latest sample (see
// writer.Thread.Flush). A stack that held still since the last Flush is
// then shared with the threads that have the same.
func (t *Thread) Flush() {
	if t.open() {
		t.inner.Flush()
	}
	if !t.moved && !t.forgotten {
		t.stack = t.s.stacks.Share(t.stack)
	}
	t.moved = false
	t.s.tellFinishing()
}

// Forget tells the Writer that t will write no more samples (see
// writer.Thread.Forget).
func (t *Thread) Forget() {
	s := t.s
	if s.closed || t.forgotten {
		return
	}
	if t.open() {
		t.inner.Forget()
	}
	s.stacks.Drop(t.stack)
	t.forgotten, t.inner, t.seg, t.stack = true, nil, nil, nil
	if t.indexed {
		delete(s.threads, threadKey{t.id, t.interp})
	}
	delete(s.dirty, t)
}

// open reports whether t may write on: the Writer is not closed, t not
// forgotten, and the segment of its latest sample is open.
func (t *Thread) open() bool {
	return !t.s.closed && !t.forgotten && t.seg != nil && !t.seg.handed
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

// local maps a stack of the Writer's frame indices onto seg's, interning
// the frames it has not seen. The result is valid until the next call.
func (s *Writer) local(seg *segment, stack []uint32) ([]uint32, error) {
	s.scratch = s.scratch[:0]
	for _, g := range stack {
		if int(g) >= len(s.frmTab) {
			return nil, s.frameErr(g)
		}
		if int(g) >= len(seg.local) {
			seg.local = growZeroed(seg.local, len(s.frmTab))
		}
		if seg.local[g] == 0 {
			seg.local[g] = seg.w.Frame(s.frmTab[g]) + 1
		}
		s.scratch = append(s.scratch, seg.local[g]-1)
	}
	return s.scratch, nil
}

// checkFrames returns the error of the first index of stack that Frame
// did not return.
func (s *Writer) checkFrames(stack []uint32) error {
	for _, g := range stack {
		if int(g) >= len(s.frmTab) {
			return s.frameErr(g)
		}
	}
	return nil
}

// frameErr is the error of a frame index g that Frame did not return.
func (s *Writer) frameErr(g uint32) error {
	return fmt.Errorf("%w: %d (have %d frames)", writer.ErrFrameIndex, g, len(s.frmTab))
}

// growZeroed returns s extended to length n with zeros, in place when its
// capacity allows (the capacity past its length holds zeros: see next).
func growZeroed(s []uint32, n int) []uint32 {
	if n <= cap(s) {
		return s[:n]
	}
	return append(s, make([]uint32, n-len(s))...)
}
