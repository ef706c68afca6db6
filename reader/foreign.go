package reader

import (
	"compress/gzip"
	"encoding/binary"
	"io"

	"github.com/gotachyon/profiler/tachyon"
)

// foreign says, in words, what a file that does not start with
// Tachyon's magic is, when it is one that people give a Tachyon tool by
// mistake, or returns "": a pprof profile (gzipped, as go tool pprof and runtime/pprof
// write it, or a raw protobuf), or a gzipped Tachyon profile. head is the
// file's first bytes; r reads the whole file, of size bytes.
func foreign(head []byte, r io.ReaderAt, size int64) string {
	if len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(io.NewSectionReader(r, 0, size))
		if err != nil {
			return "not a Tachyon profile: it is gzip-compressed data"
		}
		inner := make([]byte, 64<<10)
		n, err := io.ReadFull(zr, inner)
		inner = inner[:n]
		total := int64(-1) // the decompressed size, when it fits in inner
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			total = int64(n)
		}
		switch {
		case n >= 4 && binary.LittleEndian.Uint32(inner) == tachyon.Magic:
			return "a gzip-compressed Tachyon profile: gunzip it first"
		case isProfileProto(inner, total):
			return "not a Tachyon profile: this is a pprof profile: use go tool pprof (it is a gzip-compressed protobuf, as runtime/pprof writes)"
		}
		return "not a Tachyon profile: it is gzip-compressed data (not a pprof profile either)"
	}
	b := make([]byte, min(size, 64<<10))
	if _, err := r.ReadAt(b, 0); err != nil && err != io.EOF {
		return ""
	}
	if isProfileProto(b, size) {
		return "not a Tachyon profile: this is a pprof profile: use go tool pprof (it is an uncompressed protobuf)"
	}
	return ""
}

// isProfileProto reports whether b, the first bytes of a message of
// total bytes (-1: unknown), reads as a pprof Profile message
// (github.com/google/pprof/proto/profile.proto): every field one of
// Profile's, of its wire type, each length within the message, as far as
// b goes; and when b is the whole message, a string table (every profile
// has one: its first string is ""), else at least a few fields. Text
// fails at once or within a few fields: its bytes are keys of fields
// Profile does not have, or lengths past its end.
func isProfileProto(b []byte, total int64) bool {
	cut := total < 0 || int64(len(b)) < total // b may end inside a field
	fields, strings := 0, false
	for pos := 0; pos < len(b); fields++ {
		key, k := binary.Uvarint(b[pos:])
		if k <= 0 {
			return k == 0 && cut && fields >= 8
		}
		pos += k
		field, wire := key>>3, key&7
		var packed bool
		switch {
		case field >= 1 && field <= 6 || field == 11 || field == 15: // messages and strings
			packed = true
		case field >= 7 && field <= 14: // integers; comment (13) may be packed
			packed = field == 13 && wire == 2
		default:
			return false
		}
		if packed != (wire == 2) || !packed && wire != 0 {
			return false
		}
		strings = strings || field == 6
		v, k := binary.Uvarint(b[pos:])
		if k <= 0 {
			return k == 0 && cut && fields >= 8
		}
		pos += k
		if !packed {
			continue
		}
		if total >= 0 && uint64(pos)+v > uint64(total) {
			return false
		}
		pos += int(min(v, uint64(len(b))))
	}
	if cut {
		return fields >= 8 || strings
	}
	return strings
}
