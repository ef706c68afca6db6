package writer

import "slices"

// stackTab interns the threads' previous stacks by content: a stack that
// is a thread's previous one is only compared with its next one, so
// threads with the same stack (a server's parked goroutines, by the
// thousand) share one copy: the buffer of the first thread to share it.
// It starts afresh when it holds maxStacks stacks; the copies threads hold
// stay valid.
type stackTab struct {
	m map[uint64]*stackBuf
}

// maxStacks bounds a stackTab.
const maxStacks = 1 << 16

// intern returns the table's stack equal to s, or s itself, which the
// table keeps from then on: the caller must not write to it again.
func (t *stackTab) intern(s *stackBuf) *stackBuf {
	h := uint64(14695981039346656037) // FNV-1a over the frame indices
	for _, f := range s.s {
		h = (h ^ uint64(f)) * 1099511628211
	}
	if c, ok := t.m[h]; ok && slices.Equal(c.s, s.s) {
		return c
	}
	if t.m == nil {
		t.m = make(map[uint64]*stackBuf)
	}
	if len(t.m) >= maxStacks {
		clear(t.m)
	}
	t.m[h] = s
	return s
}

// recycle hands every stack of the table to free, once no thread refers
// to them (Writer.Reset), and empties the table.
func (t *stackTab) recycle(free func(*stackBuf)) {
	for _, s := range t.m {
		free(s)
	}
	clear(t.m)
}
