package recent

import (
	"encoding/binary"
	"hash/maphash"
	"slices"
)

// shared is a stack in the window's frame indices, innermost first: a
// thread's own while its stack changes, then, once it has held still for
// a batch, held once for every thread whose latest stack it is: parked
// goroutines are mostly a few stacks many times over.
type shared struct {
	frames []uint32
	hash   uint64
	refs   int
	listed bool // in stackSet.byHash, to be shared
}

// stackSet holds the threads' latest stacks. Make one with newStackSet.
type stackSet struct {
	seed   maphash.Seed
	byHash map[uint64]*shared
	buf    []byte
	frames int64 // frames held, in all the stacks
	// free holds stacks let go, for reuse with their frames' room.
	free []*shared
}

// maxFreeStacks bounds the stacks a stackSet keeps for reuse.
const maxFreeStacks = 1024

// newStackSet returns an empty stackSet.
func newStackSet() stackSet {
	return stackSet{seed: maphash.MakeSeed(), byHash: make(map[uint64]*shared)}
}

// own returns a stack of the caller's own holding frames: s, the
// caller's latest (nil: none), written over if the caller alone holds it
// unshared, else let go and another taken. A running goroutine's stack
// changes at every sample: this costs no hash and, in the long run, no
// allocation.
func (ss *stackSet) own(s *shared, frames []uint32) *shared {
	if s != nil && s.refs == 1 && !s.listed {
		ss.frames += int64(len(frames) - len(s.frames))
		s.frames = append(s.frames[:0], frames...)
		return s
	}
	ss.drop(s)
	if n := len(ss.free); n > 0 {
		s = ss.free[n-1]
		ss.free[n-1] = nil
		ss.free = ss.free[:n-1]
		*s = shared{frames: append(s.frames[:0], frames...), refs: 1}
	} else {
		s = &shared{frames: slices.Clone(frames), refs: 1}
	}
	ss.frames += int64(len(frames))
	return s
}

// share returns the stack to hold in place of s, the caller's own: the
// one of the same frames others hold, s let go, or else s, listed for
// others to share. A stack whose hash another stack has stays the
// caller's own.
func (ss *stackSet) share(s *shared) *shared {
	if s == nil || s.listed {
		return s
	}
	ss.buf = ss.buf[:0]
	for _, f := range s.frames {
		ss.buf = binary.LittleEndian.AppendUint32(ss.buf, f)
	}
	h := maphash.Bytes(ss.seed, ss.buf)
	switch o := ss.byHash[h]; {
	case o == nil:
		s.hash, s.listed = h, true
		ss.byHash[h] = s
		return s
	case slices.Equal(o.frames, s.frames):
		o.refs++
		ss.drop(s)
		return o
	}
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
	if len(ss.free) < maxFreeStacks {
		ss.free = append(ss.free, s)
	}
}
