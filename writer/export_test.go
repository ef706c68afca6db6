package writer

import "fmt"

// ZstdOptionsAt gives the benchmarks of package writer_test the encoder
// options the writer would use at another zstd level.
var ZstdOptionsAt = zstdOptionsAt

// OwnedStacks counts the threads of w's last file that hold a stack
// buffer of their own.
func OwnedStacks(w *Writer) int {
	n := 0
	w.eachThread(func(t *thread) {
		if t != nil && w.owned(t) {
			n++
		}
	})
	for _, t := range w.spare {
		if w.owned(&t.thread) {
			n++
		}
	}
	return n
}

// CheckStacks checks the bookkeeping of w's stack buffers: each number in
// use names its buffer, each shared copy counts the threads that share it,
// and no buffer a thread or the table holds is among the free ones.
func CheckStacks(w *Writer) error {
	refs := map[stackRef]int32{}
	held := map[*stackBuf]bool{}
	count := func(t *thread) {
		if t.stack >= firstRef {
			s := w.stackBufs[t.stack]
			held[s] = true
			if !s.own {
				refs[t.stack]++
			}
		}
	}
	w.eachThread(count)
	for _, t := range w.threads {
		count(&t.thread) // handles not yet started are in no order
	}
	for i, s := range w.stackBufs {
		switch {
		case s == nil:
		case stackRef(i) < firstRef:
			return fmt.Errorf("number %d, below firstRef, names a buffer", i)
		case s.ref != stackRef(i):
			return fmt.Errorf("number %d names the buffer of number %d", i, s.ref)
		case !s.own && held[s] && s.refs != refs[stackRef(i)]:
			return fmt.Errorf("copy %d counts %d threads, %d share it", i, s.refs, refs[stackRef(i)])
		}
	}
	for _, s := range w.stacks.m {
		if !s.inTab || w.stackBufs[s.ref] != s {
			return fmt.Errorf("the table's copy %d is not marked or not numbered", s.ref)
		}
		held[s] = true
	}
	for _, s := range w.freeStacks {
		if held[s] || w.stackBufs[s.ref] != s {
			return fmt.Errorf("free buffer %d is held or not numbered", s.ref)
		}
	}
	return nil
}

// SharedStacks returns how many copies w's table holds.
func SharedStacks(w *Writer) int { return len(w.stacks.m) }
