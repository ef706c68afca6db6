package segment

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/gotachyon/profiler/writer"
)

// open makes the next segment's file, NAME.tachyon.part; its writer is
// attached by the caller. The segment is usable whatever the error (that
// of creating its file), which a later flush tries again.
func (s *Writer) open(nominal uint64) (*segment, error) {
	s.seq++
	path := filepath.Join(s.opts.Dir, Name(s.opts.Prefix, s.opts.Run, nominal, s.seq))
	sf, err := s.newSegFile(path + PartExt)
	return &segment{file: sf, path: path}, err
}

// attach starts w, or a new writer if w is nil, in seg's file, with the
// header start time start.
func (s *Writer) attach(seg *segment, w *writer.Writer, start uint64) {
	opts := writer.Options{StartTime: start, Interval: s.opts.Interval, Compression: s.opts.Compression}
	if w == nil || w.Reset(seg.file, opts) != nil {
		var err error
		if w, err = writer.New(seg.file, opts); err != nil {
			panic(err) // the options were checked by New, and a segFile never fails
		}
	}
	seg.w, seg.start = w, start
}

// next returns the next segment, its writer w (the closed segment's)
// started anew in it: the spare file finishLoop opened ahead, renamed (or
// under its own name if the rename fails: finalizing gives it its name),
// or else a new one.
func (s *Writer) next(nominal, start uint64, w *writer.Writer) *segment {
	var sp *segment
	select {
	case sp = <-s.spare:
	default:
		s.mu.Lock()
		s.stats.Unprepared++
		s.mu.Unlock()
		seg, err := s.open(nominal)
		if err != nil {
			s.failed(err)
		}
		s.attach(seg, w, start)
		return seg
	}
	s.seq++
	path := filepath.Join(s.opts.Dir, Name(s.opts.Prefix, s.opts.Run, nominal, s.seq))
	part := path + PartExt
	if _, err := os.Lstat(part); errors.Is(err, fs.ErrNotExist) && os.Rename(sp.file.name, part) == nil {
		sp.file.name = part
	}
	sp.path = path
	s.attach(sp, w, start)
	return sp
}

// prepare opens a spare segment for the next rollover, unless one waits
// or the directory refuses it.
func (s *Writer) prepare() {
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
		s.spare <- &segment{file: sf}
		return
	}
}

// gridFloor returns the segment boundary at or before ts.
func (s *Writer) gridFloor(ts uint64) uint64 {
	if ts < s.origin+s.period { // before the first boundary
		return s.opts.StartTime
	}
	return s.origin + (ts-s.origin)/s.period*s.period
}

// roll closes the open segment and opens the next, for samples from first
// to last (first past the open segment's end). It runs on the writing
// goroutine; the closed segment is finalized by the Writer's own.
func (s *Writer) roll(first, last uint64) {
	t0 := time.Now()
	nominal := max(s.gridFloor(first), s.deadline)
	// The closed segment's writer writes its tables here, and then the
	// next segment: one writer serves every segment, its memory reused.
	old := s.cur
	old.samples = old.w.Stats().Samples
	old.closeErr = old.w.Close()
	w := old.w
	old.w = nil
	next := s.next(nominal, min(nominal, s.floor()), w)
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
func (s *Writer) floor() uint64 {
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
// lost; a second Close returns writer.ErrClosed.
func (s *Writer) Close() error {
	if s.closed {
		return writer.ErrClosed
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
	return fmt.Errorf("segment: %d samples and %d segments lost in %s: %w", s.stats.Dropped, s.stats.Lost, s.opts.Dir, s.ferr)
}
