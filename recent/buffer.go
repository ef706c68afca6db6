package recent

import (
	"errors"
	"io"
)

// buffer is the bytes of one chunk: an in-memory io.WriteSeeker for its
// writer.Writer.
type buffer struct {
	b   []byte
	off int
}

// errSeek is returned for a seek before the start.
var errSeek = errors.New("recent: seek before the start of the buffer")

// Write writes p at the offset, growing the buffer.
func (m *buffer) Write(p []byte) (int, error) {
	end := m.off + len(p)
	if n := len(m.b); end > n {
		if end > cap(m.b) {
			m.b = append(m.b, make([]byte, end-n)...)
		}
		m.b = m.b[:end]
		if m.off > n {
			clear(m.b[n:m.off]) // a gap a seek past the end left
		}
	}
	copy(m.b[m.off:], p)
	m.off = end
	return len(p), nil
}

// Seek moves the offset, as io.Seeker says; a seek past the end is
// allowed, and a write there fills the gap with zeros.
func (m *buffer) Seek(offset int64, whence int) (int64, error) {
	var base int64
	switch whence {
	case io.SeekCurrent:
		base = int64(m.off)
	case io.SeekEnd:
		base = int64(len(m.b))
	}
	off := base + offset
	if off < 0 {
		return 0, errSeek
	}
	m.off = int(off)
	return off, nil
}
