package tracelabel

import (
	"encoding/binary"
	"sync/atomic"

	"github.com/gotachyon/profiler/tachyon"
)

// Category is the trace.Log category of label events.
const Category = "gotachyon.labels"

// Bounds of one label set: Parse refuses a message past them, and Append's
// callers leave out what would pass them. MaxBytes is the runtime's own
// bound on a string of the execution trace (a longer message would reach
// the trace cut off, and might read as a well-formed set missing labels).
const (
	MaxLabels = 64   // labels in one set
	MaxBytes  = 1024 // bytes of one message
)

var readers atomic.Int32

// Enable says that a profile reads the trace and wants label events.
func Enable() { readers.Add(1) }

// Disable says that a profile that called Enable no longer wants them.
func Disable() { readers.Add(-1) }

// Enabled reports whether a profile wants label events now.
func Enabled() bool { return readers.Load() > 0 }

// Append appends one label to a message: the key's length as a uvarint,
// the key, the value's length, the value.
func Append(msg []byte, key, value string) []byte {
	msg = binary.AppendUvarint(msg, uint64(len(key)))
	msg = append(msg, key...)
	msg = binary.AppendUvarint(msg, uint64(len(value)))
	return append(msg, value...)
}

// Size returns the bytes Append adds for one label.
func Size(key, value string) int {
	return uvarintLen(len(key)) + len(key) + uvarintLen(len(value)) + len(value)
}

// uvarintLen is the length of n as a uvarint.
func uvarintLen(n int) int {
	l := 1
	for ; n >= 0x80; n >>= 7 {
		l++
	}
	return l
}

// Parse appends the labels of msg to dst and returns it, with false if msg
// is not a well-formed message within the bounds (dst is then returned as
// it was). Keys that cannot be carried in a file (tachyon.ValidLabelKey)
// are left out.
func Parse(msg string, dst []tachyon.Label) ([]tachyon.Label, bool) {
	if len(msg) > MaxBytes {
		return dst, false
	}
	n0 := len(dst)
	for pairs := 0; len(msg) > 0; pairs++ {
		if pairs == MaxLabels {
			return dst[:n0], false
		}
		k, rest, ok := field(msg)
		if !ok {
			return dst[:n0], false
		}
		v, rest, ok := field(rest)
		if !ok {
			return dst[:n0], false
		}
		msg = rest
		if tachyon.ValidLabelKey(k) {
			dst = append(dst, tachyon.Label{Key: k, Value: v})
		}
	}
	return dst, true
}

// field reads one length-prefixed string.
func field(s string) (string, string, bool) {
	n, w := uvarint(s)
	if w <= 0 || n > uint64(len(s)-w) {
		return "", "", false
	}
	return s[w : w+int(n)], s[w+int(n):], true
}

// uvarint is binary.Uvarint over a string.
func uvarint(s string) (uint64, int) {
	var x uint64
	var shift uint
	for i := 0; i < len(s) && i < binary.MaxVarintLen64; i++ {
		b := s[i]
		if b < 0x80 {
			if i == binary.MaxVarintLen64-1 && b > 1 {
				return 0, -1
			}
			return x | uint64(b)<<shift, i + 1
		}
		x |= uint64(b&0x7f) << shift
		shift += 7
	}
	return 0, 0
}
