package sampler

// Goroutines that ended, for the CPU samples read after their end.
//
// The runtime reads its CPU profile into the trace late, and a sample of
// a goroutine may be ordered after the goroutine's end, with any number
// of other goroutines ended between. A sample of a goroutine the backend
// holds no record of is either of one that ended, which must not come
// back (it would be written again from the first tick, under a second
// handle of the sink), or, in the first generations, of one running since
// before the trace, which the runtime has not reported yet. Once the
// first generation is parsed, the runtime has reported every goroutine
// (reported), and it can only be of one that ended; before, endedIDs
// tells which, exactly.

// endedIDs is the set of goroutine ids that ended in the first
// generations. Goroutine ids are given densely in increasing order, so
// that a bit per id, in chunks over the ids that ended, costs an eighth
// of a byte per goroutine ended, however many goroutines come and go.
// The zero endedIDs is empty and ready.
type endedIDs struct {
	chunks map[uint64]*[idChunk / 64]uint64
	// last is the chunk latest added to, and lastKey its key: ids end
	// in runs, mostly in one chunk.
	last    *[idChunk / 64]uint64
	lastKey uint64
}

// idChunk is how many ids a chunk of endedIDs covers (8 KB of bits).
const idChunk = 1 << 16

// add records that goroutine id ended.
func (s *endedIDs) add(id uint64) {
	k := id / idChunk
	if s.last == nil || k != s.lastKey {
		if s.chunks == nil {
			s.chunks = make(map[uint64]*[idChunk / 64]uint64)
		}
		c := s.chunks[k]
		if c == nil {
			c = new([idChunk / 64]uint64)
			s.chunks[k] = c
		}
		s.last, s.lastKey = c, k
	}
	i := id % idChunk
	s.last[i/64] |= 1 << (i % 64)
}

// has reports whether goroutine id ended.
func (s *endedIDs) has(id uint64) bool {
	c := s.chunks[id/idChunk]
	if c == nil {
		return false
	}
	i := id % idChunk
	return c[i/64]&(1<<(i%64)) != 0
}

// hasEnded reports whether a CPU sample of goroutine id, of which the
// backend holds no record, is of one that ended.
func (tb *traceBackend) hasEnded(id uint64) bool {
	return tb.reported || tb.endedEarly.has(id)
}

// noteEnded records that goroutine id ended, while hasEnded needs it.
func (tb *traceBackend) noteEnded(id uint64) {
	if !tb.reported {
		tb.endedEarly.add(id)
	}
}

// allReported marks the runtime's report of every goroutine: from then
// on, a goroutine without a record has ended.
func (tb *traceBackend) allReported() {
	tb.reported = true
	tb.endedEarly = endedIDs{}
}
