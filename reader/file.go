package reader

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"unicode/utf8"

	"github.com/gotachyon/profiler/tachyon"
)

// FrameRef is a frame-table entry: string-table indices and a line.
type FrameRef struct {
	File, Func uint32
	Line       int32
}

// File is an open Tachyon file whose header, footer and tables have been
// read and checked. Its methods are safe for concurrent use, Close included;
// each Samples iterator is not.
//
// After Close every method is still safe to call and none faults: Verify
// and a second Close return ErrClosed, Samples returns an iterator that
// yields nothing and whose Err is ErrClosed, and the methods that return
// no error answer from the heap copies of the header, footer and tables
// made when the File was opened.
type File struct {
	Header  tachyon.Header
	Footer  tachyon.Footer
	Size    int64
	strings stringTable
	frames  []FrameRef

	ra     io.ReaderAt
	data   []byte    // the whole file, when it is in memory
	mapped bool      // data is a mapping: read it through guard
	closer io.Closer // set by Open
	life   lifetime  // Close ends it; reads of the file run inside it
}

// Strings returns a copy of the string table: a new slice of strings that
// share the table's one copy of its bytes. That copy is on the heap, not
// in the file's mapping, so Strings works after Close too.
func (f *File) Strings() []string {
	out := make([]string, f.strings.n)
	for i := range out {
		out[i] = f.strings.get(uint32(i))
	}
	return out
}

// NumStrings returns the number of entries in the string table. It works
// after Close too: the table is a heap copy.
func (f *File) NumStrings() int { return f.strings.n }

// FrameRefs returns the frame table. The slice must not be modified. It
// works after Close too: the table is a heap copy.
func (f *File) FrameRefs() []FrameRef { return f.frames }

// Frame resolves frame-table index i. It panics if i is out of range, like
// a slice index; indices yielded by Samples are always in range. It works
// after Close too: the string and frame tables are heap copies.
func (f *File) Frame(i uint32) tachyon.Frame {
	r := f.frames[i]
	return tachyon.Frame{File: f.strings.get(r.File), Func: f.strings.get(r.Func), Line: r.Line}
}

// SampleRegion returns the offset and length of the (possibly compressed)
// sample region. It works after Close too: it reads only the header, which
// was copied when the File was opened.
func (f *File) SampleRegion() (off, n int64) {
	return tachyon.HeaderSize, int64(f.Header.StringTableOffset) - tachyon.HeaderSize
}

// Close ends the File: it releases the file's memory mapping and closes the
// file opened by Open (for a File made by NewFile or NewFileBytes it
// releases nothing). From then on Samples and Verify return ErrClosed, and
// so does a second Close. Close waits for a read of the file under way on
// another goroutine, so it never unmaps pages being read.
//
// Close iterators first: an iterator still running when its File is closed
// does not fault, but it ends with ErrClosed instead of finishing (it may
// first yield the samples already in its buffer).
func (f *File) Close() error {
	return f.life.end(func() error {
		if f.closer == nil {
			return nil
		}
		return f.closer.Close()
	})
}

// NewFileBytes reads a Tachyon file held in memory. The File refers to data,
// which must not change while the File is in use.
func NewFileBytes(data []byte) (*File, error) {
	f := &File{data: data, ra: bytes.NewReader(data), Size: int64(len(data))}
	if err := f.init(); err != nil {
		return nil, err
	}
	return f, nil
}

// NewFile reads a Tachyon file of the given size from r: it checks the
// header and footer and loads the string and frame tables. Samples are read
// from r on demand.
func NewFile(r io.ReaderAt, size int64) (*File, error) {
	f := &File{ra: r, Size: size}
	if err := f.init(); err != nil {
		return nil, err
	}
	return f, nil
}

// readAt returns n bytes at off, from memory when the file is mapped. Only
// init uses it, before the File is handed out and so before any Close.
func (f *File) readAt(off, n int64) ([]byte, error) {
	if f.data != nil {
		return f.data[off : off+n], nil
	}
	b := make([]byte, n)
	if _, err := f.ra.ReadAt(b, off); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("tachyon: reading %d bytes at offset %d: %w", n, off, err)
	}
	return b, nil
}

func (f *File) init() error {
	size := f.Size
	if size < tachyon.MinFileSize {
		return f.tooSmall(size)
	}
	hb, err := f.readAt(0, tachyon.HeaderSize)
	if err != nil {
		return err
	}
	fb, err := f.readAt(size-tachyon.FooterSize, tachyon.FooterSize)
	if err != nil {
		return err
	}
	h := tachyon.ParseHeader((*[tachyon.HeaderSize]byte)(hb))
	ft := tachyon.ParseFooter((*[tachyon.FooterSize]byte)(fb))
	if m := h.Magic; m == 0 && allZero(hb) {
		return formatErr(0, EMagic, "not finalized: the header is all zeros, as the writer leaves it until Close (was Stop called? did writing fail?)")
	} else if m != tachyon.Magic {
		if what := foreign(hb, f.readerAt(), size); what != "" {
			return formatErr(0, EMagic, "%s", what)
		}
		return formatErr(0, EMagic, "not a Tachyon profile: it starts with %q, not the magic \"HCAT\"", hb[:4])
	}
	footOff := size - tachyon.FooterSize
	if h.Version != tachyon.Version {
		return formatErr(tachyon.HeaderVersionAt, EVersion, "version %d, only %d is supported", h.Version, tachyon.Version)
	}
	if ft.FileSize != uint64(size) {
		return formatErr(footOff+tachyon.FooterFileSizeAt, EFooterSize, "%s", sizeMismatch(h, ft, size))
	}
	if h.Compression != tachyon.CompressionNone && h.Compression != tachyon.CompressionZstd {
		return formatErr(tachyon.HeaderCompressionAt, ECompression, "compression type %d is neither 0 (none) nor 1 (zstd)", uint32(h.Compression))
	}
	for i := tachyon.HeaderReservedAt; i < tachyon.HeaderSize; i++ {
		if hb[i] != 0 {
			return formatErr(int64(i), EReserved, "reserved header byte %d is %#02x, want 0", i, hb[i])
		}
	}
	for i := tachyon.FooterChecksumAt; i < tachyon.FooterSize; i++ {
		if fb[i] != 0 {
			return formatErr(footOff+int64(i), EChecksum, "footer checksum byte %d is %#02x, want 0", i-tachyon.FooterChecksumAt, fb[i])
		}
	}
	so, fo := h.StringTableOffset, h.FrameTableOffset
	for _, o := range []struct {
		name string
		at   int64
		v    uint64
	}{{"string_table_offset", tachyon.HeaderStringTableAt, so}, {"frame_table_offset", tachyon.HeaderFrameTableAt, fo}} {
		if o.v < tachyon.HeaderSize || o.v > uint64(footOff) {
			return formatErr(o.at, EOffsetRange, "%s %d is outside [%d, %d]", o.name, o.v, tachyon.HeaderSize, footOff)
		}
	}
	if so > fo {
		return formatErr(tachyon.HeaderStringTableAt, EOffsetOrder, "string_table_offset %d is after frame_table_offset %d", so, fo)
	}
	if h.Compression == tachyon.CompressionZstd && so == tachyon.HeaderSize {
		return formatErr(tachyon.HeaderSize, EZstd, "compressed sample region is empty")
	}
	f.Header, f.Footer = h, ft
	tables, err := f.readAt(int64(so), footOff-int64(so))
	if err != nil {
		return err
	}
	if err := f.parseStrings(tables[:fo-so], int64(so)); err != nil {
		return err
	}
	return f.parseFrames(tables[fo-so:], int64(fo))
}

// parseStrings fills the string table from b, which starts at file offset
// base and must hold exactly Footer.StringCount entries.
func (f *File) parseStrings(b []byte, base int64) error {
	n := f.Footer.StringCount
	if uint64(n) > uint64(len(b)) { // every entry takes at least one byte
		return formatErr(base, EStringCount, "footer string count %d cannot fit in a %d-byte string table", n, len(b))
	}
	if uint64(len(b)) > math.MaxUint32 {
		return formatErr(base, EStringCount, "string table of %d bytes is larger than the reader's 4 GiB", len(b))
	}
	// One copy of the whole table backs every string.
	all := string(b)
	f.strings = stringTable{all: all, idx: make([]uint32, 0, n/stringStride+1), n: int(n)}
	pos := 0
	for i := range int(n) {
		if i%stringStride == 0 {
			f.strings.idx = append(f.strings.idx, uint32(pos))
		}
		l, k := binary.Uvarint(b[pos:])
		if k == 0 {
			return formatErr(base+int64(pos), EStringCount, "string table ends after %d of %d strings", i, n)
		}
		if k < 0 || l > math.MaxUint32 {
			return formatErr(base+int64(pos), EVarint, "string %d length varint overflows 32 bits", i)
		}
		pos += k
		if l > uint64(len(b)-pos) {
			return formatErr(base+int64(pos), EStringCount, "string %d of length %d runs past the string table (%d bytes left)", i, l, len(b)-pos)
		}
		s := all[pos : pos+int(l)]
		if !utf8.ValidString(s) {
			return formatErr(base+int64(pos), EUTF8, "string %d is not valid UTF-8", i)
		}
		pos += int(l)
	}
	if pos != len(b) {
		return formatErr(base+int64(pos), EStringCount, "%d bytes left in the string table after %d strings", len(b)-pos, n)
	}
	return nil
}

// parseFrames fills the frame table from b, which starts at file offset base
// and must hold exactly Footer.FrameCount entries.
func (f *File) parseFrames(b []byte, base int64) error {
	n := f.Footer.FrameCount
	if uint64(n) > uint64(len(b))/3 { // every entry takes at least three bytes
		return formatErr(base, EFrameCount, "footer frame count %d cannot fit in a %d-byte frame table", n, len(b))
	}
	f.frames = make([]FrameRef, n)
	ns := uint64(f.strings.n)
	pos := 0
	for i := range f.frames {
		var v [3]uint64
		for j := range v {
			at := base + int64(pos)
			var k int
			if j < 2 {
				v[j], k = binary.Uvarint(b[pos:])
			} else {
				var s int64
				s, k = binary.Varint(b[pos:])
				v[j] = uint64(s)
				if k > 0 && (s < math.MinInt32 || s > math.MaxInt32) {
					return formatErr(at, EVarint, "frame %d line number %d does not fit 32 bits", i, s)
				}
			}
			if k == 0 {
				return formatErr(at, EFrameCount, "frame table ends inside frame %d of %d", i, n)
			}
			if k < 0 {
				return formatErr(at, EVarint, "frame %d varint overflows 64 bits", i)
			}
			if j < 2 && v[j] >= ns {
				return formatErr(at, EStringIndex, "frame %d names string %d, but there are %d strings", i, v[j], ns)
			}
			pos += k
		}
		f.frames[i] = FrameRef{File: uint32(v[0]), Func: uint32(v[1]), Line: int32(int64(v[2]))}
	}
	if pos != len(b) {
		return formatErr(base+int64(pos), EFrameCount, "%d bytes left in the frame table after %d frames", len(b)-pos, n)
	}
	return nil
}

// tooSmall explains a file smaller than a header and a footer: one the
// writer never finalized (its header still all zeros), a profile cut short
// (it starts with the magic), or not a profile at all.
func (f *File) tooSmall(size int64) error {
	if size < 4 { // not even a magic to look at
		return formatErr(0, ETooSmall, "file is %d bytes; a valid file has at least %d", size, tachyon.MinFileSize)
	}
	head, err := f.readAt(0, min(size, tachyon.HeaderSize))
	if err != nil {
		return err
	}
	switch {
	case size >= tachyon.HeaderSize && allZero(head):
		return formatErr(0, ETooSmall, "not finalized: %d bytes with an all-zero header, as the writer leaves a file until Close (was Stop called? did writing fail?)", size)
	case binary.LittleEndian.Uint32(head) == tachyon.Magic:
		return formatErr(0, ETooSmall, "cut short: file is %d bytes; a valid file has at least %d", size, tachyon.MinFileSize)
	case !allZero(head):
		if what := foreign(head, f.readerAt(), size); what != "" {
			return formatErr(0, ETooSmall, "%s", what)
		}
		return formatErr(0, ETooSmall, "not a Tachyon profile: it starts with %q, not the magic \"HCAT\" (and is %d bytes; a valid file has at least %d)", head[:4], size, tachyon.MinFileSize)
	}
	return formatErr(0, ETooSmall, "file is %d bytes; a valid file has at least %d", size, tachyon.MinFileSize)
}

// readerAt reads the file, mapped or not. Only init uses it.
func (f *File) readerAt() io.ReaderAt {
	if f.data != nil {
		return bytes.NewReader(f.data)
	}
	return f.ra
}

// sizeMismatch says in words why a file of size bytes, whose header is h,
// does not end with the footer of a file of its size (ft is what its last
// bytes hold): cut short, when the header places its tables past the end
// or the footer gives a larger size, or appended to, when the footer
// gives a smaller one. The writer writes the header's offsets and the
// footer only when it finishes, so a finished file cut short still has
// its header.
func sizeMismatch(h tachyon.Header, ft tachyon.Footer, size int64) string {
	switch end := max(h.StringTableOffset, h.FrameTableOffset) + tachyon.FooterSize; {
	case h.StringTableOffset >= tachyon.HeaderSize && end > uint64(size):
		return fmt.Sprintf("cut short: truncated: %d bytes, the header promises more (its frame table starts at byte %d, the footer after it)", size, end-tachyon.FooterSize)
	case ft.FileSize > uint64(size) && ft.FileSize-uint64(size) <= uint64(size):
		return fmt.Sprintf("cut short: truncated: %d bytes, the footer says the profile is %d", size, ft.FileSize)
	case ft.FileSize < uint64(size) && ft.FileSize >= tachyon.MinFileSize:
		return fmt.Sprintf("appended to: %d bytes, the footer says the profile is %d", size, ft.FileSize)
	}
	return fmt.Sprintf("cut short or appended to: the last %d of its %d bytes are not the footer a finished profile ends with, which gives its size", tachyon.FooterSize, size)
}

// allZero reports whether b holds only zero bytes.
func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
