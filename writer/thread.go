package writer

import (
	"encoding/binary"
	"errors"
	"math"

	"github.com/gotachyon/profiler/tachyon"
)

// Errors of the thread-handle API.
var (
	// ErrNoStack is returned by Repeat and RepeatEvery for a thread that
	// has no sample yet.
	ErrNoStack = errors.New("writer: Repeat before the thread's first sample")
	// ErrForgotten is returned for a handle passed to Forget.
	ErrForgotten = errors.New("writer: thread was forgotten")
)

// Thread returns the handle of a thread (thread id, interpreter id),
// creating its state if needed. A caller that writes many samples per
// thread, such as a sampler keeping one handle per goroutine, saves a lookup
// per sample with its Write and Repeat. A thread counts in the header
// only once it has written a sample. Handles stay valid until Close or
// Forget.
func (w *Writer) Thread(id uint64, interp uint32) *Thread {
	t := w.lookup(id, interp)
	if t == nil {
		t = w.NewThread(id, interp)
		if w.threads[id] == nil {
			w.threads[id] = t
		} else {
			if w.others == nil {
				w.others = make(map[threadKey]*Thread)
			}
			w.others[threadKey{id, interp}] = t
		}
	}
	return t
}

// NewThread returns a new handle of a thread (thread id, interpreter id)
// that the Writer does not keep by id, as Thread does: for a caller that
// holds each thread's handle for as long as it writes the thread (a
// sampler, one per goroutine), so that the Writer holds no index entry
// per thread. The caller asks once per thread: another handle of the same
// thread, from NewThread or Thread, or a Write of it, would encode its
// samples as a second thread of the same id, and the file would give
// wrong stacks for that id. Reset does not keep the records of such
// threads for reuse.
func (w *Writer) NewThread(id uint64, interp uint32) *Thread {
	t := w.newThread(id, interp)
	t.w = w
	return t
}

// ID returns the thread id t was made for.
func (t *Thread) ID() uint64 { return t.id }

// Repeat writes a sample of t with the same stack as t's previous sample:
// the cheapest way in, for a thread the caller knows has not moved. It costs
// one (delta, status) pair in the thread's pending run.
func (t *Thread) Repeat(ts uint64, status tachyon.Status) error {
	return t.w.repeat(&t.thread, ts, status)
}

// repeat is Thread.Repeat for t.
func (w *Writer) repeat(t *thread, ts uint64, status tachyon.Status) error {
	if err := w.check(t); err != nil {
		return err
	}
	if !t.started() {
		return ErrNoStack
	}
	w.stats.Samples++
	w.appendPair(t, ts, status)
	return w.err
}

// RepeatEvery writes n samples of t with the same stack as t's previous
// sample and the same status, at ts, ts+step, ..., ts+(n-1)*step: what a
// wall-clock sampler writes for a goroutine that stayed parked for n ticks.
// It costs a copy of a few bytes per sample, however large n is. n <= 0
// writes nothing. Like Repeat, it fails with ErrNoStack before t's first
// sample; if the file's sample limit is reached, it writes what fits and
// returns ErrTooManySamples.
func (t *Thread) RepeatEvery(ts, step uint64, n int, status tachyon.Status) error {
	return t.w.repeatEvery(&t.thread, ts, step, n, status)
}

// repeatEvery is Thread.RepeatEvery for t.
func (w *Writer) repeatEvery(t *thread, ts, step uint64, n int, status tachyon.Status) error {
	if n <= 0 {
		return nil
	}
	if err := w.check(t); err != nil {
		return err
	}
	if !t.started() {
		return ErrNoStack
	}
	var full error
	if left := math.MaxUint32 - w.stats.Samples; uint64(n) > left {
		n, full = int(left), ErrTooManySamples
	}
	// The first sample's delta is from t's clock; the others are all step.
	// A thread that goes on where its last sample left off (a parked
	// goroutine's next ticks) has step for the first too: one run of n.
	if ts >= t.lastTS && ts-t.lastTS == step {
		w.appendRun(t, step, n, status)
	} else {
		w.stats.Samples++
		w.appendPair(t, ts, status)
		if n--; n > 0 && w.err == nil {
			w.appendRun(t, step, n, status)
		}
	}
	if w.err != nil {
		return w.err
	}
	return full
}

// appendRun adds n identical (step, status) pairs to t's pending run.
func (w *Writer) appendRun(t *thread, step uint64, n int, status tachyon.Status) {
	var pb [binary.MaxVarintLen64 + 1]byte
	t.lastTS += uint64(n) * step
	w.stats.Samples += uint64(n)
	w.appendPairs(t, append(binary.AppendUvarint(pb[:0], step), byte(status)), n)
}

// Flush writes t's pending REPEAT run now, as one record. A caller
// that writes a thread's samples in batches (a sampler, once a second)
// flushes each batch's run, so that the thread's buffer keeps its size and
// is reused instead of growing across batches; the samples are the same.
// Until its stack changes again, the thread then shares its previous stack
// with the threads that have the same, and holds no buffer of its own.
func (t *Thread) Flush() { t.w.flush(&t.thread) }

// flush is Thread.Flush for t.
func (w *Writer) flush(t *thread) {
	if w.closed || t.forgotten() {
		return
	}
	w.flushRun(t)
	w.share(t)
}

// Forget tells the writer that t will write no more samples (a goroutine
// that ended): its pending run is written now and its memory released, so
// that a long profile of short-lived goroutines keeps bounded state. The
// thread id must not be used again in this file, or the header would count
// it twice; goroutine ids are never reused, so a sampler may forget every
// goroutine that exits.
func (t *Thread) Forget() {
	w := t.w
	if !w.forget(&t.thread) {
		return
	}
	// Drop forgotten threads from order once they are half of it.
	if w.forgotten++; w.forgotten > int(w.order.Len())/2 {
		live := uint32(0)
		for i := range w.order.Len() {
			if o := *w.order.At(i); !o.forgotten() {
				*w.order.At(live) = o
				live++
			}
		}
		w.order.Truncate(live)
		w.forgotten = 0
	}
}

// forget is Thread.Forget for t, but for t's place in order; it reports
// whether t had started, and so has one.
func (w *Writer) forget(t *thread) bool {
	if w.closed || t.forgotten() {
		return false
	}
	w.flushRun(t)
	w.dropPairs(t)
	w.unindex(t)
	started := t.started()
	w.dropStack(t)
	t.stack = forgottenRef
	return started
}

// check returns the error that stops t from writing another sample.
func (w *Writer) check(t *thread) error {
	switch {
	case w.closed:
		return ErrClosed
	case w.err != nil:
		return w.err
	case t.forgotten():
		return ErrForgotten
	case w.stats.Samples >= math.MaxUint32:
		return ErrTooManySamples
	}
	return nil
}

// start records t's first sample, which sets its stack; h is t's handle,
// nil for a numbered thread, which is in nums by its number.
func (w *Writer) start(t *thread, h *Thread) {
	w.nthreads++
	if h != nil {
		*w.order.At(w.order.Grow()) = h
	}
}

// interp returns t's interpreter id.
func (w *Writer) interp(t *thread) uint32 {
	if len(w.interps) == 0 {
		return 0
	}
	return w.interps[t]
}

// unindex drops t from the Writer's maps: by id, if Thread made it, and
// of interpreter ids.
func (w *Writer) unindex(t *thread) {
	if h := w.threads[t.id]; h != nil && &h.thread == t {
		delete(w.threads, t.id)
	} else if len(w.others) > 0 {
		if k := (threadKey{t.id, w.interp(t)}); w.others[k] != nil && &w.others[k].thread == t {
			delete(w.others, k)
		}
	}
	if len(w.interps) > 0 {
		delete(w.interps, t)
	}
}
