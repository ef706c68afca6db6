package stackset

import (
	"encoding/binary"
	"hash/maphash"
	"slices"
)

// Stack is a stack of frame indices, innermost first: a thread's own
// while its stack changes, then, once it has held still for a batch,
// held once for every thread whose latest stack it is.
type Stack struct {
	frames []uint32
	hash   uint64
	refs   int
	listed bool // in Set.byHash, to be shared
}

// Set holds the threads' latest stacks. Make one with New.
type Set struct {
	seed   maphash.Seed
	byHash map[uint64]*Stack
	buf    []byte
	frames int64 // frames held, in all the stacks
	// free holds stacks let go, for reuse with their frames' room.
	free []*Stack
}

// maxFreeStacks bounds the stacks a Set keeps for reuse.
const maxFreeStacks = 1024

// New returns an empty Set.
func New() Set {
	return Set{seed: maphash.MakeSeed(), byHash: make(map[uint64]*Stack)}
}

// Frames returns the stack's frames, which the caller must not change.
func (s *Stack) Frames() []uint32 { return s.frames }

// Frames returns how many frames the Set's stacks hold in all.
func (ss *Set) Frames() int64 { return ss.frames }

// Shared returns how many stacks are listed for sharing.
func (ss *Set) Shared() int { return len(ss.byHash) }

// Own returns a stack of the caller's own holding frames: s, the
// caller's latest (nil: none), written over if the caller alone holds it
// unshared, else let go and another taken. A running goroutine's stack
// changes at every sample: this costs no hash and, in the long run, no
// allocation.
func (ss *Set) Own(s *Stack, frames []uint32) *Stack {
	if s != nil && s.refs == 1 && !s.listed {
		ss.frames += int64(len(frames) - len(s.frames))
		s.frames = append(s.frames[:0], frames...)
		return s
	}
	ss.Drop(s)
	if n := len(ss.free); n > 0 {
		s = ss.free[n-1]
		ss.free[n-1] = nil
		ss.free = ss.free[:n-1]
		*s = Stack{frames: append(s.frames[:0], frames...), refs: 1}
	} else {
		s = &Stack{frames: slices.Clone(frames), refs: 1}
	}
	ss.frames += int64(len(frames))
	return s
}

// Share returns the stack to hold in place of s, the caller's own: the
// one of the same frames others hold, s let go, or else s, listed for
// others to share. A stack whose hash another stack has stays the
// caller's own.
func (ss *Set) Share(s *Stack) *Stack {
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
		ss.Drop(s)
		return o
	}
	return s
}

// Drop counts one holder of s less, and lets it go after the last.
func (ss *Set) Drop(s *Stack) {
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
