package busiest

import (
	"cmp"
	"container/heap"
	"errors"

	"github.com/gotachyon/profiler/reader"
)

// Key identifies a thread.
type Key struct {
	ID     uint64
	Interp uint32
}

// Rank orders threads from busiest.
type Rank uint8

// The ranks.
const (
	BySamples Rank = iota // most samples
	ByOnCPU               // most on-CPU samples, then most samples
)

// ErrTooMany is returned by a pass of Read that keeps every thread's
// detail when that detail outgrows what one reading keeps.
var ErrTooMany = errors.New("busiest: more detail than one reading keeps")

// Read runs pass over f. When f's header declares at most limit threads it
// first runs pass(nil, 0), which keeps every thread's detail (the reader
// refuses a file of more threads than its header counts) and may give up
// with ErrTooMany. Otherwise, or then, it finds the n busiest threads by
// rank and runs pass(keep, threads) with them and f's thread count: a
// second reading, whose memory grows with n, not with the threads.
func Read[T any](f *reader.File, limit, n int, rank Rank, pass func(keep map[Key]bool, threads int) (T, error)) (T, error) {
	if int(f.Header.ThreadCount) <= limit {
		v, err := pass(nil, 0)
		if !errors.Is(err, ErrTooMany) {
			return v, err
		}
	}
	keep, threads, err := Threads(f, n, rank)
	if err != nil {
		var zero T
		return zero, err
	}
	return pass(keep, threads)
}

// Threads counts f's samples per thread in one pass and returns the n
// busiest by rank (ties: lower id, then interpreter) and the number of
// threads f has. Its memory is some 60 bytes per thread, for the pass,
// and it reads runs (reader.Samples.NextRun): a count per record, not
// per sample.
func Threads(f *reader.File, n int, rank Rank) (keep map[Key]bool, threads int, err error) {
	counts := make(map[Key]count)
	it := f.Samples()
	defer it.Close()
	for it.NextRun() {
		s, r := it.Sample(), it.Run()
		k := Key{s.ThreadID, s.InterpreterID}
		c := counts[k]
		c.n += r.Count
		if rank == ByOnCPU && s.Status.OnCPU() {
			c.onCPU += r.Count
		}
		counts[k] = c
	}
	if err := it.Err(); err != nil {
		return nil, 0, err
	}
	// The n best in a heap whose root is the worst of them: memory grows
	// with n, not with the threads.
	better := func(a, b kc) bool {
		return cmp.Or(cmp.Compare(b.c.onCPU, a.c.onCPU), cmp.Compare(b.c.n, a.c.n),
			cmp.Compare(a.k.ID, b.k.ID), cmp.Compare(a.k.Interp, b.k.Interp)) < 0
	}
	h := &worstFirst{better: better}
	for k, c := range counts {
		e := kc{k, c}
		switch {
		case len(h.s) < n:
			heap.Push(h, e)
		case n > 0 && better(e, h.s[0]):
			h.s[0] = e
			heap.Fix(h, 0)
		}
	}
	threads = len(counts)
	keep = make(map[Key]bool, len(h.s))
	for _, e := range h.s {
		keep[e.k] = true
	}
	return keep, threads, nil
}

// count is a thread's samples, and those on a CPU.
type count struct{ n, onCPU uint64 }

// kc is a thread and its count.
type kc struct {
	k Key
	c count
}

// worstFirst is a heap of threads whose root is the least busy.
type worstFirst struct {
	s      []kc
	better func(a, b kc) bool
}

func (h *worstFirst) Len() int           { return len(h.s) }
func (h *worstFirst) Less(i, j int) bool { return h.better(h.s[j], h.s[i]) }
func (h *worstFirst) Swap(i, j int)      { h.s[i], h.s[j] = h.s[j], h.s[i] }
func (h *worstFirst) Push(x any)         { h.s = append(h.s, x.(kc)) }
func (h *worstFirst) Pop() any {
	e := h.s[len(h.s)-1]
	h.s = h.s[:len(h.s)-1]
	return e
}
