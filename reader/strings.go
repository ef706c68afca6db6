package reader

import "encoding/binary"

// A stringTable holds the file's string table as one copy of its bytes and
// the position of every stringStride-th entry: 0.25 bytes per string over
// the table's size on disk, where a []string would cost a 16-byte header
// per string besides its bytes (bench/MEASUREMENTS.md has what that came
// to). A lookup reads at most stringStride-1 length varints past the
// nearest indexed entry.
type stringTable struct {
	all string   // the table's bytes: (length varint, bytes) per entry
	idx []uint32 // offset in all of entries 0, stringStride, 2*stringStride, ...
	n   int
}

const stringStride = 16

// get returns string i (0 <= i < n). The table was validated when loaded.
func (t *stringTable) get(i uint32) string {
	pos := int(t.idx[i/stringStride])
	for range i % stringStride {
		l, k := binary.Uvarint(varintHead(t.all[pos:]))
		pos += k + int(l)
	}
	l, k := binary.Uvarint(varintHead(t.all[pos:]))
	pos += k
	return t.all[pos : pos+int(l)]
}

// varintHead copies the first bytes of s, a varint's worth, into a slice
// that stays on the stack.
func varintHead(s string) []byte {
	var b [binary.MaxVarintLen64]byte
	return b[:copy(b[:], s)]
}
