package reader

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"

	"github.com/gotachyon/profiler/internal/framesum"
	"github.com/gotachyon/profiler/tachyon"
)

// chunkSize is how much decompressed (or read) sample data the iterator
// holds at once.
const chunkSize = 256 << 10

// maxDecoderWindow bounds the zstd window a file may ask for, and so the
// decoder's memory.
const maxDecoderWindow = 64 << 20

// source is a window over the sample-record stream: chunks read from rd,
// or, when the region is raw and in memory, chunks of mem itself. Each
// refill first checks that the file is still open (see live).
type source struct {
	buf  []byte
	pos  int
	base int64     // stream offset of buf[0]
	rd   io.Reader // nil when the region is mem
	mem  []byte
	life *lifetime // the File's
	eof  bool
	dec  *zstd.Decoder
	zstd bool
	err  error           // read or decompression error, reported as E_ZSTD or I/O
	in   *countingReader // the compressed bytes read, for a zstd region
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func (f *File) newSource() (*source, error) {
	if err := f.life.err(); err != nil {
		return nil, err
	}
	off, n := f.SampleRegion()
	s := &source{zstd: f.Header.Compression == tachyon.CompressionZstd, life: &f.life}
	var region io.Reader
	switch {
	case f.mapped:
		region = &mappedReader{data: f.data[off : off+n], life: &f.life}
	case f.data != nil:
		raw := f.data[off : off+n]
		if !s.zstd {
			s.mem, s.buf = raw, raw[:0]
			return s, nil
		}
		region = bytes.NewReader(raw)
	default:
		region = io.NewSectionReader(f.ra, off, n)
	}
	s.rd = region
	if s.zstd {
		// The checksum frames are checked as the compressed bytes pass.
		s.in = &countingReader{r: framesum.NewVerifier(region)}
		dec, err := zstd.NewReader(s.in,
			zstd.WithDecoderConcurrency(1),
			zstd.WithDecoderMaxWindow(maxDecoderWindow),
			zstd.WithDecoderLowmem(true))
		if err != nil {
			return nil, fmt.Errorf("tachyon: zstd: %w", err)
		}
		s.dec, s.rd = dec, dec
	}
	s.buf = make([]byte, 0, chunkSize)
	return s, nil
}

func (s *source) close() {
	if s.dec != nil {
		s.dec.Close()
		s.dec = nil
	}
}

// avail returns how many bytes are buffered after pos.
func (s *source) avail() int { return len(s.buf) - s.pos }

// fill makes at least n bytes available after pos unless the stream ends
// first; it reports whether it could.
func (s *source) fill(n int) bool {
	if s.avail() >= n {
		return true
	}
	if s.eof || !s.live() {
		return false
	}
	if s.rd == nil {
		return s.slide(n)
	}
	rest := copy(s.buf[:cap(s.buf)], s.buf[s.pos:])
	s.base += int64(s.pos)
	s.pos = 0
	s.buf = s.buf[:rest]
	if n > cap(s.buf) {
		nb := make([]byte, rest, n+chunkSize)
		copy(nb, s.buf)
		s.buf = nb
	}
	for len(s.buf) < n && !s.eof {
		k, err := s.rd.Read(s.buf[len(s.buf):cap(s.buf)])
		s.buf = s.buf[:len(s.buf)+k]
		if err == io.EOF {
			s.eof = true
		} else if err != nil {
			s.stop(err)
		}
	}
	return len(s.buf)-s.pos >= n
}

// slide moves the window over mem to start at pos and hold chunkSize bytes,
// or n if more, or what is left; it reports whether n bytes are available.
func (s *source) slide(n int) bool {
	s.base += int64(s.pos)
	end := min(s.base+int64(max(n, chunkSize)), int64(len(s.mem)))
	s.buf, s.pos = s.mem[s.base:end], 0
	s.eof = end == int64(len(s.mem))
	return len(s.buf) >= n
}

// live reports whether the stream may read on: false once it has stopped
// with an error, or once the file is closed (it then stops with ErrClosed).
// Checked once per refill and at the end, it keeps a Close from passing
// unnoticed without a lock in the per-sample path.
func (s *source) live() bool {
	if s.err == nil {
		if err := s.life.err(); err != nil {
			s.eof, s.err = true, err
		}
	}
	return s.err == nil
}

// stop ends the stream with err, or with ErrClosed if the file has been
// closed meanwhile: a read that failed because Close released the file
// under it says so, not that the data is bad.
func (s *source) stop(err error) {
	if cerr := s.life.err(); cerr != nil {
		err = cerr
	}
	s.eof, s.err = true, err
}

// uvarint reads an unsigned varint; ok is false with the error code set when
// the data ends or the varint overflows 64 bits.
func (s *source) uvarint() (v uint64, code string) {
	if s.avail() < binary.MaxVarintLen64 {
		s.fill(binary.MaxVarintLen64)
	}
	v, k := binary.Uvarint(s.buf[s.pos:])
	if k > 0 {
		s.pos += k
		return v, ""
	}
	if k < 0 {
		return 0, EVarint
	}
	return 0, ERecordTruncated
}

// byte1 reads one byte.
func (s *source) byte1() (byte, bool) {
	if s.pos >= len(s.buf) && !s.fill(1) {
		return 0, false
	}
	b := s.buf[s.pos]
	s.pos++
	return b, true
}

// atEnd reports whether the stream is exhausted.
func (s *source) atEnd() bool { return s.avail() == 0 && !s.fill(1) }

// streamErr turns a read or decompression failure into an error.
func (s *source) streamErr(regionOff int64) error {
	if s.err == nil {
		return nil
	}
	if errors.Is(s.err, ErrChanged) || errors.Is(s.err, ErrClosed) {
		return fmt.Errorf("reading samples at offset %d: %w", regionOff+s.base+int64(s.pos), s.err)
	}
	var damaged *framesum.Error
	switch {
	case s.zstd && errors.As(s.err, &damaged):
		return &FormatError{Offset: regionOff + damaged.Offset, Decompressed: s.base + int64(s.pos), Code: EZstd,
			Reason: "compressed sample region: " + damaged.Reason}
	case s.zstd:
		reason := "damaged zstd data (" + s.err.Error() + ")"
		if errors.Is(s.err, io.ErrUnexpectedEOF) {
			reason = "the zstd data ends inside a frame (cut short, or a damaged block size)"
		}
		return &FormatError{Offset: regionOff, Decompressed: s.base + int64(s.pos), Code: EZstd,
			Reason: "compressed sample region: " + reason}
	}
	return fmt.Errorf("tachyon: reading samples: %w", s.err)
}
