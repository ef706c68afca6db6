package segment

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/gotachyon/profiler/internal/runlock"
)

// Bounds of the segments waiting to be finalized while the directory
// refuses them.
const (
	// maxWaiting is the number of closed segments kept waiting; past it
	// the oldest is given up.
	maxWaiting = 64
	// closeTries is the number of tries Close makes at the segments still
	// waiting, a retry period apart, before giving them up.
	closeTries = 4
)

// errHeld is what dropped samples are charged to when no write failed
// yet (a bound reached by bytes held for another reason).
var errHeld = errors.New("segment: the memory bound was reached")

// finishLoop finalizes the closed segments in order, trying again every
// retry period those the directory refuses, and keeps a spare segment
// open ahead while the directory takes writes.
func (s *Writer) finishLoop() {
	defer close(s.done)
	s.cleanStale()
	again := time.Now().Add(runlock.MinAge) // for the files too young to tell at the start
	s.prepare()
	var waiting []*segment
	last := false                       // Close sent the last segment
	own := make(map[string]fs.FileInfo) // this run's finalized files
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		select {
		case seg, ok := <-s.closing:
			if !ok {
				s.closeWaiting(waiting, own)
				if last && !s.lastSaid && s.opts.Closed != nil {
					s.opts.Closed("", true) // the last segment was lost
				}
				return
			}
			last = last || seg.last
			if err := s.closeSegment(seg); err != nil {
				s.lose(seg, err)
				break
			}
			waiting = append(waiting, seg)
		case <-s.wake:
		case <-timer.C:
		}
		waiting = s.commit(waiting, own)
		s.report()
		if !again.IsZero() && time.Now().After(again) {
			s.cleanStale()
			again = time.Time{}
		}
		if len(waiting) > 0 {
			timer.Reset(s.opts.retry)
		} else if !last {
			s.prepare()
		}
	}
}

// closeSegment closes the writer of a segment handed over by the writing
// goroutine, unless that closed it (Writer.finishOldest), and returns
// the error of its Close.
func (s *Writer) closeSegment(seg *segment) error {
	if seg.w == nil {
		return seg.closeErr
	}
	return s.closeWriter(seg)
}

// closeWriter closes seg's writer and, unless one is on offer already or
// Close sent the segment (no later segment comes), recycles it
// (writer.Writer.Recycle: the rollover's Reset then has no work that
// grows with the threads) and offers it, with its frame map, for a later
// segment. The writer goes either way: a waiting segment holds only its
// bytes.
func (s *Writer) closeWriter(seg *segment) error {
	seg.samples = seg.w.Stats().Samples
	err := seg.w.Close()
	if err == nil && !seg.closing && len(s.spares) == 0 {
		seg.w.Recycle()
		select {
		case s.spares <- spareWriter{seg.w, seg.local}:
		default:
		}
	}
	seg.w, seg.local = nil, nil
	return err
}

// closeWaiting makes Close's last tries at the waiting segments, then
// gives up those the directory still refuses.
func (s *Writer) closeWaiting(waiting []*segment, own map[string]fs.FileInfo) {
	for try := 0; ; try++ {
		waiting = s.commit(waiting, own)
		s.report()
		if len(waiting) == 0 || try == closeTries-1 {
			break
		}
		time.Sleep(s.opts.retry)
	}
	for _, seg := range waiting {
		s.lose(seg, s.outageErr())
	}
}

// commit finalizes the waiting segments in order until one fails, gives
// up the oldest past maxWaiting, and returns those still waiting.
func (s *Writer) commit(waiting []*segment, own map[string]fs.FileInfo) []*segment {
	done := 0
	for len(waiting) > 0 {
		seg := waiting[0]
		fi, err := s.finalize(seg)
		if err != nil {
			s.failed(err)
			break
		}
		waiting[0] = nil
		waiting = waiting[1:]
		done++
		s.mu.Lock()
		s.stats.Written++
		if fi != nil {
			s.stats.Bytes += fi.Size()
		}
		s.mu.Unlock()
		if s.opts.Closed != nil {
			s.opts.Closed(seg.path, seg.last)
			s.lastSaid = s.lastSaid || seg.last
		}
		if fi != nil && (s.opts.KeepFiles > 0 || s.opts.KeepBytes > 0) {
			own[seg.path] = fi
			s.budget(own, seg.path)
		}
	}
	if done > 0 && len(waiting) == 0 {
		s.recovered()
	}
	for len(waiting) > maxWaiting {
		s.lose(waiting[0], s.outageErr())
		waiting[0] = nil
		waiting = waiting[1:]
	}
	return waiting
}

// finalize writes what the segment's file still lacks, gives the file its
// final name and closes it. It returns the file's information (nil if it
// cannot be had), or the error that keeps the segment waiting.
func (s *Writer) finalize(seg *segment) (fs.FileInfo, error) {
	sf := seg.file
	if err := sf.rehome(); err != nil {
		return nil, err
	}
	if err := sf.flush(); err != nil {
		return nil, err
	}
	if _, err := os.Lstat(seg.path); err == nil {
		return nil, fmt.Errorf("segment: %s: %w", seg.path, fs.ErrExist)
	}
	if err := s.fault("rename", seg.path); err != nil {
		return nil, fmt.Errorf("segment: %s: %w", seg.path, err)
	}
	if err := os.Rename(sf.name, seg.path); err != nil {
		return nil, fmt.Errorf("segment: %w", err)
	}
	// Renamed: the segment is finalized, whatever its closing says.
	fi, err := sf.f.Stat()
	sf.f.Close()
	sf.f = nil
	if err != nil {
		return nil, nil
	}
	return fi, nil
}

// lose gives up a segment: its samples count as dropped, its file is
// removed if it is still the one created.
func (s *Writer) lose(seg *segment, err error) {
	seg.file.drop()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stats.Lost++
	s.stats.Dropped += seg.samples
	if s.ferr == nil {
		s.ferr = err
	}
}

// dropped counts n samples not written because too many bytes are held.
func (s *Writer) dropped(n uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stats.Dropped += n
	if s.ferr == nil {
		s.ferr = s.first
		if s.ferr == nil {
			s.ferr = errHeld
		}
	}
}

// outageErr returns the current outage's first error.
func (s *Writer) outageErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.first == nil {
		return errHeld
	}
	return s.first
}

// failed counts a failed write into the directory and, if no outage is
// under way, starts one and wakes finishLoop to log it. Either goroutine
// calls it.
func (s *Writer) failed(err error) {
	s.mu.Lock()
	s.stats.Errors++
	start := s.first == nil
	if start {
		s.first, s.since, s.logged = err, time.Now(), false
	}
	s.mu.Unlock()
	if start {
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
}

// report logs the start of an outage, once, and the first samples that
// came too late to be written.
func (s *Writer) report() {
	s.mu.Lock()
	first, log := s.first, s.first != nil && !s.logged
	s.logged = s.logged || log
	late := s.stats.Late
	logLate := late > 0 && !s.lateLogged
	s.lateLogged = s.lateLogged || logLate
	s.mu.Unlock()
	if s.opts.Logf == nil {
		return
	}
	if log {
		s.opts.Logf("segment: cannot write into %s (%v); holding up to %d bytes of samples in memory, trying again every %v", s.opts.Dir, first, s.opts.HoldBytes, s.opts.retry)
	}
	if logLate {
		s.opts.Logf("segment: %d samples came after the segment of their time was finalized (the sampler's watermark lagged or was broken); they are left out, and counted in the segment stats (Late)", late)
	}
}

// recovered ends the outage under way, if any, and logs it; finishLoop
// calls it when the directory took every waiting segment.
func (s *Writer) recovered() {
	s.report()
	s.mu.Lock()
	if s.first == nil {
		s.mu.Unlock()
		return
	}
	d := time.Since(s.since)
	s.stats.Outage += d
	s.first = nil
	dropped := s.stats.Dropped
	s.mu.Unlock()
	if s.opts.Logf != nil {
		s.opts.Logf("segment: writing into %s again after %v; %d samples dropped so far", s.opts.Dir, d.Round(time.Millisecond), dropped)
	}
}
