package writer

import (
	"encoding/binary"
	"math"
	"runtime"

	"github.com/gotachyon/profiler/internal/chunked"
	"github.com/gotachyon/profiler/tachyon"
)

// A ThreadNo is the number of a thread in a Writer (NewThreadNo), from
// one: what a caller keeps for each thread instead of a *Thread handle,
// where the memory per thread counts, as in a sampler's record of each of
// a million goroutines, which can lie off the Go heap as a number can and
// a handle cannot. 0 is no thread.
type ThreadNo uint32

// NewThreadNo is NewThread for a caller that keeps numbers: it returns the
// number of a new thread (thread id, interpreter id), for WriteNo,
// RepeatEveryNo, FlushNo and ForgetNo, which do what Thread's methods of
// the same names do, and RepeatFlushNo. The Writer keeps numbered threads' records in chunks
// of its own, by number, off the Go heap, so that such a thread costs its
// record alone: no handle, no entry in a list of threads, nothing the
// collector scans or counts. As with NewThread, the caller asks once per
// thread.
//
// A number is the caller's to use until it passes it to ForgetNo: the
// Writer then gives it to the next new thread. A number the Writer did
// not give out, or one forgotten and not yet given again, makes the
// methods return ErrForgotten, or do nothing; after Close they return
// ErrClosed, and after Reset the numbers start again. Close gives the
// records' memory back.
func (w *Writer) NewThreadNo(id uint64, interp uint32) ThreadNo {
	if w.nums == nil {
		w.nums = &numbers{}
		w.nums.recs.Mapped = true
		runtime.AddCleanup(w, (*numbers).release, w.nums)
	}
	var n ThreadNo
	if k := len(w.freeNos); k > 0 {
		n = w.freeNos[k-1]
		w.freeNos = w.freeNos[:k-1]
	} else {
		n = ThreadNo(w.nums.recs.Grow() + 1)
	}
	w.initThread(w.nums.recs.At(uint32(n)-1), id, interp)
	return n
}

// numbers holds the records of a Writer's numbered threads, by number less
// one, in chunks off the Go heap (chunked.Array.Mapped): a record holds no
// pointer. They go back at Close, as the numbers are void after it, or,
// for a Writer dropped without Close, once the collector finds the Writer
// unreachable (runtime.AddCleanup).
type numbers struct {
	recs chunked.Array[thread]
}

// release gives the records' chunks back: no record may be used after.
// The records are empty and ready again.
func (n *numbers) release() { n.recs.Release() }

// WriteNo is Thread.Write for thread n.
func (w *Writer) WriteNo(n ThreadNo, ts uint64, status tachyon.Status, stack []uint32) error {
	return w.write(w.numbered(n), nil, ts, status, stack)
}

// RepeatEveryNo is Thread.RepeatEvery for thread n.
func (w *Writer) RepeatEveryNo(n ThreadNo, ts, step uint64, count int, status tachyon.Status) error {
	return w.repeatEvery(w.numbered(n), ts, step, count, status)
}

// FlushNo is Thread.Flush for thread n.
func (w *Writer) FlushNo(n ThreadNo) { w.flush(w.numbered(n)) }

// RepeatFlushNo is RepeatEveryNo, then FlushNo if it returned no error,
// for thread n: a batch's last run, in one call. A run of a thread with
// nothing pending that goes on where its last sample left off (a parked
// goroutine's ticks since its last batch) goes straight into a record.
func (w *Writer) RepeatFlushNo(n ThreadNo, ts, step uint64, count int, status tachyon.Status) error {
	t := w.numbered(n)
	if t.tail.n == 0 && t.pairs == 0 && count > 0 && count < MaxRunBytes/tailPairBytes && step < 1<<28 &&
		ts >= t.lastTS && ts-t.lastTS == step && t.started() && w.check(t) == nil &&
		uint64(count) <= math.MaxUint32-w.stats.Samples {
		// As repeatEvery, then flush: the pair (a step of four bytes at
		// most, and the status) is the tail, written at once.
		t.tail.len = uint8(len(append(binary.AppendUvarint(t.tail.pair[:0], step), byte(status))))
		t.tail.n = uint16(count)
		t.lastTS += uint64(count) * step
		w.stats.Samples += uint64(count)
		w.runRecord(t, count)
		t.tail.n = 0
		w.share(t)
		return nil
	}
	if err := w.repeatEvery(t, ts, step, count, status); err != nil {
		return err
	}
	w.flush(t)
	return nil
}

// ForgetNo is Thread.Forget for thread n, whose number goes to the next
// new thread.
func (w *Writer) ForgetNo(n ThreadNo) {
	t := w.numbered(n)
	if t == &noThread || w.closed || t.forgotten() {
		return
	}
	w.forget(t)
	w.freeNos = append(w.freeNos, n)
}

// noThread is the record of a number that names no thread: forgotten, so
// that every method refuses it before it would change it.
var noThread = thread{stack: forgottenRef}

// numbered returns thread n's record, &noThread if n names none.
func (w *Writer) numbered(n ThreadNo) *thread {
	if w.nums == nil || n == 0 || uint32(n) > w.nums.recs.Len() {
		return &noThread
	}
	return w.nums.recs.At(uint32(n) - 1)
}

// eachThread calls f with every thread that may have started: those of
// handles in order of first sample, then the numbered ones by number.
func (w *Writer) eachThread(f func(*thread)) {
	for i := range w.order.Len() {
		f(&(*w.order.At(i)).thread)
	}
	if w.nums != nil {
		for i := range w.nums.recs.Len() {
			f(w.nums.recs.At(i))
		}
	}
}
