// Package busiest finds a file's busiest threads, for the exports that keep
// detail (labels, timelines) for a bounded number of threads and fold the
// others: a file of a million goroutines must not cost a million records.
package busiest

import (
	"cmp"
	"slices"

	"github.com/gotachyon/profiler/reader"
)

// Key identifies a thread.
type Key struct {
	ID     uint64
	Interp uint32
}

// Threads counts f's samples per thread in one pass and returns the n
// busiest (most samples; ties: lower id, then interpreter) and the number
// of threads f has. Its memory is some 50 bytes per thread, for the pass.
func Threads(f *reader.File, n int) (keep map[Key]bool, threads int, err error) {
	counts := make(map[Key]uint64)
	it := f.Samples()
	defer it.Close()
	for it.Next() {
		s := it.Sample()
		counts[Key{s.ThreadID, s.InterpreterID}]++
	}
	if err := it.Err(); err != nil {
		return nil, 0, err
	}
	type kc struct {
		k Key
		n uint64
	}
	all := make([]kc, 0, len(counts))
	for k, c := range counts {
		all = append(all, kc{k, c})
	}
	threads = len(all)
	clear(counts) // before the sort's memory
	slices.SortFunc(all, func(a, b kc) int {
		return cmp.Or(cmp.Compare(b.n, a.n), cmp.Compare(a.k.ID, b.k.ID), cmp.Compare(a.k.Interp, b.k.Interp))
	})
	keep = make(map[Key]bool, min(n, len(all)))
	for _, e := range all[:min(n, len(all))] {
		keep[e.k] = true
	}
	return keep, threads, nil
}
