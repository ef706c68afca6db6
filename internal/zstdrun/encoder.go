package zstdrun

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math/bits"

	"github.com/cespare/xxhash/v2"
	"github.com/klauspost/compress/huff0"

	"github.com/gotachyon/profiler/internal/framesum"
)

// MaxPattern is the longest pattern a unit repeats.
const MaxPattern = 16

// MinMatch is the shortest match the encoder writes: a unit whose repeats
// after the first pattern are shorter goes in as literal bytes. It keeps a
// block's sequences few enough for its encoded size to stay under the
// format's 128 KiB whatever the units (see maxBlock).
const MinMatch = 16

const (
	// maxBlock bounds a block's content. A sequence codes at least
	// MinMatch bytes in at most 10 bytes (its codes' states and extra
	// bits), literals go in at most as they are, and the tables'
	// descriptions are short, so a block stays well under the format's
	// Block_Maximum_Size of 128 KiB.
	maxBlock = 64 << 10
	// windowLog is the frames' window: 128 KiB, as the writer's others.
	windowLog = 17
	// maxOffset is the farthest back a match reaches: within the window,
	// with room to spare.
	maxOffset = 1<<windowLog - 1<<10
	// huffMin is the fewest literals a block Huffman-codes: fewer, as a
	// block of parked goroutines' records has (a byte or two of each
	// thread id, which a Huffman code does not shorten), cost more time
	// to code than they save.
	huffMin = 1 << 10
	// outFlush is how much encoded output is kept before it is written.
	outFlush = 64 << 10
)

// Block types (RFC 8878).
const (
	blockRaw        = 0
	blockCompressed = 2
)

// Encoder writes one zstd frame at a time. The zero value is not usable:
// call New. An Encoder is not safe for concurrent use.
type Encoder struct {
	dst  io.Writer
	out  []byte         // encoded, not yet written to dst
	sum  *xxhash.Digest // of the frame's bytes written so far
	err  error
	open bool // a frame was begun and not ended

	// the block being built
	lits   []byte
	seqs   []seq
	size   int    // content bytes in the block
	litRun uint32 // literals since the block's last sequence
	rep    [3]uint32

	pos  int    // content bytes in the frame so far
	refs [8]ref // the last units of a few kinds, which the next may repeat
	last *ref   // the ref used last, if any: most often the next unit's
	tick uint64 // a clock for the refs' use

	codes  [3][]uint8   // a block's literal length, offset and match length codes
	tables [3]codeTable // and each kind's table
	bw     bitWriter
	huff   huff0.Scratch
}

// A ref is a unit that later units of its kind (the same pattern and
// count) may repeat: the end of its literals, and where its repeats begin.
type ref struct {
	lit     []byte // the last refLit bytes of its literals
	litLen  int    // how many bytes its literals were
	pat     []byte
	n       int
	tailPos int    // content position of its repeats
	used    uint64 // when last used; 0 for free
}

// refLit is how much of a unit's literals a ref keeps: its record's
// header, and more.
const refLit = 64

// seq is a sequence: ll literals, then ml bytes copied from off back
// (off as written: 1 for the last offset again, else the offset plus 3).
type seq struct {
	ll, ml, off uint32
}

// Errors Close returns after an Add it could not take.
var (
	// ErrPattern: the pattern was longer than MaxPattern.
	ErrPattern = errors.New("zstdrun: pattern longer than MaxPattern")
	// ErrClosed: no frame was begun (Reset) since the last Close.
	ErrClosed = errors.New("zstdrun: Add with no frame begun")
)

// New returns an Encoder; Reset begins its first frame.
func New() *Encoder { return &Encoder{sum: xxhash.New()} }

// Reset begins a frame written to dst. A frame begun and not closed is
// dropped.
func (e *Encoder) Reset(dst io.Writer) {
	e.dst, e.err, e.open = dst, nil, true
	e.out = e.out[:0]
	e.sum.Reset()
	e.lits, e.seqs, e.size, e.litRun = e.lits[:0], e.seqs[:0], 0, 0
	e.rep = [3]uint32{1, 4, 8}
	e.pos = 0
	for i := range e.tables {
		e.tables[i].ownOK = false
	}
	for i := range e.refs {
		e.refs[i].used = 0
	}
	// Magic, then a descriptor saying: no content checksum (a checksum
	// frame follows instead), no content size, no dictionary, a window
	// descriptor follows.
	e.out = binary.LittleEndian.AppendUint32(e.out, 0xFD2FB528)
	e.out = append(e.out, 0, (windowLog-10)<<3)
}

// Add appends a unit to the frame: lit, then pat repeated n times. It
// copies what it keeps.
func (e *Encoder) Add(lit, pat []byte, n int) {
	switch {
	case !e.open:
		e.setErr(ErrClosed)
		return
	case len(pat) > MaxPattern:
		e.setErr(ErrPattern)
		return
	case len(pat) == 0 || n < 0:
		n = 0
	}
	reps := len(pat) * n
	unit := len(lit) + reps
	if e.size > 0 && e.size+unit > maxBlock && unit <= maxBlock {
		// A unit within one block keeps its match whole: a block whose
		// units are alike then has codes of one kind all the same (RLE).
		e.block(false)
	}
	tailPos := e.pos + len(lit)
	if n == 0 {
		e.literals(lit)
		return
	}
	r, exact := e.ref(pat, n, len(lit))
	if r.used != 0 {
		// A unit of this kind came before: the same repeats after the
		// same last bytes of literals, which this one need not repeat.
		s := commonSuffix(lit, r.lit)
		if off := tailPos - r.tailPos; off <= maxOffset && s+reps >= MinMatch {
			if k := len(lit) - s; k < MinMatch {
				e.literals(lit[:k]) // too few to hold a match
			} else {
				e.alike(lit[:k], r.lit[:len(r.lit)-s], uint32(off))
			}
			e.match(uint32(off), s+reps)
			if !exact {
				// Units of this kind with literals of this length
				// (another stack) get a ref of their own.
				e.keep(e.free(), lit, pat, n, tailPos)
				return
			}
			e.tick++
			r.tailPos, r.used = tailPos, e.tick
			e.last = r
			if s < len(r.lit) {
				// r keeps the literals' end, as long as lit's (the same
				// length), of which only the bytes before the suffix
				// differ.
				end, k := len(lit)-len(r.lit), len(r.lit)-s
				if k <= 8 && len(r.lit) >= 8 {
					// As one word: its bytes past k are alike.
					binary.LittleEndian.PutUint64(r.lit, binary.LittleEndian.Uint64(lit[end:]))
				} else {
					copy(r.lit[:k], lit[end:end+k])
				}
			}
			return
		}
	}
	e.literals(lit)
	if n >= 2 && reps-len(pat) >= MinMatch {
		e.literals(pat)
		e.match(uint32(len(pat)), reps-len(pat))
	} else {
		for range n {
			e.literals(pat)
		}
	}
	e.keep(r, lit, pat, n, tailPos)
}

// alike adds lit as literals, but for its stretches of MinMatch bytes or
// more that equal prev's bytes as far from their ends, which it adds as
// matches at off: lit ends off bytes after prev in the frame's content. A
// goroutine's first record repeats the one before it but for its thread
// id, which comes twice, before and after such a stretch.
func (e *Encoder) alike(lit, prev []byte, off uint32) {
	d := len(lit) - len(prev) // lit[k] is as far from its end as prev[k-d]
	from := 0                 // lit[from:] is not added yet
	for k := max(d, 0); k < len(lit); {
		if lit[k] != prev[k-d] {
			k++
			continue
		}
		j := k + 1
		for j < len(lit) && lit[j] == prev[j-d] {
			j++
		}
		if j-k >= MinMatch {
			e.literals(lit[from:k])
			e.match(off, j-k)
			from = j
		}
		k = j
	}
	e.literals(lit[from:])
}

// ref returns the ref of units of pat repeated n times after litLen
// bytes of literals, and true; or if there is none, the latest of units of
// pat repeated n times, and false; or if there is none, a free one (used
// 0), and false.
func (e *Encoder) ref(pat []byte, n, litLen int) (*ref, bool) {
	// A unit's (pat, n, litLen) has one ref at most: the last one used is
	// checked first.
	if r := e.last; r != nil && r.used != 0 && r.n == n && r.litLen == litLen && bytes.Equal(r.pat, pat) {
		return r, true
	}
	var kind *ref
	for i := range e.refs {
		r := &e.refs[i]
		if r.used != 0 && r.n == n && bytes.Equal(r.pat, pat) {
			if r.litLen == litLen {
				return r, true
			}
			if kind == nil || r.used > kind.used {
				kind = r
			}
		}
	}
	if kind != nil {
		return kind, false
	}
	return e.free(), false
}

// free returns a free ref, or frees the least lately used.
func (e *Encoder) free() *ref {
	old := &e.refs[0]
	for i := range e.refs {
		if r := &e.refs[i]; r.used < old.used {
			old = r
		}
	}
	old.used = 0
	return old
}

// keep makes the unit just added r's.
func (e *Encoder) keep(r *ref, lit, pat []byte, n, tailPos int) {
	e.tick++
	r.lit = append(r.lit[:0], lit[max(len(lit)-refLit, 0):]...)
	r.pat = append(r.pat[:0], pat...)
	r.n, r.litLen, r.tailPos, r.used = n, len(lit), tailPos, e.tick
	e.last = r
}

// Close ends the frame with its last block, writes what is left of it to
// dst, and then its checksum frame (package framesum). It returns the
// first error met since Reset.
func (e *Encoder) Close() error {
	if !e.open {
		return e.err
	}
	e.open = false
	e.block(true)
	e.write()
	if e.err == nil {
		_, err := e.dst.Write(framesum.Append(e.out, e.sum.Sum64()))
		e.setErr(err)
	}
	return e.err
}

func (e *Encoder) setErr(err error) {
	if e.err == nil {
		e.err = err
	}
}

// literals adds b to the block's literals, ending blocks as they fill.
func (e *Encoder) literals(b []byte) {
	if k := len(b); e.size+k <= maxBlock {
		e.lits = append(e.lits, b...)
		e.size += k
		e.pos += k
		e.litRun += uint32(k)
		return
	}
	for len(b) > 0 {
		if e.size == maxBlock {
			e.block(false)
		}
		k := min(len(b), maxBlock-e.size)
		e.lits = append(e.lits, b[:k]...)
		e.size += k
		e.pos += k
		e.litRun += uint32(k)
		b = b[k:]
	}
}

// match adds a match of ml bytes (at least MinMatch) at offset off, as
// several sequences if it does not fit the block, each of MinMatch bytes
// at least.
func (e *Encoder) match(off uint32, ml int) {
	if e.size+ml <= maxBlock {
		e.seqs = append(e.seqs, seq{ll: e.litRun, ml: uint32(ml), off: e.offValue(off, e.litRun)})
		e.litRun = 0
		e.size += ml
		e.pos += ml
		return
	}
	for ml > 0 {
		k := min(ml, maxBlock-e.size)
		if k < ml && ml-k < MinMatch {
			k = ml - MinMatch
		}
		if k < MinMatch {
			e.block(false)
			continue
		}
		e.seqs = append(e.seqs, seq{ll: e.litRun, ml: uint32(k), off: e.offValue(off, e.litRun)})
		e.litRun = 0
		e.size += k
		e.pos += k
		ml -= k
	}
}

// offValue returns the offset value that says off after ll literals, and
// keeps the repeated offsets as the decoder does (RFC 8878, 3.1.2.5).
func (e *Encoder) offValue(off, ll uint32) uint32 {
	if ll > 0 && off == e.rep[0] {
		return 1
	}
	e.rep[2], e.rep[1], e.rep[0] = e.rep[1], e.rep[0], off
	return off + 3
}

// block ends the block being built: a compressed block if it has
// sequences, else its literals as a raw block (the last block of a frame
// may be empty).
func (e *Encoder) block(last bool) {
	if len(e.seqs) == 0 && len(e.lits) == 0 && !last {
		return
	}
	start := len(e.out)
	typ := blockRaw
	if len(e.seqs) == 0 {
		e.out = append(e.out, 0, 0, 0)
		e.out = append(e.out, e.lits...)
	} else {
		typ = blockCompressed
		e.out = append(e.out, 0, 0, 0)
		e.appendLiterals()
		e.appendSequences()
	}
	h := uint32(len(e.out)-start-3)<<3 | uint32(typ)<<1
	if last {
		h |= 1
	}
	e.out[start], e.out[start+1], e.out[start+2] = byte(h), byte(h>>8), byte(h>>16)
	e.lits, e.seqs, e.size, e.litRun = e.lits[:0], e.seqs[:0], 0, 0
	if len(e.out) >= outFlush {
		e.write()
	}
}

// write hands the encoded bytes to dst.
func (e *Encoder) write() {
	if len(e.out) > 0 && e.err == nil {
		e.sum.Write(e.out)
		_, err := e.dst.Write(e.out)
		e.setErr(err)
	}
	e.out = e.out[:0]
}

// appendLiterals appends the block's literals section: Huffman-coded if
// that is smaller, else raw.
func (e *Encoder) appendLiterals() {
	n := len(e.lits)
	if n >= huffMin {
		e.huff.Reuse = huff0.ReusePolicyNone
		h, _, err := huff0.Compress4X(e.lits, &e.huff)
		if err == nil && len(h)+5 < n {
			e.out = appendHuffHeader(e.out, n, len(h))
			e.out = append(e.out, h...)
			return
		}
	}
	switch {
	case n < 32:
		e.out = append(e.out, byte(n<<3))
	case n < 4096:
		e.out = append(e.out, byte(1<<2|n<<4), byte(n>>4))
	default:
		e.out = append(e.out, byte(3<<2|n<<4), byte(n>>4), byte(n>>12))
	}
	e.out = append(e.out, e.lits...)
}

// appendHuffHeader appends the header of Huffman-coded literals: n of
// them (at least huffMin) in size bytes, as four streams.
func appendHuffHeader(b []byte, n, size int) []byte {
	const typ = 2
	switch {
	case n < 1024 && size < 1024:
		v := typ | 1<<2 | n<<4 | size<<14
		return append(b, byte(v), byte(v>>8), byte(v>>16))
	case n < 1<<14 && size < 1<<14:
		v := uint32(typ|2<<2) | uint32(n)<<4 | uint32(size)<<18
		return binary.LittleEndian.AppendUint32(b, v)
	}
	v := uint64(typ|3<<2) | uint64(n)<<4 | uint64(size)<<22
	return append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24), byte(v>>32))
}

// appendSequences appends the block's sequences section: their count,
// each kind's mode with its RLE code or table (tables.go), and the
// bitstream, which holds the sequences last first.
func (e *Encoder) appendSequences() {
	n := len(e.seqs)
	switch {
	case n < 128:
		e.out = append(e.out, byte(n))
	case n < 0x7F00:
		e.out = append(e.out, byte(n>>8+0x80), byte(n))
	default:
		e.out = append(e.out, 0xFF, byte(n-0x7F00), byte((n-0x7F00)>>8))
	}
	ll, of, ml := e.codes[kindLL][:0], e.codes[kindOF][:0], e.codes[kindML][:0]
	for _, s := range e.seqs {
		ll = append(ll, llCode(s.ll))
		of = append(of, ofCode(s.off))
		ml = append(ml, mlCode(s.ml))
	}
	e.codes = [3][]uint8{ll, of, ml}
	var states [3]fseState
	modesAt := len(e.out)
	e.out = append(e.out, 0)
	for kind := range e.tables {
		k := &e.tables[kind]
		k.count(e.codes[kind])
		var mode int
		mode, states[kind].t, e.out = k.choose(kind, n, e.out)
		e.out[modesAt] |= byte(mode) << (6 - 2*kind)
	}

	sLL, sOF, sML := &states[kindLL], &states[kindOF], &states[kindML]
	b := &e.bw
	b.out = e.out
	last := n - 1
	seqs := e.seqs[:n]
	ll, of, ml = ll[:n], of[:n], ml[:n]
	sML.init(ml[last])
	sOF.init(of[last])
	sLL.init(ll[last])
	extra(b, seqs[last], ll[last], ml[last], of[last])
	for i := n - 2; i >= 0; i-- {
		sOF.encode(b, of[i])
		sML.encode(b, ml[i])
		sLL.encode(b, ll[i])
		extra(b, seqs[i], ll[i], ml[i], of[i])
	}
	sML.flush(b)
	sOF.flush(b)
	sLL.flush(b)
	b.close()
	e.out, b.out = b.out, nil
}

// extra writes a sequence's extra bits, where its values are in the
// ranges of its codes: the literal and match lengths' together (at most
// 32 bits), then the offset's.
func extra(b *bitWriter, s seq, llc, mlc, ofc uint8) {
	l, m := llCodes[llc], mlCodes[mlc]
	b.add(uint64(s.ll-l.base)|uint64(s.ml-m.base)<<l.bits, uint(l.bits+m.bits))
	b.add(uint64(s.off), uint(ofc))
}

// commonSuffix returns how many bytes a and b end alike, comparing eight
// at a time: the bytes of a little-endian word nearest the end are its
// most significant.
func commonSuffix(a, b []byte) int {
	if n := len(a); n == len(b) && n >= 8 && n <= 16 {
		// A record's header against the one before: the last eight
		// bytes of each, then the first eight, of which those among the
		// last are known alike.
		if x := binary.LittleEndian.Uint64(a[n-8:]) ^ binary.LittleEndian.Uint64(b[n-8:]); x != 0 {
			return bits.LeadingZeros64(x) / 8
		}
		x := binary.LittleEndian.Uint64(a) ^ binary.LittleEndian.Uint64(b)
		return n - (64-bits.LeadingZeros64(x)+7)/8
	}
	s := 0
	for len(a)-s >= 8 && len(b)-s >= 8 {
		x := binary.LittleEndian.Uint64(a[len(a)-s-8:]) ^ binary.LittleEndian.Uint64(b[len(b)-s-8:])
		if x != 0 {
			return s + bits.LeadingZeros64(x)/8
		}
		s += 8
	}
	if m := min(len(a), len(b)); m >= 8 && s < m {
		// Fewer than eight bytes left: the first eight of each, whose
		// last 8-(m-s) are the suffix already found alike.
		x := binary.LittleEndian.Uint64(a[len(a)-m:]) ^ binary.LittleEndian.Uint64(b[len(b)-m:])
		if x == 0 {
			return m
		}
		return s + bits.LeadingZeros64(x)/8 - (8 - (m - s))
	}
	for s < len(a) && s < len(b) && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	return s
}
