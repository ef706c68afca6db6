package httpprof

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// errTooLarge is the spill's answer to a write past its limit: the profile
// stops at the writer's first failed write.
var errTooLarge = errors.New("httpprof: the profile passed the handler's MaxBytes")

// spill is the temporary file a request's profile is written to, so that
// the answer is on disk, not in the heap. It refuses a write that would
// take the file past max bytes, and closes full when it does. The file is
// unlinked as soon as it is created where the system allows it (an open
// file stays usable), so that nothing is left behind whatever happens to
// the request or the process; elsewhere remove deletes it.
type spill struct {
	f        *os.File
	max      int64
	off      int64 // the write offset
	size     int64 // the end of the furthest write
	unlinked bool
	full     chan struct{}
	once     sync.Once
}

// newSpill creates the temporary file in dir (os.TempDir if empty).
func newSpill(dir string, max int64) (*spill, error) {
	f, err := os.CreateTemp(dir, "httpprof-*.tachyon")
	if err != nil {
		return nil, fmt.Errorf("httpprof: a temporary file for the profile: %w", err)
	}
	s := &spill{f: f, max: max, full: make(chan struct{})}
	s.unlinked = os.Remove(f.Name()) == nil
	return s, nil
}

// Write writes p at the offset, or nothing if that would pass the limit.
func (s *spill) Write(p []byte) (int, error) {
	if s.off+int64(len(p)) > s.max {
		s.once.Do(func() { close(s.full) })
		return 0, errTooLarge
	}
	n, err := s.f.Write(p)
	s.off += int64(n)
	s.size = max(s.size, s.off)
	return n, err
}

// Seek moves the offset, as io.Seeker says.
func (s *spill) Seek(offset int64, whence int) (int64, error) {
	off, err := s.f.Seek(offset, whence)
	if err == nil {
		s.off = off
	}
	return off, err
}

// tooLarge reports whether a write was refused for the limit.
func (s *spill) tooLarge() bool {
	select {
	case <-s.full:
		return true
	default:
		return false
	}
}

// reader returns the written bytes from the start.
func (s *spill) reader() (io.Reader, error) {
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("httpprof: rereading the profile's temporary file: %w", err)
	}
	return io.LimitReader(s.f, s.size), nil
}

// remove closes the file and deletes it if it was not unlinked at once.
// It deletes by name only the file it created, still open until then.
func (s *spill) remove() {
	s.f.Close()
	if !s.unlinked {
		os.Remove(s.f.Name())
	}
}
