package checkpoint

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"time"
)

// Bounds of what a stream holds while the disk refuses writes.
const (
	// MaxHeld is how many bytes of the stream are held in memory while
	// the disk refuses them; past it the stream fails, and its last
	// checkpoint is what is left.
	MaxHeld = 8 << 20
	// RetryEvery is how often held bytes are tried again.
	RetryEvery = 100 * time.Millisecond
)

// ErrHeldFull is the stream's error once the disk refused more than the
// held bytes' bound.
var ErrHeldFull = errors.New("the disk refused writes for longer than the held bytes' bound")

// holdFile is the stream's file as its writer.Writer sees it: the bytes
// the disk refuses are held in memory, in order, and written by a later
// Write once a retry period has passed, so that a passing failure of the
// disk loses nothing. It is used by the writing goroutine; disk is read by
// the syncing one.
type holdFile struct {
	f       *os.File
	max     int
	size    int64        // bytes written through it
	disk    atomic.Int64 // of which the first disk are in the file
	pend    []byte       // the rest
	pos     int64
	tried   time.Time // the last failed write
	since   time.Time // the first failed write of the outage, or zero
	fault   func() error
	outage  func(err error)           // told of an outage's first failure
	resumed func(after time.Duration) // and of its end
}

// Write writes p at the current position, holding what the file refuses.
// Below the end (the header, at Close) it writes only once nothing is
// held.
func (h *holdFile) Write(p []byte) (int, error) {
	if h.pos < h.size {
		if err := h.flush(); err != nil {
			return 0, err
		}
		n, err := h.f.WriteAt(p, h.pos)
		h.pos += int64(n)
		h.size = max(h.size, h.pos)
		h.disk.Store(max(h.disk.Load(), h.pos))
		return n, err
	}
	if len(h.pend) > 0 {
		if time.Since(h.tried) >= RetryEvery {
			h.flush()
		}
		if len(h.pend) > 0 {
			if len(h.pend)+len(p) > h.max {
				return 0, fmt.Errorf("%s: %w (%d bytes) after %v", h.f.Name(), ErrHeldFull, h.max, time.Since(h.since).Round(time.Millisecond))
			}
			h.pend = append(h.pend, p...)
			h.pos += int64(len(p))
			h.size = h.pos
			return len(p), nil
		}
	}
	k, err := h.write(p)
	h.pos += int64(len(p))
	h.size = h.pos
	if err != nil {
		h.failed(err)
		if len(p)-k > h.max {
			return k, fmt.Errorf("%s: %w (%d bytes): %w", h.f.Name(), ErrHeldFull, h.max, err)
		}
		h.pend = append(h.pend, p[k:]...)
	}
	return len(p), nil
}

// write writes p at the end of the file.
func (h *holdFile) write(p []byte) (int, error) {
	if h.fault != nil {
		if err := h.fault(); err != nil {
			return 0, err
		}
	}
	n, err := h.f.WriteAt(p, h.disk.Load())
	h.disk.Add(int64(n))
	return n, err
}

// flush writes the held bytes; it returns the error that keeps some held.
func (h *holdFile) flush() error {
	if len(h.pend) == 0 {
		return nil
	}
	k, err := h.write(h.pend)
	h.pend = h.pend[:copy(h.pend, h.pend[k:])]
	if err != nil {
		h.failed(err)
		return fmt.Errorf("%s: %w", h.f.Name(), err)
	}
	h.pend = nil // let the memory go
	if h.resumed != nil {
		h.resumed(time.Since(h.since))
	}
	h.since = time.Time{}
	return nil
}

// failed notes a failed write.
func (h *holdFile) failed(err error) {
	h.tried = time.Now()
	if h.since.IsZero() {
		h.since = h.tried
		if h.outage != nil {
			h.outage(err)
		}
	}
}

// Seek sets the position of the next Write.
func (h *holdFile) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		off += h.pos
	case io.SeekEnd:
		off += h.size
	}
	if off < 0 || off > h.size {
		return h.pos, fmt.Errorf("%s: seek to %d outside 0..%d", h.f.Name(), off, h.size)
	}
	h.pos = off
	return off, nil
}
