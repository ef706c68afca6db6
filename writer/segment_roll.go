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

// open makes the next segment, NAME.tachyon.part, and its writer, whose
// header start time is start. The segment is usable whatever the error
// (that of creating its file), which a later flush tries again.
func (s *Segmenter) open(nominal, start uint64) (*segment, error) {
	s.seq++
	path := filepath.Join(s.opts.Dir, SegmentName(s.opts.Prefix, s.opts.Run, nominal, s.seq))
	sf, err := s.newSegFile(path + PartExt)
	seg := s.newSegment(sf, start)
	seg.path = path
	return seg, err
}

// newSegment starts a segment's writer in sf: a closed segment's, Reset,
// or a new one. Both the writing goroutine and finishLoop call it.
func (s *Segmenter) newSegment(sf *segFile, start uint64) *segment {
	opts := Options{StartTime: start, Interval: s.opts.Interval, Compression: s.opts.Compression}
	var w *Writer
	select {
	case w = <-s.recycled:
		if w.Reset(sf, opts) != nil {
			w = nil
		}
	default:
	}
	if w == nil {
		var err error
		if w, err = New(sf, opts); err != nil {
			panic(err) // the options were checked by NewSegmenter, and sf never fails
		}
	}
	return &segment{w: w, file: sf, start: start}
}

// recycle keeps a closed segment's writer for a next segment, so that a
// rollover reuses its buffers, compressor and thread records.
func (s *Segmenter) recycle(w *Writer) {
	select {
	case s.recycled <- w:
	default:
	}
}

// next returns the next segment: the spare one finishLoop opened ahead,
// renamed (or under its own name if the rename fails: finalizing gives it
// its name), or else a new one.
func (s *Segmenter) next(nominal, start uint64) *segment {
	var sp *segment
	select {
	case sp = <-s.spare:
	default:
		s.mu.Lock()
		s.stats.Unprepared++
		s.mu.Unlock()
		seg, err := s.open(nominal, start)
		if err != nil {
			s.failed(err)
		}
		return seg
	}
	s.seq++
	path := filepath.Join(s.opts.Dir, SegmentName(s.opts.Prefix, s.opts.Run, nominal, s.seq))
	part := path + PartExt
	if _, err := os.Lstat(part); errors.Is(err, fs.ErrNotExist) && os.Rename(sp.file.name, part) == nil {
		sp.file.name = part
	}
	sp.w.opts.StartTime = start // no thread yet: nothing used the old one
	sp.path, sp.start = path, start
	return sp
}

// prepare opens a spare segment for the next rollover, unless one waits
// or the directory refuses it.
func (s *Segmenter) prepare() {
	if len(s.spare) > 0 {
		return
	}
	for try := 0; try < 100; try++ {
		name := filepath.Join(s.opts.Dir, spareName(s.opts.Prefix, rand.Uint32()))
		if _, err := os.Lstat(name); !errors.Is(err, fs.ErrNotExist) {
			continue
		}
		sf, err := s.newSegFile(name)
		if err != nil {
			sf.drop()
			return // the rollover opens its own, and says what fails
		}
		s.spare <- s.newSegment(sf, 0)
		return
	}
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
func (s *Segmenter) roll(first, last uint64) {
	t0 := time.Now()
	nominal := max(s.gridFloor(first), s.deadline)
	next := s.next(nominal, min(nominal, s.floor()))
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
// finalized (or, if the directory still refuses it after a last try,
// given up) and the Closed calls have returned. It returns an error if
// anything was lost: the first error that lost something, with what was
// lost; a second Close returns ErrClosed.
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
		sp.file.drop()
	default:
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ferr == nil {
		return nil
	}
	return fmt.Errorf("writer: segments in %s: %d samples and %d segments lost: %w", s.opts.Dir, s.stats.Dropped, s.stats.Lost, s.ferr)
}
