package checkpoint

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"

	"github.com/gotachyon/profiler/tachyon"
)

// Names of the files in a checkpoint directory.
const (
	// DataName is the stream: an unfinished Tachyon file, whose header
	// is written only when Close finishes it.
	DataName = "profile.tachyon.part"
	// MarkName is the last checkpoint's mark, replaced whole (written to
	// MarkName+".tmp" and renamed).
	MarkName = "checkpoint"
)

// markMagic starts a mark; markVersion is its layout.
const (
	markMagic   = "TACHYCKP"
	markVersion = 1
	// markFixed is the size of a mark without its tables: magic,
	// version, sequence number, records' end, samples, header, tables'
	// length, and the checksum at the end.
	markFixed = 8 + 4 + 4 + 8 + 8 + tachyon.HeaderSize + 8 + 4
	// maxMark bounds the size of a mark read back: tables larger than
	// this are not a profile's.
	maxMark = 1 << 30
)

// ErrMark is wrapped by the errors of a mark that cannot be used.
var ErrMark = errors.New("not a usable checkpoint mark")

// Mark is what a checkpoint says of the stream.
type Mark struct {
	Seq     uint32 // 1 for the first checkpoint of a run
	DataEnd int64  // the end of the records in the stream
	Samples uint64 // the samples they hold
	Header  [tachyon.HeaderSize]byte
	Tables  []byte // the tables and footer that follow DataEnd
}

// appendMark appends m's encoding to b.
func appendMark(b []byte, m *Mark) []byte {
	b = append(b, markMagic...)
	b = binary.LittleEndian.AppendUint32(b, markVersion)
	b = binary.LittleEndian.AppendUint32(b, m.Seq)
	b = binary.LittleEndian.AppendUint64(b, uint64(m.DataEnd))
	b = binary.LittleEndian.AppendUint64(b, m.Samples)
	b = append(b, m.Header[:]...)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(m.Tables)))
	b = append(b, m.Tables...)
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
}

// readMark reads and checks the mark at path.
func readMark(path string) (*Mark, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := fi.Size()
	if size < markFixed || size > maxMark {
		return nil, fmt.Errorf("%s: %w: %d bytes, want %d to %d", path, ErrMark, size, markFixed, int64(maxMark))
	}
	b := make([]byte, size) // bounded above
	if _, err := io.ReadFull(f, b); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return parseMark(path, b)
}

// parseMark decodes the mark b read from path.
func parseMark(path string, b []byte) (*Mark, error) {
	bad := func(off int, what string, args ...any) error {
		return fmt.Errorf("%s: offset %d: %w: %s", path, off, ErrMark, fmt.Sprintf(what, args...))
	}
	if len(b) < markFixed {
		return nil, bad(0, "%d bytes, shorter than any mark (%d)", len(b), markFixed)
	}
	if string(b[:8]) != markMagic {
		return nil, bad(0, "no %q magic", markMagic)
	}
	body, sum := b[:len(b)-4], binary.LittleEndian.Uint32(b[len(b)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return nil, bad(len(b)-4, "checksum mismatch (torn or damaged)")
	}
	if v := binary.LittleEndian.Uint32(b[8:]); v != markVersion {
		return nil, bad(8, "version %d, want %d", v, markVersion)
	}
	m := &Mark{
		Seq:     binary.LittleEndian.Uint32(b[12:]),
		DataEnd: int64(binary.LittleEndian.Uint64(b[16:])),
		Samples: binary.LittleEndian.Uint64(b[24:]),
	}
	copy(m.Header[:], b[32:])
	off := 32 + tachyon.HeaderSize
	n := binary.LittleEndian.Uint64(b[off:])
	if n != uint64(len(body)-off-8) {
		return nil, bad(off, "tables of %d bytes in a mark that holds %d", n, len(body)-off-8)
	}
	if m.DataEnd < tachyon.HeaderSize {
		return nil, bad(16, "records end at %d, inside the header", m.DataEnd)
	}
	m.Tables = body[off+8:]
	return m, nil
}
