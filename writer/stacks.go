package writer

import "slices"

// stackBuf holds a thread's previous stack, innermost first: a thread's own
// buffer while its stack changes (own), the copy it shares with the threads
// that have the same once it has been flushed (stackTab).
type stackBuf struct {
	s     []uint32
	ref   stackRef // its number in Writer.stackBufs
	own   bool
	inTab bool  // the table holds it (a shared copy)
	refs  int32 // the threads that share it, while it is a shared copy
}

// A stackRef is a thread's reference to its previous stack: a number in
// Writer.stackBufs from firstRef, or one of the states below, which have
// no buffer and are never written to, interned or freed.
type stackRef uint32

const (
	noRef        stackRef = iota // no sample yet
	emptyRef                     // the stack of no frames
	forgottenRef                 // the stack of a forgotten thread
	firstRef
)

// stackTab interns the threads' previous stacks by content: a stack that
// is a thread's previous one is only compared with its next one, so
// threads with the same stack (a server's parked goroutines, by the
// thousand) share one copy: the buffer of the first thread to share it.
// It starts afresh when it holds maxStacks stacks; the copies threads hold
// stay valid, and are freed once the last of them moves off (refs).
type stackTab struct {
	m map[uint64]*stackBuf
}

// maxStacks bounds a stackTab.
const maxStacks = 1 << 16

// intern returns the table's stack equal to s, or s itself, which the
// table keeps from then on: the caller must not write to it again. A
// stack the table drops as it starts afresh goes to drop.
func (t *stackTab) intern(s *stackBuf, drop func(*stackBuf)) *stackBuf {
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
		t.recycle(drop)
	}
	if old := t.m[h]; old != nil {
		drop(old)
	}
	t.m[h] = s
	s.inTab = true
	return s
}

// recycle drops every stack of the table, handing each to drop, and
// empties the table.
func (t *stackTab) recycle(drop func(*stackBuf)) {
	for _, s := range t.m {
		drop(s)
	}
	clear(t.m)
}

// untab is the table's drop: a shared copy no thread refers to is freed.
func (w *Writer) untab(s *stackBuf) {
	s.inTab = false
	if s.refs == 0 {
		w.freeStack(s)
	}
}

// unshare moves t off its shared copy, if it has one, which is freed
// once neither a thread nor the table holds it.
func (w *Writer) unshare(t *thread) {
	if t.stack < firstRef {
		return
	}
	s := w.stackBufs[t.stack]
	if s.own {
		return
	}
	t.stack = noRef
	if s.refs--; s.refs == 0 && !s.inTab {
		w.freeStack(s)
	}
}

// share makes t's stack the shared copy of it, giving its own buffer
// back (or making it the shared copy, the first time): a thread whose
// batch of samples has been written keeps no buffer of its own until its
// stack changes again.
func (w *Writer) share(t *thread) {
	if !w.owned(t) {
		return
	}
	own := w.stackBufs[t.stack]
	own.own = false
	if len(own.s) == 0 {
		t.stack = emptyRef
		w.freeStack(own)
		return
	}
	c := w.stacks.intern(own, w.untab)
	c.refs++
	t.stack = c.ref
	if c != own {
		w.freeStack(own)
	}
}

// dropStack gives t's stack back as t goes (Forget, Close): its own
// buffer, or its share of a copy.
func (w *Writer) dropStack(t *thread) {
	if w.owned(t) {
		w.freeStack(w.stackBufs[t.stack])
		t.stack = noRef
		return
	}
	w.unshare(t)
}

// maxFreeStacks bounds the stack buffers kept for threads whose stack
// changes: enough for a burst of goroutines that change between batches.
const maxFreeStacks = 1024

// newStack returns an empty stack buffer of its own number, one a thread
// gave back if there is one: under churn (a server starting a goroutine a
// request), fresh buffers would be half of the writer's garbage.
func (w *Writer) newStack() *stackBuf {
	if n := len(w.freeStacks); n > 0 {
		s := w.freeStacks[n-1]
		w.freeStacks[n-1] = nil
		w.freeStacks = w.freeStacks[:n-1]
		s.own = true
		return s
	}
	s := &stackBuf{s: make([]uint32, 0, 32), own: true}
	if k := len(w.freeRefs); k > 0 {
		s.ref = w.freeRefs[k-1]
		w.freeRefs = w.freeRefs[:k-1]
	} else {
		w.reserveRefs()
		s.ref = stackRef(len(w.stackBufs))
		w.stackBufs = append(w.stackBufs, nil)
	}
	w.stackBufs[s.ref] = s
	return s
}

// freeStack keeps a stack buffer that no thread or table holds for
// newStack, unless the list is full or the buffer grew for a deep stack;
// a buffer not kept gives its number back.
func (w *Writer) freeStack(s *stackBuf) {
	s.own, s.inTab, s.refs = false, false, 0
	if cap(s.s) == 0 || cap(s.s) > 64 || len(w.freeStacks) >= maxFreeStacks {
		w.stackBufs[s.ref] = nil
		w.freeRefs = append(w.freeRefs, s.ref)
		return
	}
	if w.freeStacks == nil {
		// Sized once: a list that grew whenever more threads than ever
		// gave their buffers back at once would allocate now and then in a
		// steady state.
		w.freeStacks = make([]*stackBuf, 0, maxFreeStacks)
	}
	s.s = s.s[:0]
	w.freeStacks = append(w.freeStacks, s)
}

// resetStacks drops every reference to a stack of the closed file
// (Recycle): the table's copies and the buffers kept for reuse go on as
// free buffers, numbered anew, and no other number is in use.
func (w *Writer) resetStacks() {
	w.stacks.recycle(w.freeStack)
	clear(w.stackBufs)
	w.stackBufs = w.stackBufs[:0]
	w.freeRefs = w.freeRefs[:0]
	w.reserveRefs()
	for _, s := range w.freeStacks {
		s.ref = stackRef(len(w.stackBufs))
		w.stackBufs = append(w.stackBufs, s)
	}
}

// reserveRefs keeps the numbers below firstRef out of stackBufs' use.
func (w *Writer) reserveRefs() {
	for len(w.stackBufs) < int(firstRef) {
		w.stackBufs = append(w.stackBufs, nil)
	}
}

// pairsOf returns t's pairs state; t has one (t.pairs != 0).
func (w *Writer) pairsOf(t *thread) *pairsState { return w.pairsTab[t.pairs] }
