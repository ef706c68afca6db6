package zstdrun

import (
	"encoding/binary"
	"math/bits"
)

// bitWriter writes a sequences bitstream (RFC 8878, 4.1): values go in
// from the low bits up, bytes out in order, and the stream ends with a
// one bit, which the decoder, reading backward from the last byte, finds
// first.
type bitWriter struct {
	acc uint64
	n   uint // bits in acc
	out []byte
}

// add appends the low n bits of v, n <= 32.
func (b *bitWriter) add(v uint64, n uint) {
	if b.n+n > 64 {
		b.flush()
	}
	// The shifts' counts are under 64 (b.n is 64 only with n 0): masked,
	// they need no test of their own.
	b.acc |= (v & (1<<(n&63) - 1)) << (b.n & 63)
	b.n += n
}

// flush moves the whole bytes of acc to out, with one store of the word
// whose excess bytes the slice then leaves out.
func (b *bitWriter) flush() {
	k := b.n >> 3
	b.out = binary.LittleEndian.AppendUint64(b.out, b.acc)
	b.out = b.out[:len(b.out)-8+int(k)]
	b.acc >>= k << 3 // all of it when k is 8
	b.n &= 7
}

// close ends the stream with its mark and pads its last byte with zeros.
func (b *bitWriter) close() {
	b.add(1, 1)
	b.flush()
	if b.n > 0 {
		b.out = append(b.out, byte(b.acc))
	}
	b.acc, b.n = 0, 0
}

// fseTable encodes symbols of one FSE distribution (tANS), built as the
// format's decoder builds its table from the same normalized counts, so
// that each state the encoder leaves is the one the decoder reads. Its
// slices are reused by the next build.
type fseTable struct {
	log   uint
	next  []uint16 // the state that follows, by symbol's cumulative slot
	trans []fseTrans
	// build's scratch
	symbol []uint8
	slot   []int
}

// fseTrans is how a symbol moves the state: the bits it writes, and where
// its slots begin in next.
type fseTrans struct {
	deltaBits  uint32
	deltaState int32
}

// newFSETable builds the table of a distribution (see build).
func newFSETable(norm []int16, log uint) *fseTable {
	t := new(fseTable)
	if !t.build(norm, log) {
		panic("zstdrun: distribution does not sum to its table")
	}
	return t
}

// build makes t the table of a distribution: norm holds each symbol's
// count out of 1<<log, -1 for "less than one" (one slot at the table's
// end). It reports false if the counts do not sum to the table.
func (t *fseTable) build(norm []int16, log uint) bool {
	size := 1 << log
	mask := size - 1
	t.log = log
	t.symbol = grow(t.symbol, size)
	t.slot = grow(t.slot, len(norm)+1)
	t.next = grow(t.next, size)
	t.trans = grow(t.trans, len(norm))
	symbol, cumul := t.symbol, t.slot
	high := size - 1
	cumul[0] = 0
	for s, c := range norm {
		if c == -1 {
			cumul[s+1] = cumul[s] + 1
			symbol[high] = uint8(s)
			high--
			continue
		}
		cumul[s+1] = cumul[s] + int(c)
	}
	if cumul[len(norm)] != size {
		return false
	}
	// Spread the symbols over the slots as the decoder does.
	step := size>>1 + size>>3 + 3
	pos := 0
	for s, c := range norm {
		for range max(int(c), 0) {
			symbol[pos] = uint8(s)
			pos = (pos + step) & mask
			for pos > high {
				pos = (pos + step) & mask
			}
		}
	}
	// cumul becomes each symbol's next slot.
	for u, s := range symbol {
		t.next[cumul[s]] = uint16(size + u)
		cumul[s]++
	}
	total := 0
	for s, c := range norm {
		tr := &t.trans[s]
		*tr = fseTrans{}
		switch {
		case c == 0:
			tr.deltaBits = uint32((log+1)<<16) - uint32(size)
		case c == -1 || c == 1:
			tr.deltaBits = uint32(log<<16) - uint32(size)
			tr.deltaState = int32(total - 1)
			total++
		default:
			maxOut := log - uint(bits.Len32(uint32(c-1))-1)
			tr.deltaBits = uint32(maxOut<<16) - uint32(c)<<maxOut
			tr.deltaState = int32(total - int(c))
			total += int(c)
		}
	}
	return true
}

// grow returns s with length n, reusing its array if it is long enough.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// fseState is an encoder's state in a table, nil for RLE (a block whose
// symbols of this kind are all one writes no state).
type fseState struct {
	t     *fseTable
	value uint32
}

// init starts the state at the last symbol to be written (the first the
// decoder reads).
func (s *fseState) init(sym uint8) {
	if s.t == nil {
		return
	}
	tr := s.t.trans[sym]
	n := (tr.deltaBits + 1<<15) >> 16
	v := n<<16 - tr.deltaBits
	s.value = uint32(s.t.next[int32(v>>n)+tr.deltaState])
}

// encode writes the bits that lead the decoder from sym's state to the
// current one. It is inlined: a block whose units are alike has most
// often two kinds of its three in RLE.
func (s *fseState) encode(b *bitWriter, sym uint8) {
	if s.t != nil {
		s.step(b, sym)
	}
}

// step is encode with a table.
func (s *fseState) step(b *bitWriter, sym uint8) {
	tr := s.t.trans[sym]
	n := (s.value + tr.deltaBits) >> 16
	b.add(uint64(s.value), uint(n))
	s.value = uint32(s.t.next[int32(s.value>>n)+tr.deltaState])
}

// flush writes the state the decoder starts from.
func (s *fseState) flush(b *bitWriter) {
	if s.t == nil {
		return
	}
	b.add(uint64(s.value), s.t.log)
}

// The predefined distributions (RFC 8878, 3.1.1.3.2.2) and their tables.
var (
	llNorm = []int16{
		4, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1,
		2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 2, 1, 1, 1, 1, 1,
		-1, -1, -1, -1}
	mlNorm = []int16{
		1, 4, 3, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1,
		1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
		1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1,
		-1, -1, -1, -1, -1}
	ofNorm = []int16{
		1, 1, 1, 1, 1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1,
		1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1}

	llTable = newFSETable(llNorm, 6)
	mlTable = newFSETable(mlNorm, 6)
	ofTable = newFSETable(ofNorm, 5)
)

// A code names a range of values: its baseline and the extra bits that
// say where in the range a value is (RFC 8878, 3.1.1.3.2.1.1).
type code struct {
	base uint32
	bits uint8
}

// llCodes and mlCodes are the literal and match length codes, in order.
var (
	llCodes = lengthCodes(16, 0, 16, 1, 1, 1, 1, 2, 2, 3, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)
	mlCodes = lengthCodes(32, 3, 35, 1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)
)

// lengthCodes lists n codes of one value each from base0, then codes
// from base of the given extra bits, each starting where the last ends.
func lengthCodes(n int, base0, base uint32, extra ...uint8) []code {
	c := make([]code, 0, n+len(extra))
	for i := range n {
		c = append(c, code{base: base0 + uint32(i)})
	}
	for _, b := range extra {
		c = append(c, code{base: base, bits: b})
		base += 1 << b
	}
	return c
}

// llCode returns the code of literal length ll.
func llCode(ll uint32) uint8 {
	switch {
	case ll < 16:
		return uint8(ll)
	case ll >= 64:
		return uint8(bits.Len32(ll) + 18) // 64 is code 25, each power of two the next
	}
	return lastBelow(llCodes[:25], ll)
}

// mlCode returns the code of match length ml (at least 3).
func mlCode(ml uint32) uint8 {
	switch b := ml - 3; {
	case b < 32:
		return uint8(b)
	case b >= 128:
		return uint8(bits.Len32(b) + 35) // 131 is code 43, each power of two the next
	}
	return lastBelow(mlCodes[:43], ml)
}

// ofCode returns the code of an offset value: its highest bit.
func ofCode(off uint32) uint8 { return uint8(bits.Len32(off) - 1) }

// lastBelow returns the index of the last code in codes whose range
// starts at or below v.
func lastBelow(codes []code, v uint32) uint8 {
	i := len(codes) - 1
	for codes[i].base > v {
		i--
	}
	return uint8(i)
}
