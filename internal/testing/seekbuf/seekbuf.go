package seekbuf

import (
	"errors"
	"io"
)

// Buffer is a growable byte slice with a write offset. The zero value is an
// empty buffer ready to use. It is not safe for concurrent use.
type Buffer struct {
	buf []byte
	off int64
}

var errNegative = errors.New("seekbuf: negative offset")

// Write writes p at the current offset, growing the buffer (filling any gap
// left by a Seek past the end with zeros), and advances the offset.
func (b *Buffer) Write(p []byte) (int, error) {
	end := b.off + int64(len(p))
	if end > int64(len(b.buf)) {
		b.buf = append(b.buf, make([]byte, end-int64(len(b.buf)))...)
	}
	copy(b.buf[b.off:], p)
	b.off = end
	return len(p), nil
}

// Seek sets the offset for the next Write, as io.Seeker says.
func (b *Buffer) Seek(offset int64, whence int) (int64, error) {
	return seek(&b.off, int64(len(b.buf)), offset, whence)
}

// seek moves *off as io.Seeker says, in a file of size bytes.
func seek(off *int64, size, offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		offset += *off
	case io.SeekEnd:
		offset += size
	default:
		return *off, errors.New("seekbuf: invalid whence")
	}
	if offset < 0 {
		return *off, errNegative
	}
	*off = offset
	return offset, nil
}

// ReadAt reads from the written bytes, as io.ReaderAt says.
func (b *Buffer) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errNegative
	}
	if off >= int64(len(b.buf)) {
		return 0, io.EOF
	}
	n := copy(p, b.buf[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// Bytes returns the bytes written so far; the slice aliases the buffer.
func (b *Buffer) Bytes() []byte { return b.buf }

// Len returns the number of bytes written so far.
func (b *Buffer) Len() int { return len(b.buf) }

// Discard is an io.WriteSeeker that keeps nothing: it counts what is
// written and seeks within that, for benchmarks that time an encoder
// rather than the memory it writes into. The zero value is ready to use.
type Discard struct{ off, size int64 }

// Write advances the offset past p.
func (d *Discard) Write(p []byte) (int, error) {
	d.off += int64(len(p))
	d.size = max(d.size, d.off)
	return len(p), nil
}

// Seek sets the offset for the next Write, as io.Seeker says.
func (d *Discard) Seek(offset int64, whence int) (int64, error) {
	return seek(&d.off, d.size, offset, whence)
}

// Size returns how far the writes have reached.
func (d *Discard) Size() int64 { return d.size }
