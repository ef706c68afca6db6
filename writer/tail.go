package writer

import (
	"math"
	"slices"
)

// A tail is the end of a pending REPEAT run that repeats one (delta,
// status) pair: what a parked goroutine writes tick after tick. It is kept
// as the pair and a count, so that such a run costs a few bytes however
// long it grows, and it is expanded only where it is written. A pair longer
// than tailPairBytes (a delta of 2^28 microseconds or more: 4.5 minutes,
// where a sampler's ticks are milliseconds apart) goes to the pairs buffer
// instead.
type tail struct {
	pair [tailPairBytes]byte
	len  uint8
	n    uint16 // a run is written at MaxRunBytes, 2 bytes a pair at least
}

// tailPairBytes is the longest pair a tail holds: with the tail's other
// fields, a thread's record fits 32 bytes.
const tailPairBytes = 5

// A tail's count holds every pair of a run.
const _ = uint(math.MaxUint16 - (MaxRunBytes/2 + 1))

// bytes returns the repeated pair.
func (r *tail) bytes() []byte { return r.pair[:r.len] }

// size returns the tail's expanded size in bytes.
func (r *tail) size() int { return int(r.n) * int(r.len) }

// appendTo appends the expanded tail to b: the pair, then the written span
// doubled until the count is reached.
func (r *tail) appendTo(b []byte) []byte {
	total := r.size()
	if total == 0 {
		return b
	}
	b = slices.Grow(b, total)
	start := len(b)
	b = append(b, r.bytes()...)
	for done := int(r.len); done < total; {
		done += copy(b[start+done:start+total], b[start:start+done])
		b = b[:start+done]
	}
	return b
}

// runBytes returns the size of t's pending run's pairs, expanded.
func (w *Writer) runBytes(t *thread) int {
	if t.pairs == 0 {
		return t.tail.size()
	}
	return len(w.pairsOf(t).buf) + t.tail.size()
}
