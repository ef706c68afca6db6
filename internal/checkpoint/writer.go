package checkpoint

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/gotachyon/profiler/internal/own"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// Options configure a Writer.
type Options struct {
	// Dir is the directory of the stream and its mark; it must exist.
	Dir string
	// Writer configures the Tachyon writer of the stream.
	Writer writer.Options
	// First is when the first checkpoint is due after New, Period how
	// often the next ones are.
	First, Period time.Duration
	// Logf, if not nil, is told once of the first error syncing the
	// stream or writing a mark, and of each outage of the disk.
	Logf func(format string, args ...any)

	maxHeld int          // MaxHeld if 0
	fault   func() error // a test's failure of each write
}

// Stats counts a Writer's checkpoints.
type Stats struct {
	// Checkpoints counts the checkpoints taken; Written is the number of
	// the newest whose mark is on disk (a mark not yet written is replaced
	// by the next checkpoint's).
	Checkpoints, Written int
	// Outages counts the times the disk started refusing writes.
	Outages int
	// LongestPause is the longest a checkpoint held the writing goroutine
	// (writing the pending runs and ending a compressed frame).
	LongestPause time.Duration
}

// Writer streams a Tachyon file into its directory's DataName and takes
// a checkpoint when one is due at a Watermark. Frame, Thread, Watermark
// and Close are called from one goroutine; Stats from any. The stream is
// synced and the mark written by a goroutine of the Writer's own, so that
// the writing goroutine never waits on the disk for a checkpoint.
type Writer struct {
	w    *writer.Writer
	root *os.Root    // opts.Dir as created: marks go there even if the path is replaced
	fi   os.FileInfo // the stream's identity
	f    *os.File
	hf   *holdFile // f as w writes it
	opts Options
	next time.Time // when the next checkpoint is due
	seq  uint32
	// covered is set once a checkpoint holds the samples of the first
	// First.
	covered bool
	buf     []byte // the last checkpoint's tables, reused
	// tablesLen is the length of the last checkpoint's tables: the next
	// ones are at least as long.
	tablesLen int
	quit      chan struct{}
	done      chan struct{}
	wake      chan struct{}
	mu        sync.Mutex
	mark      Mark // the newest checkpoint not yet written out
	have      bool
	err       error // the first sync or mark error
	stats     Stats
}

// New creates the stream in opts.Dir and starts its Tachyon file.
func New(opts Options) (*Writer, error) {
	f, err := os.OpenFile(filepath.Join(opts.Dir, DataName), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(opts.Dir)
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		root.Close()
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	c := &Writer{root: root, fi: fi, f: f, opts: opts, next: time.Now().Add(opts.First),
		quit: make(chan struct{}), done: make(chan struct{}), wake: make(chan struct{}, 1)}
	c.hf = &holdFile{f: f, max: opts.maxHeld, fault: opts.fault, outage: c.outage, resumed: c.resumed}
	if c.hf.max == 0 {
		c.hf.max = MaxHeld
	}
	w, err := writer.New(c.hf, opts.Writer)
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	c.w = w
	own.Go(c.syncLoop)
	return c, nil
}

// Frame interns f in the stream.
func (c *Writer) Frame(f tachyon.Frame) uint32 { return c.w.Frame(f) }

// Thread returns the handle of a thread of the stream.
func (c *Writer) Thread(id uint64, interp uint32) *writer.Thread { return c.w.Thread(id, interp) }

// NewThread returns a new handle of a thread of the stream, which the
// stream does not keep by id (writer.Writer.NewThread).
func (c *Writer) NewThread(id uint64, interp uint32) *writer.Thread {
	return c.w.NewThread(id, interp)
}

// NewThreadNo returns the number of a new thread of the stream
// (writer.Writer.NewThreadNo), for the methods below.
func (c *Writer) NewThreadNo(id uint64, interp uint32) writer.ThreadNo {
	return c.w.NewThreadNo(id, interp)
}

// WriteNo writes a sample of thread n (writer.Writer.WriteNo).
func (c *Writer) WriteNo(n writer.ThreadNo, ts uint64, status tachyon.Status, stack []uint32) error {
	return c.w.WriteNo(n, ts, status, stack)
}

// RepeatEveryNo writes a run of thread n (writer.Writer.RepeatEveryNo).
func (c *Writer) RepeatEveryNo(n writer.ThreadNo, ts, step uint64, count int, status tachyon.Status) error {
	return c.w.RepeatEveryNo(n, ts, step, count, status)
}

// FlushNo ends thread n's pending run (writer.Writer.FlushNo).
func (c *Writer) FlushNo(n writer.ThreadNo) { c.w.FlushNo(n) }

// RepeatFlushNo writes a run of thread n and ends it
// (writer.Writer.RepeatFlushNo).
func (c *Writer) RepeatFlushNo(n writer.ThreadNo, ts, step uint64, count int, status tachyon.Status) error {
	return c.w.RepeatFlushNo(n, ts, step, count, status)
}

// ForgetNo releases thread n (writer.Writer.ForgetNo).
func (c *Writer) ForgetNo(n writer.ThreadNo) { c.w.ForgetNo(n) }

// Watermark is where a checkpoint is taken, when one is due: every
// sample written so far goes into it, whatever ts says. The sampler
// writes a second or two late, so the checkpoint due at First holds
// little more than the first tick; one more is taken as soon as the
// samples of the first First are written (ts passes it), so that a
// process that dies in its first checkpoint period leaves them.
func (c *Writer) Watermark(ts uint64) {
	now := time.Now()
	full := ts >= c.opts.Writer.StartTime+uint64(c.opts.First/time.Microsecond)
	if now.Before(c.next) && (c.covered || c.opts.First == 0 || !full) {
		return
	}
	c.covered = c.covered || full
	c.checkpoint(now)
}

// checkpoint takes a checkpoint and hands its mark to the syncing
// goroutine, replacing one it has not started on.
func (c *Writer) checkpoint(now time.Time) {
	for !c.next.After(now) {
		c.next = c.next.Add(c.opts.Period)
	}
	cp, err := c.w.Checkpoint(roomy(c.buf, c.tablesLen))
	if err != nil {
		return // the writer keeps its error: the next write and Close return it
	}
	c.tablesLen = len(cp.Tables)
	c.seq++
	pause := time.Since(now)
	c.mu.Lock()
	// The tables' buffers go round (here, the mark handed over, the
	// syncing goroutine's), so that none is copied.
	c.buf = c.mark.Tables
	c.mark = Mark{Seq: c.seq, DataEnd: cp.DataEnd, Samples: cp.Samples, Header: cp.Header, Tables: cp.Tables}
	c.have = true
	c.stats.Checkpoints++
	c.stats.LongestPause = max(c.stats.LongestPause, pause)
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// roomy returns b emptied, for n bytes or a little more (what the last
// use of any of the buffers going round held); when it has less than an
// eighth more room, a new one with room for twice n, so that tables that
// grow a little at each checkpoint reallocate only as often as they
// double, whichever buffer comes back (one last used checkpoints ago
// would otherwise be judged by its own, older, length).
func roomy(b []byte, n int) []byte {
	if cap(b) < n+n/8 {
		return make([]byte, 0, 2*n)
	}
	return b[:0]
}

// syncLoop writes out each checkpoint handed to it until Close.
func (c *Writer) syncLoop() {
	defer close(c.done)
	var m Mark
	var enc []byte
	for {
		select {
		case <-c.wake:
		case <-c.quit:
			return
		}
		c.mu.Lock()
		if !c.have {
			c.mu.Unlock()
			continue
		}
		m, c.mark.Tables = c.mark, m.Tables
		c.have = false
		c.mu.Unlock()
		if m.DataEnd > c.hf.disk.Load() {
			continue // records the disk has not taken yet: a later checkpoint's mark
		}
		enc = appendMark(roomy(enc, len(enc)), &m)
		err := c.f.Sync()
		if err == nil {
			err = c.writeMark(enc)
		}
		c.mu.Lock()
		if err == nil {
			c.stats.Written = int(m.Seq)
		} else if c.err == nil {
			c.err = err
			if c.opts.Logf != nil {
				c.opts.Logf("profiler: a checkpoint of %s was not written (a crash from now on loses more): %v", c.opts.Dir, err)
			}
		}
		c.mu.Unlock()
	}
}

// writeMark replaces the mark with enc: a mark on disk is always whole.
func (c *Writer) writeMark(enc []byte) error {
	path := MarkName
	f, err := c.root.OpenFile(path+".tmp", os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(enc)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = c.root.Rename(path+".tmp", path)
	}
	return err
}

// outage logs the first failure of an outage of the disk.
func (c *Writer) outage(err error) {
	c.mu.Lock()
	c.stats.Outages++
	c.mu.Unlock()
	if c.opts.Logf != nil {
		c.opts.Logf("profiler: writing %s failed: %v; holding up to %d MiB of the profile in memory, trying again every %v (a crash meanwhile keeps the last checkpoint)", c.f.Name(), err, c.hf.max>>20, RetryEvery)
	}
}

// resumed logs the end of an outage of the disk.
func (c *Writer) resumed(after time.Duration) {
	if c.opts.Logf != nil {
		c.opts.Logf("profiler: writing %s resumed after %v; nothing was lost", c.f.Name(), after.Round(time.Millisecond))
	}
}

// Stats returns the checkpoints so far.
func (c *Writer) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}

// Finishing says the stream's end is being written while its program
// waits for it (writer.Writer.Finishing). It may be called from any
// goroutine.
func (c *Writer) Finishing() { c.w.Finishing() }

// Close stops the checkpoints and finishes the stream: its last records,
// tables and header, synced to the disk. It returns the finished file's
// path for the caller to rename into place (or, if Intact says the path
// no longer names it, to copy out with CopyTo), and then Release. On
// error the directory keeps the stream and the last mark, which Finish
// reads, and Close has released them.
func (c *Writer) Close() (string, error) {
	close(c.quit)
	<-c.done
	err := c.w.Close()
	if err == nil {
		err = c.f.Sync()
	}
	if err != nil {
		c.Release()
		return "", fmt.Errorf("finishing %s: %w", c.f.Name(), err)
	}
	return c.f.Name(), nil
}

// Intact reports whether dir (the path of Options.Dir) still names the
// directory New created, and the stream is still in it under its name.
func (c *Writer) Intact() bool {
	dfi, err := os.Lstat(c.opts.Dir)
	if err != nil || !dfi.IsDir() {
		return false
	}
	rfi, err := c.root.Stat(".")
	if err != nil || !os.SameFile(dfi, rfi) {
		return false
	}
	now, err := os.Lstat(c.f.Name())
	return err == nil && os.SameFile(now, c.fi)
}

// CopyTo writes the finished stream, from the descriptor still open, to
// out (a new file renamed over it).
func (c *Writer) CopyTo(out string) error {
	fi, err := c.f.Stat()
	if err != nil {
		return err
	}
	return Replace(out, func(f *os.File) error {
		_, err := io.Copy(f, io.NewSectionReader(c.f, 0, fi.Size()))
		return err
	})
}

// Release closes the stream's descriptor and the directory handle.
func (c *Writer) Release() {
	c.f.Close()
	c.root.Close()
}

// Abort stops the checkpoints and removes the stream and its mark.
func (c *Writer) Abort() {
	close(c.quit)
	<-c.done
	c.w.Close()
	c.f.Close()
	c.root.Close()
	os.Remove(c.f.Name())
	os.Remove(filepath.Join(c.opts.Dir, MarkName))
}

// Present reports whether dir holds a stream or a mark.
func Present(dir string) bool {
	for _, n := range []string{DataName, MarkName} {
		if _, err := os.Lstat(filepath.Join(dir, n)); err == nil || !errors.Is(err, os.ErrNotExist) {
			return true
		}
	}
	return false
}
