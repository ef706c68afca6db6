package reader

import (
	"errors"
	"io"
	"runtime/debug"
)

// A mapped file can change under the mapping: truncated by another
// process, its pages vanish and touching them raises SIGBUS, which would
// kill the program. Every access to mapped bytes goes through guard, which
// turns such a fault into ErrChanged, and inside the File's lifetime, so
// that Close never unmaps pages under a read and a read after Close gives
// ErrClosed.

var (
	// ErrChanged is returned when a mapped file was truncated or
	// rewritten while it was being read.
	ErrChanged = errors.New("tachyon: the file changed while it was being read (truncated or rewritten by another process?)")
	// ErrClosed is returned for a File used after Close, and by a Samples
	// iterator that was closed, or whose File was, before it ended.
	ErrClosed = errors.New("tachyon: file already closed")
)

// guard runs fn, turning a memory fault inside it into ErrChanged.
func guard(fn func() error) (err error) {
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		if r := recover(); r != nil {
			if _, fault := r.(interface{ Addr() uintptr }); !fault {
				panic(r)
			}
			err = ErrChanged
		}
	}()
	return fn()
}

// mappedReader reads a region of a mapped file, copying under guard while
// the file is open.
type mappedReader struct {
	data []byte
	off  int
	life *lifetime
}

func (m *mappedReader) Read(p []byte) (int, error) {
	var n int
	err := m.life.use(func() error {
		if m.off >= len(m.data) {
			return io.EOF
		}
		return guard(func() error {
			n = copy(p, m.data[m.off:])
			return nil
		})
	})
	m.off += n
	return n, err
}
