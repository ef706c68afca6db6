package reader

import (
	"math/bits"

	"github.com/gotachyon/profiler/tachyon"
)

// The phases of Samples.Next: a record's header and thread, then its
// timestamp and status, then its stack, then the checks on the sample.

// record reads a record header and returns its thread's state (a new one
// for a thread met for the first time) and its encoding, set in the
// current sample.
func (it *Samples) record() (*rthread, tachyon.Encoding, bool) {
	src := it.src
	if !src.fill(tachyon.RecordHeaderSize) {
		return nil, 0, it.fail(it.here(), ERecordTruncated, "sample data ends inside a record header")
	}
	b := src.buf[src.pos:]
	k := threadKey{
		id:     uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 | uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56,
		interp: uint32(b[8]) | uint32(b[9])<<8 | uint32(b[10])<<16 | uint32(b[11])<<24,
	}
	enc := tachyon.Encoding(b[12])
	src.pos += tachyon.RecordHeaderSize
	if enc >= tachyon.NumEncodings {
		return nil, 0, it.fail(it.here()-1, EEncoding, "unknown record encoding %d", uint8(enc))
	}
	t := it.cur
	if t == nil || it.sample.ThreadID != k.id || it.sample.InterpreterID != k.interp {
		if t = it.thread(k); t == nil {
			return nil, 0, false
		}
		it.cur = t
	}
	it.sample.ThreadID, it.sample.InterpreterID = k.id, k.interp
	it.sample.Encoding = enc
	it.stats.Records[enc]++
	return t, enc, true
}

// thread returns thread k's state, adding one if it is new and the header's
// thread count allows; nil after a failure.
func (it *Samples) thread(k threadKey) *rthread {
	if t := it.threads.get(k); t != nil {
		return t
	}
	h := &it.f.Header
	if uint64(it.threads.len()) >= uint64(h.ThreadCount) {
		it.fail(it.recOff, EThreadCount, "more threads than the header's %d", h.ThreadCount)
		return nil
	}
	return it.threads.add(k, h.StartTime)
}

// startRepeat reads a REPEAT record's count and yields its first sample.
func (it *Samples) startRepeat(t *rthread) bool {
	at := it.here()
	n, code := it.src.uvarint()
	if code != "" {
		return it.failField(at, code, "REPEAT count")
	}
	if n == 0 {
		return it.fail(at, ERepeatZero, "REPEAT record with count 0")
	}
	if !t.has {
		return it.fail(it.recOff, ERepeatNoStack, "REPEAT for thread %d/%d, which has no stack yet", t.key.id, t.key.interp)
	}
	it.repeat = n
	return it.nextPair()
}

// A stackEdit is how a SUFFIX or a POP_PUSH record changes the stack: a
// count of frames, checked against the stack's depth, says how many to keep
// (SUFFIX) or to pop (POP_PUSH); then come the frames to push.
type stackEdit struct {
	count, push   string // the two counts, as errors name them
	code, tooMany string // the error when the count exceeds the depth
	pops          bool   // the count is of frames to pop, not to keep
}

var stackEdits = [tachyon.NumEncodings]stackEdit{
	tachyon.Suffix: {count: "SUFFIX shared_count", push: "SUFFIX new_count",
		code: ESharedDepth, tooMany: "SUFFIX keeps %d frames of a %d-frame stack"},
	tachyon.PopPush: {count: "POP_PUSH pop_count", push: "POP_PUSH push_count",
		code: EPopDepth, tooMany: "POP_PUSH pops %d frames of a %d-frame stack", pops: true},
}

// readStack reads the stack part of a FULL, SUFFIX or POP_PUSH record and
// applies it to t's stack.
func (it *Samples) readStack(t *rthread, enc tachyon.Encoding) bool {
	if enc == tachyon.Full {
		return it.pushOn(t, 0, "FULL depth")
	}
	e := &stackEdits[enc]
	at := it.here()
	n, code := it.src.uvarint()
	if code != "" {
		return it.failField(at, code, "%s", e.count)
	}
	depth := uint64(t.depth())
	if n > depth {
		return it.fail(at, e.code, e.tooMany, n, depth)
	}
	if e.pops {
		n = depth - n
	}
	return it.pushOn(t, int(n), e.push)
}

// pushOn reads frames (counted as what) and pushes them on the bottom keep
// frames of t's stack.
func (it *Samples) pushOn(t *rthread, keep int, what string) bool {
	if !it.readFrames(what) {
		return false
	}
	it.sample.Kept = keep
	t.off = len(t.arr) - keep
	t.push(it.scratch)
	return true
}

// yield checks the stack just read and makes it the current sample.
func (it *Samples) yield(t *rthread, enc tachyon.Encoding) bool {
	if !it.withinLimits() {
		return false
	}
	if t.depth() > tachyon.MaxReadDepth {
		return it.fail(it.recOff, EDepth, "stack of %d frames is deeper than the reader's limit %d", t.depth(), tachyon.MaxReadDepth)
	}
	t.has = true
	it.sample.Stack = t.stack()
	it.run = Run{Count: 1, Last: it.sample.Timestamp}
	it.stats.Samples++
	it.stats.SamplesBy[enc]++
	return true
}

// timeStatus reads a (delta, status) pair into the current sample.
func (it *Samples) timeStatus(t *rthread) bool {
	ts, st, ok := it.pair(t)
	if ok {
		it.sample.Timestamp, it.sample.Status = ts, st
	}
	return ok
}

// pair reads a (delta, status) pair and moves t's clock to its timestamp.
func (it *Samples) pair(t *rthread) (uint64, tachyon.Status, bool) {
	at := it.here()
	d, code := it.src.uvarint()
	if code != "" {
		return 0, 0, it.failField(at, code, "timestamp delta")
	}
	ts, carry := bits.Add64(t.ts, d, 0)
	if carry != 0 {
		return 0, 0, it.fail(at, ETimestampOverflow, "thread timestamp %d + delta %d passes 2^64-1", t.ts, d)
	}
	st, ok := it.src.byte1()
	if !ok {
		return 0, 0, it.fail(it.here(), ERecordTruncated, "sample data ends before a status byte")
	}
	t.ts = ts
	return ts, tachyon.Status(st), true
}

// readFrames reads a count and that many frame indices into scratch.
func (it *Samples) readFrames(what string) bool {
	at := it.here()
	n, code := it.src.uvarint()
	if code != "" {
		return it.failField(at, code, "%s", what)
	}
	if n > tachyon.MaxReadDepth {
		return it.fail(at, EDepth, "%s %d is deeper than the reader's limit %d", what, n, tachyon.MaxReadDepth)
	}
	nf := uint64(len(it.f.frames))
	it.scratch = it.scratch[:0]
	for i := uint64(0); i < n; i++ {
		at := it.here()
		v, code := it.src.uvarint()
		if code != "" {
			return it.failField(at, code, "frame index %d of %d", i, n)
		}
		if v >= nf {
			return it.fail(at, EFrameIndex, "frame index %d, but there are %d frames", v, nf)
		}
		it.scratch = append(it.scratch, uint32(v))
	}
	return true
}

// nextPair yields the next sample of the current REPEAT record.
func (it *Samples) nextPair() bool {
	ts, st, ok := it.pair(it.cur)
	if !ok {
		return false
	}
	return it.yieldPair(ts, st)
}

// yieldPair makes the REPEAT record's sample at ts with status st the
// current sample.
func (it *Samples) yieldPair(ts uint64, st tachyon.Status) bool {
	if !it.withinLimits() {
		return false
	}
	it.repeat--
	it.sample.Timestamp, it.sample.Status = ts, st
	it.sample.Stack = it.cur.stack()
	it.sample.Kept = len(it.sample.Stack)
	it.stats.Samples++
	it.stats.SamplesBy[tachyon.Repeat]++
	it.run = Run{Count: 1, Last: ts}
	return true
}

// A zstd sample region can expand a few kilobytes into billions of
// samples, and verifying them would take minutes. Past freeSamples, a
// compressed region may hold at most maxSamplesPerByte samples per byte read
// so far: above the writer's worst case (one goroutine parked for the whole
// profile, 1,700 samples per byte: zstd's block overhead caps the ratio;
// a realistic profile has a few hundred), below a bomb's 16,000 and more.
const (
	freeSamples       = 1 << 20
	maxSamplesPerByte = 4096
)

// paceEvery+1 is how often, in samples, the bound above is checked.
const paceEvery = 1<<16 - 1

// withinLimits checks the sample about to be returned against the header's
// count and, every paceEvery+1 samples, a zstd region's samples against
// the compressed bytes read so far: a bomb ends after its first free
// samples, not after the bound for the whole region (a billion samples for
// 262 KB). The count of bytes read runs ahead of the decoder, in the
// file's favour. It fails the iteration and returns false past either.
func (it *Samples) withinLimits() bool {
	if h := it.f.Header; it.stats.Samples >= uint64(h.SampleCount) {
		return it.fail(it.recOff, ESampleCount, "records hold more samples than the header's %d", h.SampleCount)
	}
	in := it.src.in
	if in == nil || it.stats.Samples&paceEvery != 0 || it.stats.Samples <= freeSamples+maxSamplesPerByte*uint64(in.n) {
		return true
	}
	off, n := it.f.SampleRegion()
	return it.fail(off, EZstd, "the first %d bytes of the %d-byte compressed sample region hold more than %d samples (%d per compressed byte past the first %d): a decompression bomb? The reader accepts no more",
		in.n, n, it.stats.Samples, maxSamplesPerByte, freeSamples)
}

// failField fails the read of a varint field, which format and args name,
// at at: code says whether the varint is malformed (EVarint) or the data
// ends inside it (ERecordTruncated).
func (it *Samples) failField(at int64, code, format string, args ...any) bool {
	if code == EVarint {
		return it.fail(at, code, format+" is not a valid varint (longer than 10 bytes, or past 64 bits)", args...)
	}
	return it.fail(at, code, "sample data ends inside the "+format, args...)
}
