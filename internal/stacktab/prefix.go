package stacktab

import "hash/maphash"

// Thread names a thread of a file: its ID and its interpreter ID.
type Thread struct {
	ID     uint64
	Interp uint32
}

// Prefixes finds a value of a sample's stack by folding Next over its
// frames from the root (a prefix hash), at the cost of the frames its
// record changed (reader.Sample.Kept) and at most Stride more, not of its
// depth: a file of a few kilobytes can move a thread among stacks 65,536
// frames deep, more than a Cache holds. It keeps, per thread whose stack
// has CacheMinDepth frames or more, the value every Stride frames: a
// sixty-fourth of the reader's own copy of that stack, so that a million
// threads, or hundreds 65,536 frames deep, fit.
//
// Set Next and Root before use.
type Prefixes[T any] struct {
	// Next returns the value of a frame from its caller's.
	Next func(caller T, frame uint32) T
	// Root is the value above the outermost frame.
	Root T
	by   map[Thread][]T // per deep thread: the value after each Stride frames
}

// Stride is how many frames apart Prefixes keeps a thread's values.
const Stride = 64

// Of returns the value of stack (innermost first), a sample of thread th
// whose outermost kept frames are those of the stack of th's previous
// call. The caller must give Of every sample of th that it reads, or call
// Forget.
func (p *Prefixes[T]) Of(th Thread, stack []uint32, kept int) T {
	d := len(stack)
	marks, ok := p.by[th]
	if !ok {
		kept = 0
	}
	n := min(max(0, min(kept, d))/Stride, len(marks))
	marks = marks[:n]
	v := p.Root
	if n > 0 {
		v = marks[n-1]
	}
	for k := n * Stride; k < d; k++ {
		v = p.Next(v, stack[d-1-k])
		if (k+1)%Stride == 0 {
			marks = append(marks, v)
		}
	}
	switch {
	case d >= CacheMinDepth:
		if p.by == nil {
			p.by = make(map[Thread][]T)
		}
		p.by[th] = marks
	case ok:
		delete(p.by, th)
	}
	return v
}

// Forget drops what p keeps of thread th: its next stack is folded whole.
func (p *Prefixes[T]) Forget(th Thread) { delete(p.by, th) }

// Mix returns the prefix hash of a frame from its caller's h: for a given
// frame a bijection of h (splitmix64's finalizer), so that from a seeded
// root distinct stacks collide as random 64-bit values do.
func Mix(h uint64, frame uint32) uint64 {
	h ^= uint64(frame) + 0x9e3779b97f4a7c15
	h = (h ^ h>>30) * 0xbf58476d1ce4e5b9
	h = (h ^ h>>27) * 0x94d049bb133111eb
	return h ^ h>>31
}

// Deep finds the id of a deep stack in a Table by a 128-bit prefix hash
// of its frames (Prefixes), at the cost of the frames its record changed:
// Table.ID hashes a stack whole, 65,536 frames for each sample of a file
// that moves a thread among such stacks. Two 64-bit hashes from seeded
// roots make a collision among the 65,536 stacks of CacheMinDepth frames a
// Table's default budget holds about 2^-96 likely. The zero value is
// ready to use.
type Deep struct {
	hashes Prefixes[[2]uint64]
	ids    map[[2]uint64]uint32
}

// ID returns t.ID(stack) for stack, a sample of thread th whose outermost
// kept frames are those of th's previous stack given to ID, which must see
// every sample of th.
func (d *Deep) ID(t *Table, th Thread, stack []uint32, kept int) (uint32, error) {
	if len(stack) < CacheMinDepth {
		d.hashes.Forget(th)
		return t.ID(stack)
	}
	if d.ids == nil {
		seed := maphash.MakeSeed()
		d.hashes = Prefixes[[2]uint64]{Next: Mix2,
			Root: [2]uint64{maphash.Comparable(seed, 0), maphash.Comparable(seed, 1)}}
		d.ids = make(map[[2]uint64]uint32)
	}
	h := d.hashes.Of(th, stack, kept)
	if id, ok := d.ids[h]; ok {
		return id, nil
	}
	id, err := t.ID(stack)
	if err == nil {
		d.ids[h] = id
	}
	return id, err
}

// Mix2 is Mix on each of two hashes: a 128-bit prefix hash from two
// independently seeded roots.
func Mix2(h [2]uint64, frame uint32) [2]uint64 {
	return [2]uint64{Mix(h[0], frame), Mix(h[1], frame)}
}
