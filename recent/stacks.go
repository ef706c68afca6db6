package recent

import (
	"encoding/binary"
	"hash/maphash"
	"slices"
)

// shared is a stack in the window's frame indices, innermost first, held
// once for every thread whose latest stack it is: parked goroutines are
// mostly a few stacks many times over.
type shared struct {
	frames []uint32
	hash   uint64
	refs   int
	listed bool // in stackSet.byHash
}

// stackSet holds the threads' latest stacks, shared by content. The
// zero stackSet is ready once it has a seed.
type stackSet struct {
	seed   maphash.Seed
	byHash map[uint64]*shared
	buf    []byte
	frames int64 // frames held, in all the stacks
}

// newStackSet returns an empty stackSet.
func newStackSet() stackSet {
	return stackSet{seed: maphash.MakeSeed(), byHash: make(map[uint64]*shared)}
}

// take returns the shared stack with frames, counting one more holder. A
// stack whose hash another stack has is held apart, unshared.
func (ss *stackSet) take(frames []uint32) *shared {
	ss.buf = ss.buf[:0]
	for _, f := range frames {
		ss.buf = binary.LittleEndian.AppendUint32(ss.buf, f)
	}
	h := maphash.Bytes(ss.seed, ss.buf)
	s := ss.byHash[h]
	if s != nil && slices.Equal(s.frames, frames) {
		s.refs++
		return s
	}
	s = &shared{frames: slices.Clone(frames), hash: h, refs: 1}
	if ss.byHash[h] == nil {
		ss.byHash[h] = s
		s.listed = true
	}
	ss.frames += int64(len(frames))
	return s
}

// drop counts one holder of s less, and lets it go after the last.
func (ss *stackSet) drop(s *shared) {
	if s == nil {
		return
	}
	if s.refs--; s.refs > 0 {
		return
	}
	if s.listed {
		delete(ss.byHash, s.hash)
	}
	ss.frames -= int64(len(s.frames))
}
