package segment

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/gotachyon/profiler/writer"
)

// newSegment makes the file of the segment [start, end),
// NAME.tachyon.part; its writer is attached by the caller. The segment is
// usable whatever the error (that of creating its file), which a later
// flush tries again.
func (s *Writer) newSegment(start, end uint64) (*segment, error) {
	s.seq++
	path := filepath.Join(s.opts.Dir, Name(s.opts.Prefix, s.opts.Run, start, s.seq))
	sf, err := s.newSegFile(path + PartExt)
	return &segment{file: sf, path: path, start: start, end: end}, err
}

// attach starts w, or a new writer if w is nil, in seg's file, with the
// header start time seg.start.
func (s *Writer) attach(seg *segment, w *writer.Writer) {
	opts := writer.Options{StartTime: seg.start, Interval: s.opts.Interval, Compression: s.opts.Compression}
	if w == nil || w.Reset(seg.file, opts) != nil {
		var err error
		if w, err = writer.New(seg.file, opts); err != nil {
			panic(err) // the options were checked by New, and a segFile never fails
		}
	}
	if s.told {
		w.Finishing()
	}
	seg.w = w
}

// next returns the segment [start, end), written by the spare writer if
// there is one: the spare file finishLoop opened ahead, renamed (or under
// its own name if the rename fails: finalizing gives it its name), or else
// a new one.
func (s *Writer) next(start, end uint64) *segment {
	var w *writer.Writer
	var local []uint32
	select {
	case sp := <-s.spares:
		w, local = sp.w, sp.local
		clear(local[:cap(local)]) // growZeroed wants zeros past the length
	default:
	}
	var seg *segment
	select {
	case seg = <-s.spare:
		s.seq++
		seg.path = filepath.Join(s.opts.Dir, Name(s.opts.Prefix, s.opts.Run, start, s.seq))
		seg.start, seg.end = start, end
		part := seg.path + PartExt
		if _, err := os.Lstat(part); errors.Is(err, fs.ErrNotExist) && os.Rename(seg.file.name, part) == nil {
			seg.file.name = part
		}
	default:
		s.mu.Lock()
		s.stats.Unprepared++
		s.mu.Unlock()
		var err error
		if seg, err = s.newSegment(start, end); err != nil {
			s.failed(err)
		}
	}
	s.attach(seg, w)
	seg.local = local[:0]
	return seg
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

// newest returns the newest open segment, which the latest samples go to.
func (s *Writer) newest() *segment { return s.open[len(s.open)-1] }

// route returns the open segment whose range holds ts, first finalizing
// the segments MaxLag behind it and opening the segment of a ts past the
// newest's end, or the first segment's sequel for a ts in its range; nil
// if no segment can hold ts.
func (s *Writer) route(ts uint64) *segment {
	if ts >= s.limit {
		s.reach(ts)
	}
	for i := len(s.open) - 1; i >= 0; i-- {
		if seg := s.open[i]; ts >= seg.start {
			if ts < seg.end {
				return seg
			}
			break
		}
	}
	if ts >= s.early.start && ts < s.early.end {
		return s.sequel()
	}
	return nil
}

// nextStart returns the start of the first range after ts that a
// segment may hold: an open segment's, or the first segment's sequel's.
func (s *Writer) nextStart(ts uint64) uint64 {
	next := uint64(math.MaxUint64)
	if ts < s.early.start {
		next = s.early.start
	}
	for _, seg := range s.open {
		if seg.start > ts {
			return min(next, seg.start)
		}
	}
	return next
}

// sequel opens the segment of the first segment's range, for its samples
// that came after the first rollover finalized it, before the open ones.
func (s *Writer) sequel() *segment {
	t0 := time.Now()
	seg := s.next(s.early.start, s.early.end)
	s.early.start, s.early.end = 0, 0
	s.open = slices.Insert(s.open, 0, seg)
	s.mu.Lock()
	s.stats.Rollovers++
	s.stats.PeakOpen = max(s.stats.PeakOpen, len(s.open))
	s.mu.Unlock()
	s.paused(t0)
	s.setLimit()
	return seg
}

// reach finalizes the open segments that end MaxLag or more before ts
// (but the newest), and opens the segment of ts if it is past the
// newest's end.
func (s *Writer) reach(ts uint64) {
	for len(s.open) > 1 && s.open[0].end+s.maxLag <= ts {
		s.mu.Lock()
		s.stats.Expired++
		s.mu.Unlock()
		s.finishOldest()
	}
	if ts >= s.newest().end {
		s.roll(ts)
	}
	s.setLimit()
}

// roll opens the segment of ts, past the newest's end, which ends where
// it starts (periods without samples in between join the newest), after
// finalizing the segments the watermark passed, so that the next one
// reuses a writer; with MaxOpen segments still open, it lengthens the
// newest to hold ts instead, unless the newest is full. The segment after
// a full one starts at its end. It runs on the writing goroutine; the
// segments finished are closed and finalized by the Writer's own.
func (s *Writer) roll(ts uint64) {
	t0 := time.Now()
	last := s.newest()
	start, end := s.gridFloor(ts), s.gridFloor(ts)+s.period
	if last.full {
		start = last.end
	} else if len(s.open) >= MaxOpen && s.open[0].end > s.wm {
		s.mu.Lock()
		s.stats.Extended += int((start + s.period - last.end) / s.period)
		s.mu.Unlock()
		last.end = start + s.period
		return
	}
	last.end = start
	for len(s.open) > 0 && s.open[0].end <= s.wm {
		s.finishOldest()
	}
	if s.firstSeg != nil {
		// The first rollover finalizes the first segment at once, so
		// that a process that dies soon after its start leaves a
		// finalized file: its samples that come later go to its sequel.
		if !s.firstSeg.handed {
			s.early.start, s.early.end = s.firstSeg.start, s.firstSeg.end
			s.finishOldest()
		}
		s.firstSeg = nil
	}
	s.open = append(s.open, s.next(start, end))
	s.mu.Lock()
	s.stats.Rollovers++
	s.stats.PeakOpen = max(s.stats.PeakOpen, len(s.open))
	s.mu.Unlock()
	s.paused(t0)
}

// wrote notes samples just written into seg, the newest at ts. Once the
// newest segment's writer holds Options.fullAt samples, the segment ends
// after its newest sample, which a later sample's rollover opens the next
// segment at.
func (s *Writer) wrote(seg *segment, ts uint64) {
	seg.maxTS = max(seg.maxTS, ts)
	if seg.full || seg != s.newest() || seg.maxTS >= seg.end-1 || seg.w.Stats().Samples < s.opts.fullAt {
		return
	}
	seg.end, seg.full = seg.maxTS+1, true
	s.mu.Lock()
	s.stats.EndedFull++
	s.mu.Unlock()
	s.setLimit()
}

// settle finalizes the open segments, but the newest, that the watermark
// passed, oldest first.
func (s *Writer) settle() {
	for len(s.open) > 1 && s.open[0].end <= s.wm {
		s.finishOldest()
	}
	s.setLimit()
}

// setLimit sets the time from which a sample takes the slow path: the
// newest segment's end, or MaxLag past the oldest's if another is open.
func (s *Writer) setLimit() {
	s.limit = s.newest().end
	if len(s.open) > 1 {
		s.limit = min(s.limit, s.open[0].end+s.maxLag)
	}
}

// finishOldest hands the oldest open segment to finishLoop, which closes
// its writer (writing every thread's last run, its tables, footer and
// header) and keeps the writer for a later segment. While a segment
// handed over earlier still waits for finishLoop (busy with a Closed
// call, say), it closes the writer itself, so that the writers waiting
// for finishLoop, and their memory, stay at two.
func (s *Writer) finishOldest() {
	t0 := time.Now()
	seg := s.open[0]
	copy(s.open, s.open[1:])
	s.open[len(s.open)-1] = nil
	s.open = s.open[:len(s.open)-1]
	seg.handed = true
	if len(s.closing) > 0 {
		seg.closeErr = s.closeWriter(seg)
	}
	s.closing <- seg
	s.paused(t0)
}

// paused counts a pause of the writing goroutine that began at t0.
func (s *Writer) paused(t0 time.Time) {
	d := time.Since(t0)
	s.mu.Lock()
	s.stats.Pauses += d
	s.stats.MaxPause = max(s.stats.MaxPause, d)
	s.mu.Unlock()
}

// Close closes the open segments and waits until every closed segment is
// finalized (or, if the directory still refuses it after a last try,
// given up) and the Closed calls have returned. It returns an error if
// anything was lost: the first error that lost something, with what was
// lost; a second Close returns writer.ErrClosed.
func (s *Writer) Close() error {
	if s.closed {
		return writer.ErrClosed
	}
	s.closed = true
	s.newest().last = true
	for i, seg := range s.open {
		seg.handed, seg.closing = true, true
		s.closing <- seg // finishLoop closes its writer
		s.open[i] = nil
	}
	s.open = nil
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
