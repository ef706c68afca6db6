package writer

import (
	"bytes"
	"encoding/binary"

	"github.com/gotachyon/profiler/tachyon"
)

// A thread's pending run: the samples of a REPEAT record not yet written,
// as (delta, status) pairs and a tail of copies of its last pair. The
// pairs lie in buffers taken from a free list while a run has two
// different pairs, and a queue of the threads holding them, oldest run
// first, bounds their bytes (Options.MaxPendingBytes).

// pairsState holds the pairs of a thread's pending run that precede its
// tail, taken with its buffer when the run first has two different pairs
// and given back when the run is written.
type pairsState struct {
	buf []byte // (delta varint, status) pairs
	n   uint32 // the pairs in buf
	no  uint32 // its number in Writer.pairsTab
	// queue of threads holding pairs, oldest run first
	prev, next *thread
}

// appendPair adds one sample to t's pending REPEAT run.
func (w *Writer) appendPair(t *thread, ts uint64, status tachyon.Status) {
	var pb [binary.MaxVarintLen64 + 1]byte
	w.appendPairs(t, append(binary.AppendUvarint(pb[:0], t.delta(ts)), byte(status)), 1)
}

// appendPairs adds n copies of one (delta, status) pair to t's pending run,
// flushing the run at MaxRunBytes and the oldest runs above
// MaxPendingBytes. Copies of the run's last pair only extend its tail; a
// different pair first expands the tail into the pairs buffer.
func (w *Writer) appendPairs(t *thread, pair []byte, n int) {
	pl := len(pair)
	if n > 0 && t.tail.n == 0 && t.pairs == 0 && pl <= tailPairBytes && n*pl < MaxRunBytes {
		// A run begun afresh that fits one record, such as a parked
		// goroutine's ticks since its last settle: the tail holds it
		// all, and no buffer is taken.
		copy(t.tail.pair[:], pair)
		t.tail.len, t.tail.n = uint8(pl), uint16(n)
		w.capPending()
		return
	}
	for n > 0 {
		k := min(n, (MaxRunBytes-w.runBytes(t)+pl-1)/pl)
		if k <= 0 {
			w.flushRun(t)
			continue
		}
		if t.tail.n > 0 && !bytes.Equal(t.tail.bytes(), pair) {
			w.expandTail(t)
		}
		if pl > tailPairBytes {
			w.appendLong(t, pair, k)
			n -= k
			continue
		}
		if t.tail.n == 0 {
			t.tail.len = uint8(copy(t.tail.pair[:], pair))
		}
		t.tail.n += uint16(k)
		n -= k
		if w.runBytes(t) >= MaxRunBytes {
			w.flushRun(t)
		}
		w.capPending()
	}
}

// appendLong appends k copies of a pair too long for a tail to t's pairs
// buffer, whose tail is empty, and writes the run at MaxRunBytes.
func (w *Writer) appendLong(t *thread, pair []byte, k int) {
	w.roomForPairs(t, k*len(pair))
	p := w.pairsOf(t)
	for range k {
		p.buf = append(p.buf, pair...)
	}
	p.n += uint32(k)
	if w.runBytes(t) >= MaxRunBytes {
		w.flushRun(t)
	}
	w.capPending()
}

// expandTail moves t's tail into its pairs buffer.
func (w *Writer) expandTail(t *thread) {
	w.roomForPairs(t, t.tail.size())
	p := w.pairsOf(t)
	p.buf = t.tail.appendTo(p.buf)
	p.n += uint32(t.tail.n)
	t.tail.n = 0
}

// roomForPairs gives t a pairs buffer with room for n more bytes.
func (w *Writer) roomForPairs(t *thread, n int) {
	if t.pairs == 0 {
		w.growPairs(t, n)
	} else if need := n + len(w.pairsOf(t).buf); need > cap(w.pairsOf(t).buf) {
		w.growPairs(t, need)
	}
}

// capPending writes the oldest pending runs while the buffers they hold are
// above Options.MaxPendingBytes.
func (w *Writer) capPending() {
	for w.pendingBytes > w.opts.MaxPendingBytes && w.head != nil {
		w.flushRun(w.head)
	}
}

// growPairs gives t a pairs buffer of at least need bytes (and twice the
// old one), from the free list when it can: one step, however large the
// growth. pendingBytes counts the capacity the threads hold, not the bytes
// they use.
func (w *Writer) growPairs(t *thread, need int) {
	if t.pairs == 0 {
		p := w.takeBuf(max(need, minPairsCap))
		t.pairs = p.no
		w.pendingBytes += cap(p.buf)
		w.enqueue(t)
		return
	}
	old := w.pairsOf(t)
	p := w.takeBuf(max(need, 2*cap(old.buf)))
	p.buf = append(p.buf, old.buf...)
	w.pendingBytes += cap(p.buf) - cap(old.buf)
	old.buf, p.buf = p.buf, old.buf // old keeps its place in the queue
	w.release(p)
}

// Bounds of the free list of pairs buffers.
const (
	minPairsCap  = 64
	maxFreeBufs  = 256
	maxFreeBytes = 1 << 20
)

// takeBuf returns a pairs state with an empty buffer of at least need
// bytes, from the free list when one is large enough.
func (w *Writer) takeBuf(need int) *pairsState {
	for i := len(w.freeBufs) - 1; i >= 0; i-- {
		if p := w.freeBufs[i]; cap(p.buf) >= need {
			w.freeBufs[i] = w.freeBufs[len(w.freeBufs)-1]
			w.freeBufs[len(w.freeBufs)-1] = nil
			w.freeBufs = w.freeBufs[:len(w.freeBufs)-1]
			w.freeBytes -= cap(p.buf)
			return p
		}
	}
	p := &pairsState{buf: make([]byte, 0, need)}
	if k := len(w.freePairs); k > 0 {
		p.no = w.freePairs[k-1]
		w.freePairs = w.freePairs[:k-1]
	} else {
		if len(w.pairsTab) == 0 {
			w.pairsTab = append(w.pairsTab, nil) // 0 is no pairs
		}
		p.no = uint32(len(w.pairsTab))
		w.pairsTab = append(w.pairsTab, nil)
	}
	w.pairsTab[p.no] = p
	return p
}

// release keeps a pairs state and its buffer for reuse, within the free
// list's bounds.
func (w *Writer) release(p *pairsState) {
	if len(w.freeBufs) >= maxFreeBufs || w.freeBytes+cap(p.buf) > maxFreeBytes {
		w.pairsTab[p.no] = nil
		w.freePairs = append(w.freePairs, p.no)
		return
	}
	p.buf, p.n = p.buf[:0], 0
	w.freeBufs = append(w.freeBufs, p)
	w.freeBytes += cap(p.buf)
}

// flushRun writes t's pending run, if any, as one REPEAT record, and gives
// its pairs back: a thread holds them only while it has a pending run of
// several pairs, so that 10,000 parked goroutines written once a second
// share a few buffers. The tail is expanded straight into the record
// buffer, or with compression marked there (runs.go).
func (w *Writer) flushRun(t *thread) {
	pending := w.pending(t)
	if pending == 0 {
		return
	}
	w.runRecord(t, pending)
	t.tail.n = 0
	w.dropPairs(t)
}

// runRecord writes t's pending run, of pending samples, as one REPEAT
// record: its pairs, then its tail, expanded or marked.
func (w *Writer) runRecord(t *thread, pending int) {
	n, mark := w.runBytes(t), w.markable(t)
	if mark {
		n -= t.tail.size()
	}
	w.reserve(tachyon.RecordHeaderSize + binary.MaxVarintLen64 + n)
	b := w.recordHeader(t, tachyon.Repeat)
	b = binary.AppendUvarint(b, uint64(pending))
	if t.pairs != 0 {
		b = append(b, w.pairsOf(t).buf...)
	}
	if mark {
		w.buf = w.markTail(b, t)
	} else {
		w.buf = t.tail.appendTo(b)
	}
	w.stats.Records[tachyon.Repeat]++
}

// dropPairs gives t's pairs back.
func (w *Writer) dropPairs(t *thread) {
	if t.pairs == 0 {
		return
	}
	p := w.pairsOf(t)
	w.dequeue(t)
	t.pairs = 0
	w.pendingBytes -= cap(p.buf)
	w.release(p)
}

// enqueue puts t, which has just taken pairs, at the end of the queue.
func (w *Writer) enqueue(t *thread) {
	p := w.pairsOf(t)
	p.prev, p.next = w.tail, nil
	if w.tail != nil {
		w.pairsOf(w.tail).next = t
	} else {
		w.head = t
	}
	w.tail = t
}

func (w *Writer) dequeue(t *thread) {
	p := w.pairsOf(t)
	if p.prev != nil {
		w.pairsOf(p.prev).next = p.next
	} else {
		w.head = p.next
	}
	if p.next != nil {
		w.pairsOf(p.next).prev = p.prev
	} else {
		w.tail = p.prev
	}
	p.prev, p.next = nil, nil
}
