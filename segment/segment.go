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
	// Period is the length of a segment; it must be positive.
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
	// segment closed by Close, which returns once that call has.
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

	retry time.Duration               // between attempts to write; 0: DefaultRetry
	fault func(op, name string) error // a test's injected file-system failure
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
	// Early counts samples written at their segment's start because they
	// were older than it (see Writer).
	Early uint64
	// Rollovers counts the segments opened by a rollover; Pauses is their
	// total time on the writing goroutine, MaxPause the longest.
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

// segment is one open segment file.
type segment struct {
	w     *writer.Writer
	file  *segFile // named NAME.tachyon.part, or a spare's name
	path  string   // its name once finalized
	local []uint32 // Writer frame index -> this file's index + 1 (0: not yet)
	start uint64   // header start time
	last  bool
	// samples counts the segment's samples once it is closed (w is nil
	// from then on), and closeErr is its writer's Close error.
	samples  uint64
	closeErr error
}

// Writer writes a profile as a series of finalized Tachyon files, one per
// period, each written by a writer.Writer. Samples go in through thread
// handles (Thread), as into a writer.Writer; it is not safe for concurrent
// use, except that the closed segments are finalized by its own goroutine.
//
// Frame indices are the Writer's own; each segment interns the frames
// its samples use. A segment ends at the first sample at or past its end
// (start + k*Period): a RepeatEvery run that crosses the end is split
// there, and the next segment opens, so that no sample is lost or written
// twice. A thread's first sample in a segment is written as a full stack.
// Samples reach a Writer in the order they are written, which for a
// sampler is per thread, not across threads: a thread's samples older than
// the boundary that arrive after the rollover go to the new segment, whose
// header start time is therefore the earliest of its nominal start, the
// latest sample of every live thread, and the last Watermark (the run's
// start until the first Watermark). A sample older still (a caller that
// broke its Watermark) is written at the segment's start, as writer.Writer
// does, and counted in Stats.Early.
//
// The open segment is named NAME.tachyon.part. At a rollover the writing
// goroutine writes its tables, footer and header, and starts the same
// writer.Writer anew (Reset) in the next file, which the Writer's own
// goroutine opened ahead as PREFIX-next-*.part and the rollover only
// renames: one writer.Writer serves every segment, its memory reused. The
// Writer's goroutine then writes out what the disk had refused and renames the
// closed file NAME.tachyon, so a process killed at any point leaves only
// complete *.tachyon files.
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
	opts     Options
	period   uint64 // µs
	nominal  uint64 // the open segment's nominal start
	deadline uint64 // its nominal end: a sample at or past it rolls over
	origin   uint64 // a boundary: the others are a whole number of periods from it
	seq      int
	gen      uint64
	wm       uint64 // no sample older than this will come (Watermark)
	cur      *segment

	frames  map[tachyon.Frame]uint32
	frmTab  []tachyon.Frame
	threads map[threadKey]*Thread // live handles
	dirty   map[*Thread]bool      // threads with dropped samples since their last written
	scratch []uint32

	closing chan *segment
	spare   chan *segment // the next segment, opened ahead by finishLoop
	wake    chan struct{} // tells finishLoop that writing failed
	done    chan struct{}
	closed  bool
	held    atomic.Int64 // bytes held in memory by every segFile
	mu      sync.Mutex   // guards the fields below
	stats   Stats
	ferr    error     // the first error that lost something
	first   error     // the current outage's first error; nil when writing works
	since   time.Time // the current outage's start
	logged  bool      // the current outage was logged
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
	s := &Writer{
		opts:     opts,
		period:   uint64(opts.Period.Microseconds()),
		nominal:  opts.StartTime,
		wm:       opts.StartTime,
		deadline: opts.StartTime + uint64(opts.Period.Microseconds()),
		origin:   opts.StartTime,
		frames:   make(map[tachyon.Frame]uint32),
		threads:  make(map[threadKey]*Thread),
		dirty:    make(map[*Thread]bool),
		closing:  make(chan *segment, 16),
		spare:    make(chan *segment, 1),
		wake:     make(chan struct{}, 1),
		done:     make(chan struct{}),
	}
	if first := uint64(opts.First.Microseconds()); first > 0 && first < s.period {
		s.deadline = opts.StartTime + first
		s.origin = s.deadline - s.period
	}
	cur, err := s.open(opts.StartTime)
	s.attach(cur, nil, opts.StartTime)
	if err != nil { // a directory that refuses the first file is wrong
		cur.file.drop()
		return nil, err
	}
	s.cur = cur
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
	if s.first != nil {
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
// knows how late). It lets a new segment's header start at the nominal
// boundary, or at the oldest sample still to come, rather than at the
// run's start. A ts below an earlier one is ignored.
func (s *Writer) Watermark(ts uint64) { s.wm = max(s.wm, ts) }

// Thread returns the handle of a thread (thread id, interpreter id),
// valid across segments until its Forget or Close.
func (s *Writer) Thread(id uint64, interp uint32) *Thread {
	k := threadKey{id, interp}
	if t, ok := s.threads[k]; ok {
		return t
	}
	t := &Thread{s: s, key: k}
	s.threads[k] = t
	return t
}
