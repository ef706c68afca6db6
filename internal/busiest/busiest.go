// Package busiest finds a file's busiest threads, for the exports that keep
// detail (labels, timelines) for a bounded number of threads and fold the
// others: a file of a million goroutines must not cost a million records.
package busiest

import (
	"cmp"
	"slices"

	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
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

// Threads counts f's samples per thread in one pass and returns the n
// busiest by rank (ties: lower id, then interpreter) and the number of
// threads f has. Its memory is some 60 bytes per thread, for the pass.
func Threads(f *reader.File, n int, rank Rank) (keep map[Key]bool, threads int, err error) {
	type count struct{ n, onCPU uint64 }
	counts := make(map[Key]count)
	it := f.Samples()
	defer it.Close()
	for it.Next() {
		s := it.Sample()
		k := Key{s.ThreadID, s.InterpreterID}
		c := counts[k]
		c.n++
		if rank == ByOnCPU && s.Status&tachyon.StatusOnCPU != 0 {
			c.onCPU++
		}
		counts[k] = c
	}
	if err := it.Err(); err != nil {
		return nil, 0, err
	}
	type kc struct {
		k Key
		c count
	}
	all := make([]kc, 0, len(counts))
	for k, c := range counts {
		all = append(all, kc{k, c})
	}
	threads = len(all)
	clear(counts) // before the sort's memory
	slices.SortFunc(all, func(a, b kc) int {
		return cmp.Or(cmp.Compare(b.c.onCPU, a.c.onCPU), cmp.Compare(b.c.n, a.c.n),
			cmp.Compare(a.k.ID, b.k.ID), cmp.Compare(a.k.Interp, b.k.Interp))
	})
	keep = make(map[Key]bool, min(n, len(all)))
	for _, e := range all[:min(n, len(all))] {
		keep[e.k] = true
	}
	return keep, threads, nil
}
