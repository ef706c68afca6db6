package writer

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"
)

// SegmentExt ends every finalized segment's name; the open segment's name
// adds PartExt.
const (
	SegmentExt = ".tachyon"
	PartExt    = ".part"
)

// SegmentName returns the name of segment number seq (from 1) whose
// nominal start is start (µs since the epoch):
// PREFIX-YYYYMMDDTHHMMSS.mmmZ-NNNNNN.tachyon, which sorts by start time.
func SegmentName(prefix string, start uint64, seq int) string {
	t := time.UnixMicro(int64(start)).UTC()
	return fmt.Sprintf("%s-%sZ-%06d%s", prefix, t.Format("20060102T150405.000"), seq, SegmentExt)
}

// open creates the next segment's file, NAME.tachyon.part, and its writer,
// whose header start time is start.
func (s *Segmenter) open(nominal, start uint64) (*segment, error) {
	s.seq++
	path := filepath.Join(s.opts.Dir, SegmentName(s.opts.Prefix, nominal, s.seq))
	part := path + PartExt
	f, err := os.OpenFile(part, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("writer: segment: %w", err)
	}
	w, err := s.reuse(f, start)
	if err != nil {
		f.Close()
		os.Remove(part)
		return nil, err
	}
	return &segment{w: w, f: f, part: part, path: path, start: start}, nil
}

// next returns the next segment: the spare one finishLoop opened ahead,
// renamed, or else a new one.
func (s *Segmenter) next(nominal, start uint64) (*segment, error) {
	var sp *segment
	select {
	case sp = <-s.spare:
	default:
		s.mu.Lock()
		s.stats.Unprepared++
		s.mu.Unlock()
		return s.open(nominal, start)
	}
	s.seq++
	path := filepath.Join(s.opts.Dir, SegmentName(s.opts.Prefix, nominal, s.seq))
	part := path + PartExt
	if _, err := os.Lstat(part); err == nil {
		sp.discard()
		return nil, fmt.Errorf("writer: segment %s: %w", part, os.ErrExist)
	}
	if err := os.Rename(sp.part, part); err != nil {
		sp.discard()
		return nil, fmt.Errorf("writer: segment: %w", err)
	}
	sp.w.opts.StartTime = start // no thread yet: nothing used the old one
	sp.part, sp.path, sp.start = part, path, start
	return sp, nil
}

// prepare opens a spare segment for the next rollover, unless one waits.
func (s *Segmenter) prepare() {
	if len(s.spare) > 0 {
		return
	}
	f, err := s.createSpare()
	if err != nil {
		return // the rollover opens its own, and says what fails
	}
	w, err := s.reuse(f, 0)
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return
	}
	s.spare <- &segment{w: w, f: f, part: f.Name()}
}

// reuse starts a Writer in f, at start: a finalized segment's, Reset,
// or a new one. Both the writing goroutine and finishLoop call it.
func (s *Segmenter) reuse(f *os.File, start uint64) (*Writer, error) {
	opts := Options{StartTime: start, Interval: s.opts.Interval, Compression: s.opts.Compression}
	select {
	case w := <-s.recycled:
		if err := w.Reset(f, opts); err == nil {
			return w, nil
		}
	default:
	}
	return New(f, opts)
}

// createSpare creates a new file for a spare segment under a random name,
// with the same mode as a segment's own file (0644 less the umask, where
// os.CreateTemp would make it 0600 and the directory a mix of modes).
func (s *Segmenter) createSpare() (*os.File, error) {
	for try := 0; ; try++ {
		name := filepath.Join(s.opts.Dir, fmt.Sprintf("%s-next-%d%s", s.opts.Prefix, rand.Uint32(), PartExt))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil || !errors.Is(err, fs.ErrExist) || try == 100 {
			return f, err
		}
	}
}

// discard closes a segment that will not be used and removes its file.
func (seg *segment) discard() {
	seg.f.Close()
	os.Remove(seg.part)
}

// gridFloor returns the segment boundary at or before ts.
func (s *Segmenter) gridFloor(ts uint64) uint64 {
	if ts < s.origin+s.period { // before the first boundary
		return s.opts.StartTime
	}
	return s.origin + (ts-s.origin)/s.period*s.period
}

// roll closes the open segment and opens the next, for samples from first
// to last (first past the open segment's end). It runs on the writing
// goroutine; the closed segment is finalized by the Segmenter's own.
func (s *Segmenter) roll(first, last uint64) error {
	t0 := time.Now()
	nominal := max(s.gridFloor(first), s.deadline)
	next, err := s.next(nominal, min(nominal, s.floor()))
	if err != nil {
		s.err = err
		return err
	}
	old := s.cur
	// The new segment interns its frames anew in the old one's map.
	next.local, old.local = old.local[:0], nil
	clear(next.local[:cap(next.local)])
	s.cur, s.gen = next, s.gen+1
	s.deadline = max(s.gridFloor(last), nominal) + s.period
	s.closing <- old
	d := time.Since(t0)
	s.mu.Lock()
	s.stats.Rollovers++
	s.stats.Pauses += d
	s.stats.MaxPause = max(s.stats.MaxPause, d)
	s.mu.Unlock()
	return nil
}

// floor returns the oldest timestamp that may still come: the writer's
// watermark, or the earliest latest sample of the live threads, whose
// next samples are no older.
func (s *Segmenter) floor() uint64 {
	f := s.wm
	for _, t := range s.threads {
		if t.started {
			f = min(f, t.lastTS)
		}
	}
	return f
}

// Close closes the open segment and waits until every closed segment is
// finalized and the Closed calls have returned. It returns the first
// error met, by the writing side or the finalizing goroutine; a second
// Close returns ErrClosed.
func (s *Segmenter) Close() error {
	if s.closed {
		return ErrClosed
	}
	s.closed = true
	s.cur.last = true
	s.closing <- s.cur
	close(s.closing)
	<-s.done
	select {
	case sp := <-s.spare:
		sp.discard()
	default:
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	return s.ferr
}

// keptFile is a finalized segment the budget may delete.
type keptFile struct {
	path string
	size int64
}

// finishLoop finalizes the closed segments in order.
func (s *Segmenter) finishLoop() {
	defer close(s.done)
	var kept []keptFile
	s.prepare()
	for seg := range s.closing {
		size, err := seg.finalize()
		if err != nil {
			s.finishFailed(err)
			continue
		}
		select {
		case s.recycled <- seg.w:
		default:
		}
		s.mu.Lock()
		s.stats.Written++
		s.stats.Bytes += size
		s.mu.Unlock()
		if s.opts.Closed != nil {
			s.opts.Closed(seg.path, seg.last)
		}
		if s.opts.KeepFiles > 0 || s.opts.KeepBytes > 0 {
			kept = s.budget(append(kept, keptFile{seg.path, size}))
		}
		if !seg.last {
			s.prepare()
		}
	}
}

// finishFailed records the finalizing goroutine's first error.
func (s *Segmenter) finishFailed(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ferr == nil {
		s.ferr = err
	}
}

// finalize writes the segment's tables, footer and header, closes it and
// gives it its final name. It returns the file's size.
func (seg *segment) finalize() (int64, error) {
	werr := seg.w.Close()
	cerr := seg.f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		return 0, fmt.Errorf("writer: segment %s: %w", seg.part, err)
	}
	if _, err := os.Lstat(seg.path); err == nil {
		return 0, fmt.Errorf("writer: segment %s: %w", seg.path, os.ErrExist)
	}
	if err := os.Rename(seg.part, seg.path); err != nil {
		return 0, fmt.Errorf("writer: segment: %w", err)
	}
	fi, err := os.Stat(seg.path)
	if err != nil {
		return 0, fmt.Errorf("writer: segment: %w", err)
	}
	return fi.Size(), nil
}

// budget deletes the oldest of the kept segments while they exceed
// KeepFiles or KeepBytes, always keeping the newest, and returns the rest.
func (s *Segmenter) budget(kept []keptFile) []keptFile {
	var total int64
	for _, k := range kept {
		total += k.size
	}
	over := func() bool {
		return (s.opts.KeepFiles > 0 && len(kept) > s.opts.KeepFiles) ||
			(s.opts.KeepBytes > 0 && total > s.opts.KeepBytes)
	}
	for len(kept) > 1 && over() {
		if err := os.Remove(kept[0].path); err != nil && !errors.Is(err, os.ErrNotExist) {
			s.finishFailed(fmt.Errorf("writer: segment budget: %w", err))
		}
		total -= kept[0].size
		kept = kept[1:]
		s.mu.Lock()
		s.stats.Deleted++
		s.mu.Unlock()
	}
	return kept
}
