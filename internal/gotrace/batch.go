package gotrace

import "encoding/binary"

// Batch reads what one write of the runtime's trace writer holds after the
// header: a whole batch, whose generation it returns, or the end of a
// generation (end). ok is false for anything else.
func Batch(b []byte) (gen uint64, end, ok bool) {
	if len(b) == 0 {
		return 0, false, false
	}
	switch b[0] {
	case evEndOfGeneration:
		return 0, len(b) == 1, len(b) == 1
	case evEventBatch:
		b = b[1:]
	case evExperimentalBatch:
		if len(b) < 2 {
			return 0, false, false
		}
		b = b[2:]
	default:
		return 0, false, false
	}
	gen, n := binary.Uvarint(b)
	return gen, false, n > 0 && gen > 0
}
