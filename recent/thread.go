package recent

import (
	"fmt"
	"slices"

	"github.com/gotachyon/profiler/internal/stackset"
	"github.com/gotachyon/profiler/sampler"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// Thread is the handle of one goroutine of a Window (see Window.NewThread),
// valid across chunks: in each chunk it writes through that chunk's
// writer.Writer thread, which it takes at its first sample there, with a
// full stack. Its methods are those of a sampler.Goroutine.
type Thread struct {
	w     *Window
	id    uint64
	stack *stackset.Stack // its latest stack, shared once it holds still
	// inner is its thread in the open chunk's writer once it has a sample
	// there, which holds while gen is the window's.
	inner     *writer.Thread
	gen       uint64
	started   bool
	forgotten bool
	moved     bool // its stack changed since its last Flush
	indexed   bool // made by Window.Thread: kept by id
}

var _ sampler.Goroutine = (*Thread)(nil)

// Write writes one sample of t whose frames are indices the Window's
// Frame returned, innermost first. Stacks deeper than
// tachyon.MaxWriteDepth keep their innermost frames.
func (t *Thread) Write(ts uint64, status tachyon.Status, stack []uint32) error {
	w := t.w
	if err := t.check(); err != nil {
		return err
	}
	if len(stack) > tachyon.MaxWriteDepth {
		stack = stack[:tachyon.MaxWriteDepth]
	}
	w.poll(ts)
	local, err := w.localStack(stack)
	if err != nil {
		return err
	}
	if t.stack == nil || !slices.Equal(t.stack.Frames(), stack) {
		w.ownLen += len(stack) - t.stackLen()
		t.stack = w.stacks.Own(t.stack, stack)
		t.moved = true
	}
	t.started = true
	w.note(ts, ts)
	return w.guard(t.handle().Write(ts, status, local))
}

// RepeatEvery writes n samples of t with its latest stack at ts,
// ts+step, ... (see writer.Thread.RepeatEvery); the first sample in a
// chunk is written with the full stack. It fails with writer.ErrNoStack
// before t's first sample.
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
	w := t.w
	w.poll(ts)
	w.note(ts, ts+uint64(n-1)*step)
	if !t.here() {
		local, err := w.localStack(t.stack.Frames())
		if err != nil {
			return err
		}
		if err := w.guard(t.handle().Write(ts, status, local)); err != nil || n == 1 {
			return err
		}
		ts, n = ts+step, n-1
	}
	return w.guard(t.inner.RepeatEvery(ts, step, n, status))
}

// Flush ends t's pending run in the open chunk (see writer.Thread.Flush).
// A stack that held still since the Flush before is shared from then on
// with the threads that have the same.
func (t *Thread) Flush() {
	if t.check() != nil {
		return
	}
	if t.here() {
		t.inner.Flush()
	}
	if !t.moved {
		t.stack = t.w.stacks.Share(t.stack)
	}
	t.moved = false
}

// Forget says that t's goroutine ended: its state is released.
func (t *Thread) Forget() {
	w := t.w
	if t.check() != nil {
		return
	}
	if t.here() {
		t.inner.Forget()
	}
	w.ownLen -= t.stackLen()
	w.live--
	w.stacks.Drop(t.stack)
	t.forgotten, t.inner, t.stack = true, nil, nil
	if t.indexed {
		delete(w.threads, t.id)
	}
}

// stackLen returns the length of t's latest stack, 0 if none.
func (t *Thread) stackLen() int {
	if t.stack == nil {
		return 0
	}
	return len(t.stack.Frames())
}

// check returns the error that stops t from writing.
func (t *Thread) check() error {
	switch {
	case t.w.stopped:
		return writer.ErrClosed
	case t.w.failed != nil:
		return t.w.failed
	case t.forgotten:
		return writer.ErrForgotten
	}
	return nil
}

// here reports whether t has a sample in the open chunk.
func (t *Thread) here() bool { return t.inner != nil && t.gen == t.w.gen }

// handle returns t's thread in the open chunk, taking it if needed.
func (t *Thread) handle() *writer.Thread {
	if !t.here() {
		t.inner, t.gen = t.w.w.NewThread(t.id, 0), t.w.gen
	}
	return t.inner
}

// note records samples from first to last in the open chunk.
func (w *Window) note(first, last uint64) {
	c := &w.cur
	if first < c.start {
		w.early.Add(1)
		first = c.start
	}
	c.minTS = min(c.minTS, first)
	c.maxTS = max(c.maxTS, last)
}

// guard stops the window on err, the open chunk writer's.
func (w *Window) guard(err error) error {
	if err != nil && w.failed == nil {
		w.fail(err)
	}
	return err
}

// localStack maps a stack of the window's frame indices onto the open
// chunk's, interning the frames the chunk has not seen. The result is
// valid until the next call.
func (w *Window) localStack(stack []uint32) ([]uint32, error) {
	w.scratch = w.scratch[:0]
	for _, g := range stack {
		if int(g) >= len(w.frmTab) {
			return nil, fmt.Errorf("%w: %d (have %d frames)", writer.ErrFrameIndex, g, len(w.frmTab))
		}
		if int(g) >= len(w.local) {
			w.local = growZeroed(w.local, len(w.frmTab))
		}
		if w.local[g] == 0 {
			w.local[g] = w.w.Frame(w.frmTab[g]) + 1
		}
		w.scratch = append(w.scratch, w.local[g]-1)
	}
	return w.scratch, nil
}

// growZeroed returns s extended to length n with zeros.
func growZeroed(s []uint32, n int) []uint32 {
	if n <= cap(s) {
		s = s[:n]
		return s
	}
	return append(s, make([]uint32, n-len(s))...)
}
