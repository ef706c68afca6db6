package recent

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gotachyon/profiler/internal/stackset"
	"github.com/gotachyon/profiler/sampler"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

var (
	_ sampler.Sink        = (*Window)(nil)
	_ sampler.Watermarker = (*Window)(nil)
)

// Defaults of Options.
const (
	// DefaultDuration is the window's length when Options.Duration is 0.
	DefaultDuration = time.Minute
	// DefaultMaxBytes is the window's bound when Options.MaxBytes is 0.
	DefaultMaxBytes = 16 << 20
	// DefaultChunks is the number of chunks a window's length is cut into.
	DefaultChunks = 6
	// DefaultMaxWait bounds how long WriteFile waits for the samples of
	// its span to be written (see WriteFile).
	DefaultMaxWait = 15 * time.Second
)

// Estimates of the memory a window holds beside its chunks' bytes, for
// its bound (see Options.MaxBytes): the chunk writer's record buffer,
// pending runs and zstd encoder, and per goroutine its thread in the
// window and in the chunk's writer (bench/MEASUREMENTS.md has the
// figures these round up).
const (
	writerBytes = 3 << 20
	threadBytes = 400 // plus 4 bytes a frame of its stack in the writer, and 4 of each stack the threads share
	// maxPending caps the chunk writer's pending runs
	// (writer.Options.MaxPendingBytes).
	maxPending = 1 << 20
)

// Options configure a Window.
type Options struct {
	// Duration is how much of the recent past the window keeps
	// (DefaultDuration if zero): chunks whose samples are all older than
	// the newest time the sampler vouches for (its watermark) less
	// Duration are dropped.
	Duration time.Duration
	// MaxBytes bounds the memory the window holds: its chunks' bytes,
	// the open chunk's buffer and writer, and its goroutines' state.
	// Past it the oldest chunks are dropped, and the window covers less
	// than Duration (Stats.Since says from when). Zero bounds the
	// chunks alone, at DefaultMaxBytes, and lets the state grow with
	// the goroutines beside them: a bound of all, at tens of thousands
	// of goroutines, leaves no room for a chunk, and the window keeps
	// nothing.
	MaxBytes int64
	// StartTime is the profile's start, µs since the Unix epoch: no
	// sample is older.
	StartTime uint64
	// Interval is the header's sample interval in µs, as the profile's.
	Interval uint64
	// Chunks is the number of chunks Duration is cut into
	// (DefaultChunks if zero).
	Chunks int
	// MaxWait bounds WriteFile's wait (DefaultMaxWait if zero).
	MaxWait time.Duration
	// Logf, if set, is told once of the error that stops the window, and
	// of each file that ends before the time asked for (MaxWait passed).
	Logf func(format string, args ...any)
}

// Stats describe a window at one moment.
type Stats struct {
	// Chunks is the number of finalized chunks held, Bytes the memory
	// the window accounts for (see Options.MaxBytes).
	Chunks int
	Bytes  int64
	// Since is the earliest time from which the window holds every
	// sample written, and Complete the time before which every sample
	// is in a finalized chunk.
	Since, Complete time.Time
	// Rolls counts the chunks closed; Dropped those dropped for the
	// bound of bytes before they were older than Duration.
	Rolls, Dropped int
	// Early counts samples written older than their chunk's start (the
	// sampler's watermark was broken), which are recorded at the start.
	Early uint64
	// Err is the error that stopped the window, if any.
	Err error
}

// chunk is one finalized Tachyon file of the window, or the open one.
type chunk struct {
	data         []byte // the finalized file; nil while open
	start        uint64 // header start time
	minTS, maxTS uint64 // its samples' extent (minTS > maxTS: none)
	samples      uint64
}

// Window keeps the recent past of a profile in memory: a sampler.Sink
// (through Goroutine, or Thread, and Frame) whose samples go into a series
// of in-memory Tachyon files, the chunks, each written by a
// writer.Writer in zstd. The writing methods (Frame, Thread and its
// handles' methods, Goroutine, Watermark, Close) are called from one
// goroutine at a time, as a sampler calls its Sink; WriteFile, Stats and
// Release from any.
//
// Chunks are cut by arrival: the open chunk is finalized at the first
// Watermark at or past its end (Duration/Chunks after its start, on a
// grid from StartTime), and a new one starts there, its header's start
// time the watermark, older than every sample still to come. A chunk may
// thus hold samples past its nominal end, and the next one samples older
// than it (another goroutine's, written late): each chunk's samples are
// tracked by their extent, and WriteFile cuts by timestamp. A goroutine's
// samples arrive in time order, so reading the chunks in order gives
// each goroutine's samples in order.
type Window struct {
	opts       Options
	chunksOnly bool   // MaxBytes bounds the chunks alone (Options.MaxBytes)
	dur        uint64 // µs
	period     uint64 // µs, a chunk's nominal length
	// chunkMax is the open chunk's size past which it is finalized
	// early, so that the bound drops the window's oldest samples a
	// sixteenth of it at a time.
	chunkMax int

	// The writing goroutine's.
	w        *writer.Writer
	buf      *buffer
	cur      chunk
	gen      uint64 // counts the chunks opened
	deadline uint64 // the open chunk's nominal end
	wm       uint64
	frames   map[tachyon.Frame]uint32
	frmTab   []tachyon.Frame
	local    []uint32           // window frame index -> open chunk's + 1 (0: not yet)
	threads  map[uint64]*Thread // those Thread made, by id; nil until it makes one
	live     int                // threads made and not forgotten
	ownLen   int                // frames of their latest stacks: the chunk writers' copies
	stacks   stackset.Set       // the threads' latest stacks
	scratch  []uint32
	failed   error // the error that stopped the window
	stopped  bool  // Close was called
	told     bool  // the open chunk's writer was told Finishing
	early    atomic.Uint64
	// finishing is set by Finishing, from any goroutine; the writing
	// goroutine tells each chunk's writer at its next write.
	finishing atomic.Bool

	// A reader asks for a chunk to be finalized: at the first Watermark
	// at or past want, or at once with force.
	want  atomic.Uint64
	force atomic.Bool

	mu         sync.Mutex // guards what follows
	chunks     []*chunk   // finalized, oldest first
	chunkBytes int64
	openBytes  int64 // the open chunk's buffer and its goroutines' state
	since      uint64
	complete   uint64
	rolled     chan struct{} // closed at each roll
	rolls      int
	dropped    int
	// toldBound and toldEmpty are set once a drop for the bound was
	// logged, of a window that keeps less than its length, and of one
	// that keeps nothing.
	toldBound, toldEmpty bool
	err                  error
	closed               bool
}

// ErrClosed is returned by WriteFile once Release has run.
var ErrClosed = errors.New("recent: the window was released")

// New returns an empty window whose first chunk starts at
// opts.StartTime.
func New(opts Options) (*Window, error) {
	if opts.Duration == 0 {
		opts.Duration = DefaultDuration
	}
	chunksOnly := opts.MaxBytes == 0
	if chunksOnly {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.Chunks == 0 {
		opts.Chunks = DefaultChunks
	}
	if opts.MaxWait == 0 {
		opts.MaxWait = DefaultMaxWait
	}
	if opts.Duration < time.Millisecond || opts.MaxBytes < 0 || opts.Chunks < 1 || opts.MaxWait < 0 {
		return nil, fmt.Errorf("recent: bad options: duration %v, %d bytes, %d chunks, wait %v", opts.Duration, opts.MaxBytes, opts.Chunks, opts.MaxWait)
	}
	w := &Window{
		opts:       opts,
		chunksOnly: chunksOnly,
		dur:        uint64(opts.Duration.Microseconds()),
		period:     max(uint64(opts.Duration.Microseconds())/uint64(opts.Chunks), 1),
		chunkMax:   int(max(opts.MaxBytes/16, 64<<10)),
		buf:        &buffer{},
		wm:         opts.StartTime,
		frames:     make(map[tachyon.Frame]uint32),
		stacks:     stackset.New(),
		since:      opts.StartTime,
		complete:   opts.StartTime,
		rolled:     make(chan struct{}),
	}
	w.deadline = opts.StartTime + w.period
	var err error
	if w.w, err = writer.New(w.buf, w.chunkOptions(opts.StartTime)); err != nil {
		return nil, fmt.Errorf("recent: %w", err)
	}
	w.cur = chunk{start: opts.StartTime, minTS: math.MaxUint64}
	return w, nil
}

// Duration returns the window's length (Options.Duration).
func (w *Window) Duration() time.Duration { return w.opts.Duration }

// chunkOptions are the options of a chunk starting at start.
func (w *Window) chunkOptions(start uint64) writer.Options {
	return writer.Options{StartTime: start, Interval: w.opts.Interval, Compression: tachyon.CompressionZstd, MaxPendingBytes: maxPending}
}

// Frame interns f and returns its index, for Thread.Write.
func (w *Window) Frame(f tachyon.Frame) uint32 {
	if i, ok := w.frames[f]; ok {
		return i
	}
	f.File, f.Func = strings.Clone(f.File), strings.Clone(f.Func)
	i := uint32(len(w.frmTab))
	w.frames[f] = i
	w.frmTab = append(w.frmTab, f)
	return i
}

// Thread returns the handle of goroutine id, valid across chunks until
// its Forget or Close: the same handle each time.
func (w *Window) Thread(id uint64) *Thread {
	if t, ok := w.threads[id]; ok {
		return t
	}
	t := w.NewThread(id)
	t.indexed = true
	if w.threads == nil {
		w.threads = make(map[uint64]*Thread)
	}
	w.threads[id] = t
	return t
}

// NewThread returns a new handle of goroutine id, valid across chunks
// until its Forget or Close, which the Window does not keep by id: the
// caller asks once for each goroutine, as a sampler asks its Sink (a
// second handle of the same goroutine would write it as two threads of
// one id).
func (w *Window) NewThread(id uint64) *Thread {
	w.live++
	return &Thread{w: w, id: id}
}

// Watermark tells the window that no sample older than ts will be
// written from now on. It finalizes the open chunk when ts passes its
// end, when a reader waits for the samples before ts, or when the chunk
// grew past its share of the bound.
func (w *Window) Watermark(ts uint64) {
	if w.stopped {
		return
	}
	w.wm = max(w.wm, ts)
	want := w.want.Load()
	if w.wm >= w.deadline || want != 0 && w.wm >= want || w.force.Load() || len(w.buf.b) > w.chunkMax {
		w.roll(false)
	}
}

// poll finalizes the open chunk before a sample at ts if a reader forced
// it, or if no Watermark did for a whole chunk past its end.
func (w *Window) poll(ts uint64) {
	if w.force.Load() || ts >= w.deadline+w.period {
		w.roll(false)
		// The next chunk ends a period past this sample, not past the
		// watermark: while the watermark lags the samples by more than
		// a period (the trace backend after a burst of goroutines
		// ended), one from the watermark would roll at every sample.
		if ts >= w.opts.StartTime {
			w.deadline = max(w.deadline, w.opts.StartTime+((ts-w.opts.StartTime)/w.period+1)*w.period)
		}
	}
	if !w.told && w.finishing.Load() {
		w.w.Finishing()
		w.told = true
	}
}

// Finishing says that what is written from now on is the profile's end,
// written while its program waits for it (writer.Writer.Finishing): the
// open chunk's writer, and those of the chunks after it, compress on
// several cores. It may be called from any goroutine.
func (w *Window) Finishing() { w.finishing.Store(true) }

// Close says that nothing more will be written (the sampler stopped): it
// finalizes the open chunk, after which WriteFile has every sample
// written, and releases the writer.
func (w *Window) Close() {
	if w.stopped {
		return
	}
	w.roll(true)
	w.stopped = true
	w.w, w.buf, w.threads, w.stacks, w.local, w.scratch = nil, nil, nil, stackset.Set{}, nil, nil
}

// Release drops every chunk: WriteFile fails with ErrClosed from then on.
// A WriteFile under way finishes with the chunks it took.
func (w *Window) Release() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	clear(w.chunks)
	w.chunks, w.chunkBytes = nil, 0
	w.wakeLocked()
}

// roll finalizes the open chunk and, unless last, opens the next one at
// the watermark.
func (w *Window) roll(last bool) {
	if w.failed != nil {
		return
	}
	c := w.cur
	c.samples = w.w.Stats().Samples
	if err := w.w.Close(); err != nil {
		w.fail(err)
		return
	}
	var kept *chunk
	if c.samples > 0 {
		c.data = append([]byte(nil), w.buf.b...) // exact: the buffer is reused
		kept = &c
	}
	w.buf.b, w.buf.off = w.buf.b[:0], 0
	complete := w.wm
	if last {
		complete = math.MaxUint64
	} else {
		if err := w.w.Reset(w.buf, w.chunkOptions(w.wm)); err != nil {
			w.fail(err)
			return
		}
		w.told = false
		w.gen++
		w.cur = chunk{start: w.wm, minTS: math.MaxUint64}
		clear(w.local)
		w.local = w.local[:0]
		w.deadline = w.opts.StartTime + ((w.wm-w.opts.StartTime)/w.period+1)*w.period
	}
	open := int64(cap(w.buf.b)) + writerBytes
	open += int64(w.live)*threadBytes + 4*int64(w.ownLen)
	open += 4 * w.stacks.Frames()
	w.mu.Lock()
	if kept != nil {
		w.chunks = append(w.chunks, kept)
		w.chunkBytes += int64(len(kept.data))
	}
	w.openBytes = open
	if last {
		w.openBytes = 0
	}
	w.complete = max(w.complete, complete)
	w.rolls++
	dropped := w.dropped
	w.dropLocked()
	empty := !w.chunksOnly && open >= w.opts.MaxBytes
	tell := w.dropped > dropped && (empty && !w.toldEmpty || !empty && !w.toldBound)
	if tell {
		w.toldEmpty = w.toldEmpty || empty
		w.toldBound = w.toldBound || !empty
	}
	since := w.since
	w.wakeLocked()
	w.mu.Unlock()
	if tell {
		w.logBound(open, empty, since)
	}
	w.force.Store(false)
	if want := w.want.Load(); want != 0 && want <= w.wm {
		w.want.CompareAndSwap(want, 0)
	}
}

// dropLocked drops the oldest chunks while they are all older than the
// window, or the window holds more than its bound.
func (w *Window) dropLocked() {
	cutoff := uint64(0)
	if w.wm > w.dur {
		cutoff = w.wm - w.dur
	}
	for len(w.chunks) > 0 {
		c := w.chunks[0]
		over := w.chunkBytes+w.boundedOpen() > w.opts.MaxBytes
		if c.maxTS >= cutoff && !over {
			break
		}
		if over && c.maxTS >= cutoff {
			w.dropped++
		}
		w.since = max(w.since, c.maxTS+1)
		w.chunkBytes -= int64(len(c.data))
		w.chunks[0] = nil
		w.chunks = w.chunks[1:]
	}
}

// boundedOpen is the open chunk's part of the bytes MaxBytes bounds.
func (w *Window) boundedOpen() int64 {
	if w.chunksOnly {
		return 0
	}
	return w.openBytes
}

// logBound says, once, that the bound of bytes dropped samples younger
// than the window's length: what it holds now, and when the open chunk's
// writer and its goroutines' state alone take the whole bound, that it
// keeps nothing (every chunk is dropped as it is finalized) and what
// bound would hold something.
func (w *Window) logBound(open int64, empty bool, since uint64) {
	if w.opts.Logf == nil {
		return
	}
	if empty {
		w.opts.Logf("profiler: recent: the window's bound of %d bytes is taken by its open chunk and the state of its %d goroutines (%d bytes): it keeps no samples, and a file written from it holds none; give it more than %d bytes (WithRecent, PROFILE_RECENT_BYTES)",
			w.opts.MaxBytes, w.live, open, open)
		return
	}
	w.opts.Logf("profiler: recent: the window's bound of %d bytes dropped samples younger than its %v: it holds them from %v only (Stats.Dropped counts the chunks dropped)",
		w.opts.MaxBytes, w.opts.Duration, time.UnixMicro(int64(since)).UTC().Format(time.RFC3339Nano))
}

// wakeLocked wakes the readers waiting for a roll.
func (w *Window) wakeLocked() {
	close(w.rolled)
	w.rolled = make(chan struct{})
}

// fail stops the window on the writer's error: the sampling goes on,
// and WriteFile returns the error.
func (w *Window) fail(err error) {
	err = fmt.Errorf("recent: the window stopped: %w", err)
	w.failed = err
	w.mu.Lock()
	w.err = err
	w.wakeLocked()
	w.mu.Unlock()
	if w.opts.Logf != nil {
		w.opts.Logf("profiler: %v", err)
	}
}

// Stats returns the window's state; it is safe from any goroutine.
func (w *Window) Stats() Stats {
	w.mu.Lock()
	defer w.mu.Unlock()
	st := Stats{
		Chunks:  len(w.chunks),
		Bytes:   w.chunkBytes + w.openBytes,
		Since:   time.UnixMicro(int64(w.since)),
		Rolls:   w.rolls,
		Dropped: w.dropped,
		Early:   w.early.Load(),
		Err:     w.err,
	}
	if w.complete != math.MaxUint64 {
		st.Complete = time.UnixMicro(int64(w.complete))
	}
	return st
}

// Goroutine returns NewThread(id): with Frame and Watermark, a Window is
// a sampler.Sink and a sampler.Watermarker of its own, for a profile kept
// only in memory.
func (w *Window) Goroutine(id uint64) sampler.Goroutine { return w.NewThread(id) }
