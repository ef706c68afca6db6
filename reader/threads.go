package reader

import "hash/maphash"

// threadTable holds the replay state of every thread met, by key. A file
// may have a million threads: an open-addressing table of indexes into
// chunks of states takes about 70 bytes a thread, where a map of pointers
// to separately allocated states took 110.
type threadTable struct {
	slots  []int32 // index+1 into the states, 0 if empty; a power of 2 long
	chunks [][]rthread
	n      int
	seed   maphash.Seed
}

// chunkBits sets the states per chunk: chunks never move, so a state's
// address is stable.
const chunkBits = 10

func newThreadTable() *threadTable {
	return &threadTable{slots: make([]int32, 16), seed: maphash.MakeSeed()}
}

func (tt *threadTable) len() int { return tt.n }

func (tt *threadTable) state(i int32) *rthread {
	return &tt.chunks[i>>chunkBits][i&(1<<chunkBits-1)]
}

// get returns thread k's state, nil if it has none.
func (tt *threadTable) get(k threadKey) *rthread {
	mask := uint64(len(tt.slots) - 1)
	for h := maphash.Comparable(tt.seed, k) & mask; ; h = (h + 1) & mask {
		i := tt.slots[h]
		if i == 0 {
			return nil
		}
		if t := tt.state(i - 1); t.key == k {
			return t
		}
	}
}

// add gives thread k, which has none, a state with timestamp ts.
func (tt *threadTable) add(k threadKey, ts uint64) *rthread {
	if 4*(tt.n+1) > 3*len(tt.slots) {
		tt.grow()
	}
	i := int32(tt.n)
	if i>>chunkBits == int32(len(tt.chunks)) {
		tt.chunks = append(tt.chunks, make([]rthread, 1<<chunkBits))
	}
	tt.n++
	t := tt.state(i)
	*t = rthread{key: k, ts: ts}
	tt.place(k, i)
	return t
}

// place puts state i, of thread k, in its slot.
func (tt *threadTable) place(k threadKey, i int32) {
	mask := uint64(len(tt.slots) - 1)
	h := maphash.Comparable(tt.seed, k) & mask
	for tt.slots[h] != 0 {
		h = (h + 1) & mask
	}
	tt.slots[h] = i + 1
}

// grow doubles the slots and places every state again.
func (tt *threadTable) grow() {
	tt.slots = make([]int32, 2*len(tt.slots))
	for i := range int32(tt.n) {
		tt.place(tt.state(i).key, i)
	}
}

// threadKey names a thread: its ID and its interpreter ID.
type threadKey struct {
	id     uint64
	interp uint32
}

// rthread is a thread's replay state. Its stack lives at the end of arr,
// innermost first from off, so pushes and pops move off and touch only the
// frames that change.
type rthread struct {
	arr []uint32
	off int
	ts  uint64
	key threadKey
	has bool // a stack has been set
}

func (t *rthread) stack() []uint32 { return t.arr[t.off:] }

func (t *rthread) depth() int { return len(t.arr) - t.off }

// push puts frames (innermost first) on top of the stack.
func (t *rthread) push(frames []uint32) {
	if len(frames) > t.off {
		depth := t.depth()
		n := depth + len(frames)
		na := make([]uint32, 2*n) // room for as many again: pushes double it

		copy(na[len(na)-depth:], t.stack())
		t.arr, t.off = na, len(na)-depth
	}
	t.off -= len(frames)
	copy(t.arr[t.off:], frames)
}
