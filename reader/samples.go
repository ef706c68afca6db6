package reader

import (
	"fmt"

	"github.com/gotachyon/profiler/tachyon"
)

// Sample is one decoded sample. Stack holds frame-table indices, innermost
// first; it is only valid until the next call to Samples.Next.
type Sample struct {
	ThreadID      uint64
	InterpreterID uint32
	Timestamp     uint64 // microseconds: header start time plus the thread's deltas
	Status        tachyon.Status
	Stack         []uint32
	// Encoding is the type of the record this sample came from.
	Encoding tachyon.Encoding
	// Kept is how many of Stack's outermost frames, Stack[len(Stack)-Kept:],
	// the record carried over from its thread's previous sample: all of
	// them for a REPEAT record, those a SUFFIX record shares or a POP_PUSH
	// record does not pop, none for a FULL record. Those frames are the
	// previous sample's outermost ones, at the same depths; the frames a
	// record pushes may equal some it popped. An exporter that keeps a
	// thread's previous stack (a call-tree walk, a prefix hash) can start
	// from them and pay for the frames that change, not the stack's depth.
	Kept int
}

// Stats counts what an iteration has decoded so far.
type Stats struct {
	Samples uint64
	Threads int
	// Records counts records by encoding (indexed by tachyon.Encoding).
	Records [tachyon.NumEncodings]uint64
	// SamplesBy counts samples by the encoding of their record.
	SamplesBy [tachyon.NumEncodings]uint64
	// DecodedBytes is the size of the (decompressed) sample records.
	DecodedBytes int64
}

// Samples iterates over a file's samples in file order. Use it as
//
//	it := f.Samples()
//	defer it.Close()
//	for it.Next() {
//		s := it.Sample()
//		...
//	}
//	if err := it.Err(); err != nil { ... }
//
// At the end of the records it checks the header's sample and thread counts,
// so an iteration that ends without error has validated the whole file.
//
// Close the iterator before its File. An iterator whose File is closed
// first never faults: it may still yield the samples already in its buffer
// (a heap copy, or for NewFileBytes at most one chunk of the caller's
// bytes), then Next returns false and Err returns ErrClosed.
type Samples struct {
	f       *File
	src     *source
	threads *threadTable
	cur     *rthread
	sample  Sample
	repeat  uint64 // samples left in the current REPEAT record
	run     Run    // the current sample's run (see NextRun)
	// held is a REPEAT sample NextRun decoded past the end of its run,
	// the next to be yielded.
	held       bool
	heldTS     uint64
	heldStatus tachyon.Status
	scratch    []uint32
	stats      Stats
	recOff     int64 // stream offset of the current record
	err        error
	done       bool
}

// Samples returns an iterator over the samples in file order. After Close
// the iterator yields nothing and its Err returns ErrClosed.
func (f *File) Samples() *Samples {
	it := &Samples{f: f, threads: newThreadTable()}
	src, err := f.newSource()
	if err != nil {
		it.err, it.done = err, true
		return it
	}
	it.src = src
	return it
}

// Close releases the iterator's decompressor. It is safe to call more than
// once, and unnecessary after Next has returned false. An iteration closed
// before its end is over: Next returns false and Err returns ErrClosed.
func (it *Samples) Close() {
	if !it.done {
		it.err, it.done = ErrClosed, true
	}
	if it.src != nil {
		it.src.close()
	}
}

// Err returns the first error met: nil after a clean end and while the
// iteration goes on, ErrClosed (maybe wrapped, with the offset reached)
// once the iterator or its File has been closed before the end. An Err
// that finds the File closed ends the iteration, so Next agrees with it.
func (it *Samples) Err() error {
	if !it.done && it.f.life.err() != nil {
		it.Close()
	}
	return it.err
}

// Stats returns the counts decoded so far. It reads only the iterator's
// own counters, so it works after Close too.
func (it *Samples) Stats() Stats {
	s := it.stats
	s.Threads = it.threads.len()
	return s
}

// Sample returns the current sample; it is overwritten by the next call to
// Next. After Close it still returns the last sample, held by the iterator.
func (it *Samples) Sample() *Sample { return &it.sample }

// Frames appends the current sample's resolved frames to dst. It works
// after Close too: the frame and string tables are heap copies.
func (it *Samples) Frames(dst []tachyon.Frame) []tachyon.Frame {
	for _, i := range it.sample.Stack {
		dst = append(dst, it.f.Frame(i))
	}
	return dst
}

// here returns the stream offset of the next unread byte.
func (it *Samples) here() int64 { return it.src.base + int64(it.src.pos) }

// fail records a format error at stream offset at, inside the record that
// starts at recOff.
func (it *Samples) fail(at int64, code, format string, args ...any) bool {
	off, _ := it.f.SampleRegion()
	var e *FormatError
	where := fmt.Sprintf(" (record at %d)", off+it.recOff)
	if it.src.zstd {
		where = fmt.Sprintf(" (record at decompressed byte %d)", it.recOff)
		if at == it.recOff {
			where = "" // the decompressed byte Error gives is the record's
		}
		e = formatErr(off, code, format+where, args...).(*FormatError)
		e.Decompressed = at
	} else {
		e = formatErr(off+at, code, format+where, args...).(*FormatError)
	}
	if se := it.src.streamErr(off); se != nil {
		it.err = se
	} else {
		it.err = e
	}
	it.done = true
	it.Close()
	return false
}

// Next decodes the next sample; it returns false at the end or on error,
// and after Close (see Samples for an iterator whose File is closed).
func (it *Samples) Next() bool {
	if it.done {
		return false
	}
	if it.held {
		it.held = false
		return it.yieldPair(it.heldTS, it.heldStatus)
	}
	if it.repeat > 0 {
		return it.nextPair()
	}
	it.recOff = it.here()
	if it.src.atEnd() {
		return it.finish()
	}
	t, enc, ok := it.record()
	switch {
	case !ok:
		return false
	case enc == tachyon.Repeat:
		return it.startRepeat(t)
	case !it.timeStatus(t) || !it.readStack(t, enc):
		return false
	}
	return it.yield(t, enc)
}

// finish checks the totals once the records are exhausted.
func (it *Samples) finish() bool {
	it.done = true
	off, _ := it.f.SampleRegion()
	it.src.live() // a Close after the last refill ends the iteration too
	if err := it.src.streamErr(off); err != nil {
		it.err = err
	} else if h := it.f.Header; it.stats.Samples != uint64(h.SampleCount) {
		it.err = formatErr(24, ESampleCount, "header sample count %d, records hold %d", h.SampleCount, it.stats.Samples)
	} else if it.threads.len() != int(h.ThreadCount) {
		it.err = formatErr(28, EThreadCount, "header thread count %d, records hold %d distinct threads", h.ThreadCount, it.threads.len())
	}
	it.stats.DecodedBytes = it.src.base + int64(it.src.pos)
	it.Close()
	return false
}

// Verify decodes every sample and reports the first problem: the strict
// validation of the whole file. After Close it returns ErrClosed.
func (f *File) Verify() error {
	it := f.Samples()
	defer it.Close()
	for it.Next() {
	}
	return it.Err()
}
