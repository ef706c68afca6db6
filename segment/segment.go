package segment

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gotachyon/profiler/internal/own"
	"github.com/gotachyon/profiler/internal/stackset"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// Options configure a Writer.
type Options struct {
	// Dir is the directory the segment files go to; it must exist.
	Dir string
	// Prefix starts every file name; "" means "profile".
	Prefix string
	// StartTime is the run's start in microseconds since the epoch: the
	// first segment's start, and the origin of the segment boundaries.
	StartTime uint64
	// Period is the length of a segment (see Writer for when one is
	// longer); it must be positive.
	Period time.Duration
	// First, when positive and shorter than Period, ends the first
	// segment early, at StartTime+First; the later boundaries follow it a
	// Period apart. A process that dies soon after its start then still
	// leaves a finalized segment.
	First time.Duration
	// Interval and Compression are every segment's header fields.
	Interval    uint64
	Compression tachyon.Compression
	// KeepFiles and KeepBytes, when positive, bound the finalized segments
	// kept on disk: the oldest are deleted first, the newest is always kept.
	KeepFiles int
	KeepBytes int64
	// Closed, if set, is called with every finalized segment's path, in
	// order, from the Writer's own goroutine (never the writing one),
	// before the budget may delete the file; last is true for the
	// segment closed by Close, which returns once that call has. If that
	// segment could not be finalized (it is lost), Closed is called with
	// path "" and last true instead: the last call says the end either
	// way.
	Closed func(path string, last bool)
	// Run is the run's id in every segment's name (see Name): eight
	// lowercase hexadecimal digits; "" means a new random one (NewRunID).
	Run string
	// Logf, if set, is called from the Writer's own goroutine with a
	// line when writing into Dir starts failing (its first error) and when
	// it works again (with what was dropped meanwhile).
	Logf func(format string, args ...any)
	// HoldBytes bounds the bytes held in memory while Dir cannot be
	// written; past it samples are dropped and counted. 0 means
	// DefaultHoldBytes.
	HoldBytes int64

	retry  time.Duration               // between attempts to write; 0: DefaultRetry
	fault  func(op, name string) error // a test's injected file-system failure
	fullAt uint64                      // a test's FullAt; 0: FullAt
}

// Defaults of Options.
const (
	// DefaultHoldBytes is the default of Options.HoldBytes.
	DefaultHoldBytes = 8 << 20
	// DefaultRetry is how often a Writer tries again to write segments
	// the directory refused.
	DefaultRetry = 100 * time.Millisecond
)

// Stats counts what a Writer did.
type Stats struct {
	// Written is the number of segments finalized, Deleted the number the
	// budget removed since.
	Written, Deleted int
	// Bytes is the size of the finalized segments, deleted ones included.
	Bytes int64
	// Late counts the samples not written because they came after the
	// segment that holds their time was finalized (see Writer): a
	// Watermark broken, or one that lagged more than MaxLag.
	Late uint64
	// PeakOpen is the most segments open at once. Extended counts the
	// periods added to the newest segment, instead of a segment of their
	// own, because MaxOpen were open; Expired the segments finalized
	// MaxLag after their end, before the watermark passed it.
	PeakOpen, Extended, Expired int
	// EndedFull counts the segments that ended before their period's
	// end because they held FullAt samples.
	EndedFull int
	// Rollovers counts the segments opened by a rollover; Pauses is the
	// time rollovers took on the writing goroutine (opening the new
	// segments and handing the finished ones over: their writers are
	// closed on the Writer's own goroutine), MaxPause the longest.
	Rollovers        int
	Pauses, MaxPause time.Duration
	// Unprepared counts the rollovers that found no segment opened ahead
	// and opened one themselves.
	Unprepared int
	// Errors counts the failed attempts to write into the directory, and
	// Outage is the time writing failed, both over the run.
	Errors int
	Outage time.Duration
	// Held is the number of bytes held in memory now because the
	// directory refused them.
	Held int64
	// Dropped counts the samples not written: those sampled while Held
	// was past the bound, and those of Lost segments, which could not be
	// written before Close or a longer outage gave them up.
	Dropped uint64
	Lost    int
	// Stale counts the open files of dead processes (*.part) removed from
	// the directory: at the start, and once more when those too young to
	// tell then (see internal/runlock) are old enough.
	Stale int
}

// Bounds of the segments open at once, and of their samples (see Writer).
const (
	// MaxOpen is the most segments open at once, besides the first
	// segment's sequel: past it, the newest is lengthened by whole periods
	// instead of a new one opening, unless it is full (FullAt).
	MaxOpen = 2
	// MaxLag is how long, in the samples' time, a segment waits past its
	// end for the watermark: a segment that ends MaxLag before a sample
	// written is finalized.
	MaxLag = 10 * time.Second
	// FullAt is the number of samples past which the newest segment ends
	// early, after its newest sample, and the next begins there: a
	// Tachyon file holds at most 2^32-1 samples, and the room left takes
	// the samples of its time that come late.
	FullAt = 1 << 31
)

// segment is one segment file, open until it is handed to finishLoop.
type segment struct {
	w     *writer.Writer // nil once closed
	file  *segFile       // named NAME.tachyon.part, or a spare's name
	path  string         // its name once finalized
	local []uint32       // Writer frame index -> this file's index + 1 (0: not yet)
	// start and end bound the samples' times, [start, end): the nominal
	// period boundaries, and the header's start time. The newest
	// segment's end moves when it is lengthened, when the next segment
	// starts later, after periods without samples, or when it is full.
	start, end uint64
	// last marks the newest segment, which Close sent; closing marks
	// every segment Close sent, whose writer no later segment needs.
	last, closing bool
	// maxTS is its newest sample's time; full says it ended early, after
	// maxTS, holding FullAt samples (see Writer.wrote).
	maxTS uint64
	full  bool
	// handed says the writing goroutine gave the segment to finishLoop,
	// which closes w unless the writing goroutine did: only finishLoop
	// touches w, local and file since.
	handed bool
	// samples counts the segment's samples once it is closed, and
	// closeErr is its writer's Close error if the writing goroutine
	// closed it.
	samples  uint64
	closeErr error
}

// Writer writes a profile as a series of finalized Tachyon files, one per
// period, each written by a writer.Writer. Samples go in through thread
// handles (Thread), as into a writer.Writer; it is not safe for concurrent
// use, except that the closed segments are finalized by its own goroutine.
//
// Every sample goes to the segment whose time range holds it, [start,
// end): start is the segment's nominal start, which its header and name
// state, and end the next segment's start (the last ends at Close). The
// boundaries are StartTime, StartTime+First if First is set, and then a
// Period apart; a segment spans several periods only after periods
// without samples, or when MaxOpen were open. A RepeatEvery run that
// crosses boundaries is split across the segments it spans, so that no
// sample is lost, written twice or written outside its segment's range.
// Frame indices are the Writer's own; each segment interns the frames its
// samples use, and starts each thread with a full stack.
//
// Samples reach a Writer in the order they are written, which for a
// sampler is per thread, not across threads: a thread's samples may come
// seconds after newer ones of other threads. A sample at or past the
// newest segment's end opens the next segment, but the older ones stay
// open, each with its own writer.Writer, until Watermark passes their end
// (or MaxLag after it, in the samples' time; or at Close), and are then
// finalized, oldest first. The first segment is finalized at the first
// rollover, so that a process that dies soon after its start leaves a
// finalized file; its samples that come later go to its sequel, a second
// segment of the same range (named with the same start), finalized as the
// others are. At most MaxOpen are open (and the sequel): past it the
// newest is lengthened instead. A segment that holds FullAt samples ends
// early, after its newest, and the next starts there (between two period
// boundaries, and even with MaxOpen open), so that no file reaches the
// format's 2^32-1 samples. A sample that no open segment can hold (a
// caller that broke its Watermark, or one that lagged more than MaxLag)
// cannot be placed truthfully: it is not written, but counted in
// Stats.Late, and logged once.
//
// An open segment is named NAME.tachyon.part. A rollover renames the file
// the Writer's own goroutine opened ahead as PREFIX-next-*.part. A
// finished segment goes to the Writer's own goroutine, which closes its
// writer.Writer (every thread's last run, the tables, footer and header:
// work that grows with the threads, which the writing goroutine does not
// wait for) and keeps it to start anew (Reset) in a later segment, so
// that the writers' memory is reused. It then writes
// out what the disk had refused and renames the closed file NAME.tachyon,
// so a process killed at any point leaves only complete *.tachyon files,
// and loses the open segments.
// NAME is PREFIX-YYYYMMDDTHHMMSS.mmmZ-RUN-NNNNNN: the segment's nominal
// start in UTC, the run's id and a sequence number from 1, so that names
// sort by start time and tell runs apart. The open files are held (see
// internal/runlock) while open; at the start (and once more a little
// later), the Writer removes the *.part files of its prefix that no
// live process holds.
//
// The directory is not trusted: what it refuses is held in memory, up to
// HoldBytes (then samples are dropped and counted), and written when it
// takes writes again; segments are finalized in order. The budget
// (KeepFiles, KeepBytes) covers every segment of the prefix in the
// directory, whatever run wrote it, and deletes only files named as
// segments: this run's if they are still the files it wrote, another
// run's if they begin with a valid Tachyon header.
type Writer struct {
	opts   Options
	period uint64 // µs
	origin uint64 // a boundary: the others are a whole number of periods from it
	maxLag uint64 // MaxLag, µs
	seq    int
	wm     uint64 // no sample older than this will come (Watermark)
	// open holds the open segments, oldest first, which tile time from
	// the oldest's start to the newest's end. A sample at or past limit
	// (the newest's end, or MaxLag past the oldest's end) takes the slow
	// path (reach).
	open  []*segment
	limit uint64
	// firstSeg is the first segment until the first rollover finalizes it;
	// then early is its range if the watermark had not passed its end,
	// which its sequel may open to hold (until it opens: then early is
	// empty).
	firstSeg *segment
	early    struct{ start, end uint64 }
	// spares holds the writer of a closed segment, with its frame map,
	// which finishLoop offers the next segment: one at most.
	spares chan spareWriter

	frames  map[tachyon.Frame]uint32
	frmTab  []tachyon.Frame
	threads map[threadKey]*Thread // live handles made by Thread
	stacks  stackset.Set          // the handles' latest stacks
	dirty   map[*Thread]bool      // threads with dropped samples since their last written
	scratch []uint32

	// finishing is set by Finishing, from any goroutine; told once the
	// open segments' writers were told, on the writing goroutine.
	finishing atomic.Bool
	told      bool

	closing    chan *segment
	spare      chan *segment // the next segment, opened ahead by finishLoop
	wake       chan struct{} // tells finishLoop that writing failed, or a late sample
	done       chan struct{}
	closed     bool
	lastSaid   bool         // Closed was called with last true (finishLoop's)
	held       atomic.Int64 // bytes held in memory by every segFile
	mu         sync.Mutex   // guards the fields below
	stats      Stats
	ferr       error     // the first error that lost something
	first      error     // the current outage's first error; nil when writing works
	since      time.Time // the current outage's start
	logged     bool      // the current outage was logged
	lateLogged bool      // Stats.Late was logged
}

// spareWriter is a closed segment's writer.Writer and frame map, kept to
// write another segment.
type spareWriter struct {
	w     *writer.Writer
	local []uint32
}

// ErrPeriod is returned by New for a period that is not positive.
var ErrPeriod = errors.New("segment: period must be positive")

// New opens the first segment in opts.Dir and starts the goroutine that
// finalizes closed segments. Close ends both.
func New(opts Options) (*Writer, error) {
	if opts.Period <= 0 || opts.Period.Microseconds() == 0 {
		return nil, ErrPeriod
	}
	if opts.Prefix == "" {
		opts.Prefix = "profile"
	}
	if strings.ContainsRune(opts.Prefix, os.PathSeparator) {
		return nil, fmt.Errorf("segment: prefix %q names a directory", opts.Prefix)
	}
	if opts.Run == "" {
		opts.Run = NewRunID()
	} else if !validRun(opts.Run) {
		return nil, fmt.Errorf("segment: run id %q: want eight lowercase hexadecimal digits", opts.Run)
	}
	if opts.HoldBytes <= 0 {
		opts.HoldBytes = DefaultHoldBytes
	}
	if opts.retry <= 0 {
		opts.retry = DefaultRetry
	}
	if opts.fullAt == 0 {
		opts.fullAt = FullAt
	}
	s := &Writer{
		opts:    opts,
		period:  uint64(opts.Period.Microseconds()),
		origin:  opts.StartTime,
		maxLag:  uint64(MaxLag.Microseconds()),
		wm:      opts.StartTime,
		open:    make([]*segment, 0, MaxOpen),
		frames:  make(map[tachyon.Frame]uint32),
		threads: make(map[threadKey]*Thread),
		stacks:  stackset.New(),
		dirty:   make(map[*Thread]bool),
		closing: make(chan *segment, 16),
		spare:   make(chan *segment, 1),
		spares:  make(chan spareWriter, 1),
		wake:    make(chan struct{}, 1),
		done:    make(chan struct{}),
	}
	end := opts.StartTime + s.period
	if first := uint64(opts.First.Microseconds()); first > 0 && first < s.period {
		end = opts.StartTime + first
		s.origin = end - s.period
	}
	seg, err := s.newSegment(opts.StartTime, end)
	s.attach(seg, nil)
	if err != nil { // a directory that refuses the first file is wrong
		seg.file.drop()
		return nil, err
	}
	s.open = append(s.open, seg)
	s.firstSeg = seg
	s.stats.PeakOpen = 1
	s.limit = end
	own.Go(s.finishLoop)
	return s, nil
}

// Stats reports the Writer's counts so far; it is safe to call from
// any goroutine.
func (s *Writer) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stats
	st.Held = s.held.Load()
	if s.firstSeg != nil {
		st.Outage += time.Since(s.since)
	}
	return st
}

// Run returns the run's id, which every segment's name holds.
func (s *Writer) Run() string { return s.opts.Run }

// Frame interns a frame and returns its index, for Thread.Write.
func (s *Writer) Frame(f tachyon.Frame) uint32 {
	if i, ok := s.frames[f]; ok {
		return i
	}
	f.File, f.Func = strings.Clone(f.File), strings.Clone(f.Func)
	i := uint32(len(s.frmTab))
	s.frames[f] = i
	s.frmTab = append(s.frmTab, f)
	return i
}

// Watermark tells the Writer that no sample older than ts will be
// written from now on (a sampler that writes some goroutines' ticks late
// knows how late): the open segments that end at or before ts, but the
// newest, are finalized. A ts below an earlier one is ignored.
func (s *Writer) Watermark(ts uint64) {
	s.tellFinishing()
	if s.closed || ts <= s.wm {
		return
	}
	s.wm = ts
	s.settle()
}

// Finishing says the run's end is being written while its program waits
// for it (writer.Writer.Finishing): the open segments' writers, and those
// of the segments opened after, compress it on several cores. It may be
// called from any goroutine; the writers are told on the writing one, at
// its next Flush or Watermark.
func (s *Writer) Finishing() { s.finishing.Store(true) }

// tellFinishing passes Finishing on to the open segments' writers, once.
func (s *Writer) tellFinishing() {
	if s.told || !s.finishing.Load() {
		return
	}
	s.told = true
	for _, seg := range s.open {
		seg.w.Finishing()
	}
}

// Thread returns the handle of a thread (thread id, interpreter id),
// valid across segments until its Forget or Close.
func (s *Writer) Thread(id uint64, interp uint32) *Thread {
	k := threadKey{id, interp}
	if t, ok := s.threads[k]; ok {
		return t
	}
	t := &Thread{s: s, id: id, interp: interp, indexed: true}
	s.threads[k] = t
	return t
}

// NewThread returns a new handle of a thread (thread id, interpreter id)
// that the Writer does not keep by id, as Thread does: for a caller that
// holds each thread's handle for as long as it writes the thread (a
// sampler, one per goroutine), so that the Writer holds no index entry
// per thread. The caller asks once per thread: another handle of the same
// thread would write into the same thread of each segment, each handle
// from its own latest stack, and the files would give wrong stacks.
func (s *Writer) NewThread(id uint64, interp uint32) *Thread {
	return &Thread{s: s, id: id, interp: interp}
}
