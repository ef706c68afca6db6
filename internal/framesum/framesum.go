package framesum

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/cespare/xxhash/v2"
)

// Magic is a checksum frame's magic number, one of the skippable frames'.
const Magic = 0x184D2A5E

// Size is a checksum frame's size in bytes: magic, content size, tag and
// sum.
const Size = 4 + 4 + contentSize

const contentSize = 4 + 8

// tag names the checksum frames among other skippable frames of Magic.
var tag = [4]byte{'t', 'y', 's', 'm'}

// Append appends the checksum frame of a frame whose bytes hash to sum
// (xxhash.Sum64 of every byte, from its magic number to its end).
func Append(dst []byte, sum uint64) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, Magic)
	dst = binary.LittleEndian.AppendUint32(dst, contentSize)
	dst = append(dst, tag[:]...)
	return binary.LittleEndian.AppendUint64(dst, sum)
}

// Error reports a stream that is not a series of zstd frames, or a frame
// that does not match its checksum frame.
type Error struct {
	Offset int64 // where in the stream the frame at fault begins
	Reason string
}

// Error says where in the stream the fault lies, and what it is.
func (e *Error) Error() string { return fmt.Sprintf("at byte %d: %s", e.Offset, e.Reason) }

// The Verifier's states: what the next bytes are.
const (
	stMagic    = iota // a frame's magic number
	stFHD             // a zstd frame's header descriptor
	stHeader          // the rest of its header
	stBlock           // a block's header
	stBody            // a block's content
	stSum             // a zstd frame's content checksum
	stSkipSize        // a skippable frame's size
	stSkip            // a skippable frame's content, not ours
	stCheck           // a checksum frame's content
)

const (
	zstdMagic     = 0xFD2FB528
	skippableMask = 0xFFFFFFF0
	skippable     = 0x184D2A50
	// maxBlock is the most a block of a zstd frame holds (RFC 8878 3.1.1.2.3).
	maxBlock = 128 << 10
	// maxHeader is the longest structure the Verifier reads whole: a
	// frame header's fields after its descriptor (a window descriptor, a
	// dictionary id of 4 bytes and a content size of 8).
	maxHeader = 1 + 4 + 8
)

// Verifier passes a stream of zstd frames through from its reader and
// checks each frame followed by a checksum frame. Its Read returns an
// *Error once the stream is found to be damaged. It allocates nothing
// while it reads, whatever the stream says.
type Verifier struct {
	r   io.Reader
	err error

	off    int64 // stream offset of the next byte
	state  int
	stage  [maxHeader]byte // the structure being read
	staged int             // bytes of it read
	want   int             // bytes it takes

	left   int64  // content bytes left of a block or skippable frame
	last   bool   // the block is its frame's last
	check  bool   // the frame has a content checksum
	magic  uint32 // the skippable frame's
	inZstd bool   // the bytes belong to a zstd frame: hash them

	d        *xxhash.Digest
	frameOff int64  // where the zstd frame being read, or the last, began
	sum      uint64 // the last zstd frame's hash,
	summed   bool   // if it ended just before this frame
}

// NewVerifier returns a Verifier of what r reads.
func NewVerifier(r io.Reader) *Verifier { return &Verifier{r: r, d: xxhash.New(), want: 4} }

// Read reads from the underlying reader and checks what it read.
func (v *Verifier) Read(p []byte) (int, error) {
	if v.err != nil {
		return 0, v.err
	}
	n, err := v.r.Read(p)
	if ferr := v.feed(p[:n]); ferr != nil {
		v.err = ferr
		return n, ferr
	}
	return n, err
}

// fail returns the error of a damaged stream, blaming the structure that
// begins at off.
func (v *Verifier) fail(off int64, format string, args ...any) error {
	return &Error{Offset: off, Reason: fmt.Sprintf(format, args...)}
}

// feed checks b, the stream's next bytes.
func (v *Verifier) feed(b []byte) error {
	for len(b) > 0 {
		var k int
		switch v.state {
		case stBody, stSkip:
			k = int(min(v.left, int64(len(b))))
			v.left -= int64(k)
		default:
			k = min(v.want-v.staged, len(b))
			copy(v.stage[v.staged:], b[:k])
			v.staged += k
		}
		if v.inZstd {
			v.d.Write(b[:k])
		}
		v.off += int64(k)
		b = b[k:]
		if v.state == stBody || v.state == stSkip {
			if v.left > 0 {
				continue
			}
		} else if v.staged < v.want {
			continue
		}
		if err := v.next(); err != nil {
			return err
		}
	}
	return nil
}

// expect has the next state read n bytes of its structure.
func (v *Verifier) expect(state, n int) {
	v.state, v.staged, v.want = state, 0, n
}

// next acts on a structure read whole and chooses the next state.
func (v *Verifier) next() error {
	s := v.stage[:v.staged]
	switch v.state {
	case stMagic:
		start := v.off - 4
		m := binary.LittleEndian.Uint32(s)
		switch {
		case m == zstdMagic:
			v.summed = false
			v.inZstd, v.frameOff = true, start
			v.d.Reset()
			v.d.Write(s)
			v.expect(stFHD, 1)
		case m&skippableMask == skippable:
			v.magic = m
			v.expect(stSkipSize, 4)
		default:
			return v.fail(start, "not a zstd frame (magic number %#08x)", m)
		}
	case stFHD:
		fhd := s[0]
		v.check = fhd&(1<<2) != 0
		n := [4]int{0, 1, 2, 4}[fhd&3] // the dictionary id
		single := fhd&(1<<5) != 0
		if !single {
			n++ // the window descriptor
		}
		switch fhd >> 6 { // the content size
		case 0:
			if single {
				n++
			}
		case 1:
			n += 2
		case 2:
			n += 4
		case 3:
			n += 8
		}
		if n == 0 {
			v.expect(stBlock, 3)
		} else {
			v.expect(stHeader, n)
		}
	case stHeader:
		v.expect(stBlock, 3)
	case stBlock:
		h := uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16
		v.last = h&1 != 0
		size := int64(h >> 3)
		switch (h >> 1) & 3 {
		case 1: // RLE: one byte, repeated
			size = 1
		case 3:
			return v.fail(v.frameOff, "a block of the reserved type at byte %d", v.off-3)
		}
		if size > maxBlock {
			return v.fail(v.frameOff, "a block of %d bytes at byte %d, more than a block holds", size, v.off-3)
		}
		v.state, v.left = stBody, size
		if size == 0 {
			v.endBlock()
		}
	case stBody:
		v.endBlock()
	case stSum:
		v.endFrame()
	case stSkipSize:
		size := binary.LittleEndian.Uint32(s)
		if v.magic == Magic && size == contentSize {
			v.expect(stCheck, contentSize)
			return nil
		}
		v.summed = false
		v.state, v.left = stSkip, int64(size)
		if size == 0 {
			v.expect(stMagic, 4)
		}
	case stSkip:
		v.expect(stMagic, 4)
	case stCheck:
		if [4]byte(s[:4]) != tag {
			// Another writer's skippable frame of the same magic.
			v.summed = false
			v.expect(stMagic, 4)
			return nil
		}
		start := v.off - Size
		if !v.summed {
			return v.fail(start, "a checksum frame that follows no zstd frame")
		}
		if want := binary.LittleEndian.Uint64(s[4:]); want != v.sum {
			return v.fail(v.frameOff, "the zstd frame does not match its checksum (%#016x, the frame's bytes hash to %#016x): the file is damaged", want, v.sum)
		}
		v.summed = false
		v.expect(stMagic, 4)
	}
	return nil
}

// endBlock goes on after a block's content.
func (v *Verifier) endBlock() {
	switch {
	case !v.last:
		v.expect(stBlock, 3)
	case v.check:
		v.expect(stSum, 4)
	default:
		v.endFrame()
	}
}

// endFrame records the hash of the zstd frame just read whole.
func (v *Verifier) endFrame() {
	v.sum, v.summed, v.inZstd = v.d.Sum64(), true, false
	v.expect(stMagic, 4)
}
