package writer

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/klauspost/compress/zstd"

	"github.com/gotachyon/profiler/internal/chunked"
	"github.com/gotachyon/profiler/internal/zstdrun"
	"github.com/gotachyon/profiler/tachyon"
)

// Sizes that bound the writer's memory; see the package documentation.
const (
	// BufferSize is the size of the record buffer handed to the file or the
	// compressor when full.
	BufferSize = 512 << 10
	// MaxRunBytes is the size at which one thread's pending REPEAT run is
	// written out.
	MaxRunBytes = 16 << 10
	// DefaultMaxPendingBytes caps the pending runs of all threads together.
	DefaultMaxPendingBytes = 4 << 20
	// ZstdLevel is the zstd level the writer asks klauspost/compress for.
	ZstdLevel = 5
	// ZstdWindow is the zstd window size; it bounds the encoder's memory.
	ZstdWindow = 128 << 10
)

// Errors returned by the Writer.
var (
	// ErrClosed is returned by calls on a closed Writer.
	ErrClosed = errors.New("writer: writer is closed")
	// ErrTooManySamples is returned once the header's 32-bit sample count
	// would overflow.
	ErrTooManySamples = errors.New("writer: the file is full: a Tachyon file holds at most 2^32-1 samples; write a longer profile as several files")
	// ErrFrameIndex is returned by WriteStack and Thread.Write for an index
	// that Frame did not return.
	ErrFrameIndex = errors.New("writer: frame index out of range")
)

// Sample is one observation of one thread.
type Sample struct {
	ThreadID      uint64
	InterpreterID uint32
	Timestamp     uint64 // microseconds, same clock as Options.StartTime
	Status        tachyon.Status
	Frames        []tachyon.Frame
}

// Options configure a Writer. The zero value means: start time 0, interval
// 0, no compression, default bounds.
type Options struct {
	StartTime   uint64 // microseconds; the header's start time
	Interval    uint64 // microseconds; the header's sample interval
	Compression tachyon.Compression
	// MaxPendingBytes caps all pending REPEAT runs together; 0 means
	// DefaultMaxPendingBytes.
	MaxPendingBytes int
}

// Stats counts what a Writer has written so far.
type Stats struct {
	Samples uint64
	Threads int
	Strings int
	Frames  int
	// Records counts records by encoding (indexed by tachyon.Encoding).
	Records [tachyon.NumEncodings]uint64
	// RunFrames counts the zstd frames written from record buffers that
	// were mostly runs, by internal/zstdrun instead of the stream's
	// encoder (see the package documentation).
	RunFrames uint64
}

type frameKey struct {
	file, fn uint32
	line     int32
}

// Thread is a handle on one thread's encoder state (see Writer.Thread).
type Thread struct {
	w *Writer // the Writer whose Thread made it
	thread
}

// thread is a thread's encoder state, the record of a numbered thread
// (numbered.go) or a handle's. It holds no pointer, so that the records of
// numbered threads can lie off the Go heap: its previous stack and the
// pairs of its pending run are numbers in the Writer's tables (stackBufs,
// pairsTab). A thread whose pending run repeats one (delta, status) pair,
// and that was flushed since its stack last changed, holds its id, clock,
// run and a reference to its previous stack only, shared with every such
// thread that has the same (see stackTab): 32 bytes (TestThreadSize). What
// few threads need lives beside the record: an interpreter id other than 0
// in Writer.interps, whether the Writer keeps the thread by id in its maps.
type thread struct {
	id     uint64
	lastTS uint64
	// stack is the number of the previous stack (stackRef).
	stack stackRef
	// the pending REPEAT run: the number of its pairs (Writer.pairsTab),
	// if the run has other pairs before its tail, 0 if not; then the tail
	// (Writer.pending counts its samples)
	pairs uint32
	tail  tail
}

// started reports whether t has written a sample.
func (t *thread) started() bool { return t.stack != noRef }

// forgotten reports whether t was passed to Forget.
func (t *thread) forgotten() bool { return t.stack == forgottenRef }

// owned reports whether t's stack is its own buffer, not a shared copy.
func (w *Writer) owned(t *thread) bool { return t.stack >= firstRef && w.stackBufs[t.stack].own }

// pending counts the samples of t's pending run.
func (w *Writer) pending(t *thread) int {
	n := int(t.tail.n)
	if t.pairs != 0 {
		n += int(w.pairsOf(t).n)
	}
	return n
}

// prev returns t's previous stack.
func (w *Writer) prev(t *thread) []uint32 {
	if t.stack < firstRef {
		return nil
	}
	return w.stackBufs[t.stack].s
}

// threadKey names a thread that shares its thread id with another
// interpreter's (Writer.others).
type threadKey struct {
	id     uint64
	interp uint32
}

// Writer streams samples into a Tachyon v2 file. It is not safe for
// concurrent use, but for Finishing.
type Writer struct {
	dst  io.WriteSeeker
	base int64 // offset of the header in dst
	cw   countWriter
	zw   *zstd.Encoder
	// zwOpen says zw has begun a frame (runs.go: frames of runs go
	// between its frames)
	zwOpen bool
	runs   *zstdrun.Encoder // for record buffers of runs; made at first use
	// par compresses the profile's end on every core once finishing is
	// set (Finishing); nil before.
	par       *parallel
	finishing atomic.Bool
	closer    io.Closer // set by Create
	opts      Options

	buf     []byte
	tails   []mark // tails that belong in buf, not expanded (runs.go)
	exp     []byte // buf expanded, in pieces, for the compressed stream
	strings map[string]uint32
	strTab  []string
	// The tables hold only what the records use, in order of first use:
	// strOut and frmOut map an index String or Frame gave out to 1 + its
	// index in the file (0 while unused), strUsed and frmUsed list the
	// indices given out in the file's order.
	strOut, frmOut   []uint32
	strUsed, frmUsed []uint32
	frames           map[frameKey]uint32
	frmTab           []frameKey
	threads          map[uint64]*Thread     // by thread id; see lookup
	others           map[threadKey]*Thread  // threads whose id another interpreter's has in threads
	interps          map[*thread]uint32     // interpreter ids other than 0, by thread
	order            chunked.Array[*Thread] // started threads of handles, in order of first sample
	nums             *numbers               // numbered threads (numbered.go)
	freeNos          []ThreadNo             // numbers of forgotten threads, for the next
	nthreads         int
	forgotten        int // forgotten threads still in order

	head, tail   *thread       // queue of the threads holding pairs
	pendingBytes int           // capacity of the pairs buffers the threads hold
	pairsTab     []*pairsState // the pairs states by number (pairsState.no), 0 unused
	freePairs    []uint32      // numbers of pairsTab not in use
	freeBufs     []*pairsState // pairs states with their buffers, for reuse
	freeBytes    int
	stacks       stackTab    // the threads' previous stacks, shared
	stackBufs    []*stackBuf // the stack buffers by number (stackRef), below firstRef nil
	freeRefs     []stackRef  // numbers of stackBufs not in use
	freeStacks   []*stackBuf // stack buffers threads gave back, for the next
	spare        []*Thread   // the last file's thread records, kept by Reset

	scratch []uint32
	stats   Stats
	err     error
	closed  bool
	// recycled says the closed file's thread records are spares already
	// (Recycle), which Reset then need not take back.
	recycled bool
}

// New starts a Tachyon file at dst's current offset: it writes a placeholder
// header and returns a Writer. Close finalizes the file.
func New(dst io.WriteSeeker, opts Options) (*Writer, error) {
	if opts.Compression != tachyon.CompressionNone && opts.Compression != tachyon.CompressionZstd {
		return nil, fmt.Errorf("writer: unsupported compression %v", opts.Compression)
	}
	if opts.MaxPendingBytes <= 0 {
		opts.MaxPendingBytes = DefaultMaxPendingBytes
	}
	base, err := dst.Seek(0, io.SeekCurrent)
	if err != nil {
		return nil, fmt.Errorf("writer: output is not seekable: %w", err)
	}
	w := &Writer{
		dst:     dst,
		base:    base,
		cw:      countWriter{w: dst},
		opts:    opts,
		buf:     make([]byte, 0, BufferSize),
		strings: make(map[string]uint32),
		frames:  make(map[frameKey]uint32),
		threads: make(map[uint64]*Thread),
	}
	var zero [tachyon.HeaderSize]byte
	if _, err := w.cw.Write(zero[:]); err != nil {
		return nil, fmt.Errorf("writer: writing header: %w", err)
	}
	if opts.Compression == tachyon.CompressionZstd {
		if w.zw, err = newZstd(&w.cw); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// Create creates the named file and starts a Tachyon file in it. The
// Writer owns the file: Close finalizes the format and then closes the file.
func Create(path string, opts Options) (*Writer, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("writer: %w", err)
	}
	w, err := New(f, opts)
	if err != nil {
		f.Close()
		return nil, err
	}
	w.closer = f
	return w, nil
}

// Stats reports what has been written so far.
func (w *Writer) Stats() Stats {
	s := w.stats
	s.Threads = w.nthreads
	s.Strings = len(w.strUsed)
	s.Frames = len(w.frmUsed)
	return s
}

// String interns s and returns its index, which Frame uses; s enters the
// file's string table only with a frame that a record uses.
func (w *Writer) String(s string) uint32 {
	if i, ok := w.strings[s]; ok {
		return i
	}
	if !utf8.ValidString(s) {
		// A file's strings are UTF-8 (a reader refuses the whole file
		// otherwise): each invalid byte sequence of a name reads U+FFFD,
		// and names that then read the same share one entry.
		i := w.String(strings.ToValidUTF8(s, "\uFFFD"))
		w.strings[strings.Clone(s)] = i
		return i
	}
	i := uint32(len(w.strTab))
	s = strings.Clone(s)
	w.strings[s] = i
	w.strTab = append(w.strTab, s)
	w.strOut = append(w.strOut, 0)
	return i
}

// Frame interns a frame and returns its index, for WriteStack. A frame
// enters the file's frame table (after its file name and function name
// enter the string table, in that order) at its first use by a record.
func (w *Writer) Frame(f tachyon.Frame) uint32 {
	k := frameKey{file: w.String(f.File), fn: w.String(f.Func), line: f.Line}
	if i, ok := w.frames[k]; ok {
		return i
	}
	i := uint32(len(w.frmTab))
	w.frames[k] = i
	w.frmTab = append(w.frmTab, k)
	w.frmOut = append(w.frmOut, 0)
	return i
}

// outFrame returns the index in the file of frame f (an index Frame gave
// out), giving it one, and its strings theirs, at its first use.
func (w *Writer) outFrame(f uint32) uint32 {
	if o := w.frmOut[f]; o != 0 {
		return o - 1
	}
	k := w.frmTab[f]
	w.outString(k.file)
	w.outString(k.fn)
	w.frmUsed = append(w.frmUsed, f)
	w.frmOut[f] = uint32(len(w.frmUsed))
	return uint32(len(w.frmUsed)) - 1
}

// outString returns the index in the file of string s (an index String
// gave out), giving it one at its first use.
func (w *Writer) outString(s uint32) uint32 {
	if o := w.strOut[s]; o != 0 {
		return o - 1
	}
	w.strUsed = append(w.strUsed, s)
	w.strOut[s] = uint32(len(w.strUsed))
	return uint32(len(w.strUsed)) - 1
}

// WriteSample interns s's frames and writes it. Stacks deeper than
// tachyon.MaxWriteDepth keep their innermost frames.
func (w *Writer) WriteSample(s *Sample) error {
	if w.closed {
		return ErrClosed
	}
	frames := s.Frames
	if len(frames) > tachyon.MaxWriteDepth {
		frames = frames[:tachyon.MaxWriteDepth]
	}
	w.scratch = w.scratch[:0]
	for i := range frames {
		w.scratch = append(w.scratch, w.Frame(frames[i]))
	}
	return w.WriteStack(s.ThreadID, s.InterpreterID, s.Timestamp, s.Status, w.scratch)
}

// WriteStack writes one sample whose frames are indices returned by Frame,
// innermost first. It does not retain stack. Stacks deeper than
// tachyon.MaxWriteDepth keep their innermost frames. It allocates nothing
// once the thread has been seen and its buffers have grown.
func (w *Writer) WriteStack(threadID uint64, interp uint32, ts uint64, status tachyon.Status, stack []uint32) error {
	if w.closed {
		return ErrClosed
	}
	return w.Thread(threadID, interp).Write(ts, status, stack)
}

// Write is WriteStack for the thread of handle t: it saves
// the lookup of the thread on every sample.
func (t *Thread) Write(ts uint64, status tachyon.Status, stack []uint32) error {
	return t.w.write(&t.thread, t, ts, status, stack)
}

// write is Thread.Write for t, whose handle is h (nil: t is numbered).
func (w *Writer) write(t *thread, h *Thread, ts uint64, status tachyon.Status, stack []uint32) error {
	if err := w.check(t); err != nil {
		return err
	}
	if len(stack) > tachyon.MaxWriteDepth {
		stack = stack[:tachyon.MaxWriteDepth]
	}
	nf := uint32(len(w.frmTab))
	for _, f := range stack {
		if f >= nf {
			return fmt.Errorf("%w: %d (have %d frames)", ErrFrameIndex, f, nf)
		}
	}
	w.stats.Samples++
	if !t.started() {
		w.start(t, h)
		w.writeChange(t, tachyon.Full, ts, status, 0, stack, stack)
		return w.err
	}
	prev := w.prev(t)
	if slices.Equal(prev, stack) {
		w.appendPair(t, ts, status)
		return w.err
	}
	w.flushRun(t)
	p, n := len(prev), len(stack)
	s := sharedBottom(prev, stack)
	switch {
	case s == 0:
		w.writeChange(t, tachyon.Full, ts, status, 0, stack, stack)
	case s == p:
		w.writeChange(t, tachyon.Suffix, ts, status, uint64(p), stack[:n-p], stack)
	case s < n/2:
		w.writeChange(t, tachyon.Full, ts, status, 0, stack, stack)
	default:
		w.writeChange(t, tachyon.PopPush, ts, status, uint64(p-s), stack[:n-s], stack)
	}
	return w.err
}

// lookup finds a thread's state. The map is keyed by the thread id alone,
// which hashes much faster than a struct key; the rare threads that share an
// id with another interpreter's are in a map of their own.
func (w *Writer) lookup(id uint64, interp uint32) *Thread {
	if t := w.threads[id]; t != nil && w.interp(&t.thread) == interp {
		return t
	}
	if len(w.others) == 0 {
		return nil
	}
	return w.others[threadKey{id, interp}]
}

// sharedBottom counts the outermost frames a and b have in common.
func sharedBottom(a, b []uint32) int {
	i, j := len(a)-1, len(b)-1
	n := 0
	for i >= 0 && j >= 0 && a[i] == b[j] {
		i--
		j--
		n++
	}
	return n
}

// delta advances t's clock to ts and returns the elapsed microseconds.
func (t *thread) delta(ts uint64) uint64 {
	if ts < t.lastTS {
		return 0
	}
	d := ts - t.lastTS
	t.lastTS = ts
	return d
}

// writeChange writes a FULL, SUFFIX or POP_PUSH record and makes stack the
// thread's previous stack. For FULL, arg is unused and frames is the whole
// stack; for SUFFIX arg is shared_count, for POP_PUSH pop_count, and frames
// the new frames.
func (w *Writer) writeChange(t *thread, enc tachyon.Encoding, ts uint64, status tachyon.Status, arg uint64, frames, stack []uint32) {
	w.reserve(tachyon.RecordHeaderSize + 3*binary.MaxVarintLen64 + 1 + 5*len(frames))
	b := w.recordHeader(t, enc)
	b = binary.AppendUvarint(b, t.delta(ts))
	b = append(b, byte(status))
	if enc != tachyon.Full {
		b = binary.AppendUvarint(b, arg)
	}
	b = binary.AppendUvarint(b, uint64(len(frames)))
	for _, f := range frames {
		b = binary.AppendUvarint(b, uint64(w.outFrame(f)))
	}
	w.buf = b
	w.stats.Records[enc]++
	if !w.owned(t) {
		w.unshare(t)
		t.stack = w.newStack().ref
	}
	prev := w.stackBufs[t.stack]
	prev.s = append(prev.s[:0], stack...)
}

func (w *Writer) recordHeader(t *thread, enc tachyon.Encoding) []byte {
	b := binary.LittleEndian.AppendUint64(w.buf, t.id)
	b = binary.LittleEndian.AppendUint32(b, w.interp(t))
	return append(b, byte(enc))
}

// reserve makes room for n more bytes in the record buffer, and a mark,
// flushing it when needed.
func (w *Writer) reserve(n int) {
	if len(w.buf)+n > cap(w.buf) || len(w.tails) == maxMarks {
		w.flushBuf()
		if n > cap(w.buf) {
			w.buf = make([]byte, 0, n)
		}
	}
}

// flushBuf hands the record buffer to the compressor or the file.
func (w *Writer) flushBuf() {
	if len(w.buf) == 0 {
		return
	}
	if w.zw != nil && (w.par != nil || w.finishing.Load()) {
		w.flushParallel()
		return
	}
	var err error
	switch {
	case w.zw == nil:
		_, err = w.cw.Write(w.buf)
	case len(w.tails) > 0:
		err = w.flushMarked()
	default:
		err = w.zwWrite(w.buf)
	}
	w.setErr(err)
	w.buf, w.tails = w.buf[:0], w.tails[:0]
}

func (w *Writer) setErr(err error) {
	if err != nil && w.err == nil {
		w.err = fmt.Errorf("writer: %w", err)
	}
}
