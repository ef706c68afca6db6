package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/gotachyon/profiler/internal/busiest"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
)

// tally is what info reports beyond the format facts, gathered in the same
// pass over the samples: the share of each state, the goroutines grouped
// by their outermost function, and the functions samples were in, on and
// off the CPU.
type tally struct {
	states [tachyon.NumStates]uint64
	onCPU  []uint64 // samples by leaf frame index, on a CPU
	offCPU []uint64 // samples by leaf frame index (under any wait-reason frame), off it
	roots  map[busiest.Key]uint32
	wait   []bool // frame index is a wait-reason frame
}

func newTally(f *reader.File) *tally {
	n := len(f.FrameRefs())
	t := &tally{onCPU: make([]uint64, n), offCPU: make([]uint64, n), roots: map[busiest.Key]uint32{}, wait: make([]bool, n)}
	for i := range n {
		_, t.wait[i] = tachyon.WaitReason(f.Frame(uint32(i)))
	}
	return t
}

// add counts n samples of s's thread, status and stack.
func (t *tally) add(s *reader.Sample, n uint64) {
	st := s.Status.State()
	t.states[st] += n
	if len(s.Stack) == 0 {
		return
	}
	k := busiest.Key{ID: s.ThreadID, Interp: s.InterpreterID}
	if _, ok := t.roots[k]; !ok {
		t.roots[k] = s.Stack[len(s.Stack)-1]
	}
	if st.OnCPU() {
		t.onCPU[s.Stack[0]] += n
		return
	}
	leaf := s.Stack[0]
	if t.wait[leaf] && len(s.Stack) > 1 {
		leaf = s.Stack[1]
	}
	t.offCPU[leaf] += n
}

// print writes the tally's lines after info's format facts.
func (t *tally) print(w io.Writer, f *reader.File) {
	var total uint64
	for _, n := range t.states {
		total += n
	}
	mode := "wall (samples off the CPU too)"
	if tachyon.InferMode(t.states[tachyon.Running]+t.states[tachyon.Syscall], total) == tachyon.ModeCPU {
		mode = "cpu (every sample on a CPU)"
	}
	fmt.Fprintf(w, "mode:          %s\n", mode)
	fmt.Fprintf(w, "states:       ")
	for s := range tachyon.State(tachyon.NumStates) {
		fmt.Fprintf(w, " %s=%s", s, share(t.states[s], total))
	}
	fmt.Fprintln(w)
	t.printGroups(w, f)
	printTop(w, f, "top on CPU:", t.onCPU)
	printTop(w, f, "top off CPU:", t.offCPU)
}

// printGroups writes the goroutine count and the largest groups of
// goroutines by outermost function.
func (t *tally) printGroups(w io.Writer, f *reader.File) {
	byRoot := map[string]int{}
	for _, fr := range t.roots {
		byRoot[f.Frame(fr).Func]++
	}
	type group struct {
		fn string
		n  int
	}
	gs := make([]group, 0, len(byRoot))
	for fn, n := range byRoot {
		gs = append(gs, group{fn, n})
	}
	slices.SortFunc(gs, func(a, b group) int {
		return cmp.Or(cmp.Compare(b.n, a.n), strings.Compare(a.fn, b.fn))
	})
	fmt.Fprintf(w, "goroutines:    %d with samples, in %d groups by outermost function\n", len(t.roots), len(gs))
	for _, g := range gs[:min(len(gs), 5)] {
		fmt.Fprintf(w, "  %8d  %s\n", g.n, g.fn)
	}
}

// printTop writes the ten functions with the most samples in counts (by
// leaf frame), with their share of those samples.
func printTop(w io.Writer, f *reader.File, title string, counts []uint64) {
	byFunc := map[string]uint64{}
	var total uint64
	for i, n := range counts {
		if n > 0 {
			byFunc[f.Frame(uint32(i)).Func] += n
			total += n
		}
	}
	fns := make([]string, 0, len(byFunc))
	for fn := range byFunc {
		fns = append(fns, fn)
	}
	slices.SortFunc(fns, func(a, b string) int {
		return cmp.Or(cmp.Compare(byFunc[b], byFunc[a]), strings.Compare(a, b))
	})
	fmt.Fprintf(w, "%-14s %d samples\n", title, total)
	for _, fn := range fns[:min(len(fns), 10)] {
		fmt.Fprintf(w, "  %6s  %s\n", share(byFunc[fn], total), fn)
	}
}

// share formats n of total as a percentage.
func share(n, total uint64) string {
	if total == 0 {
		return "0%"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(total))
}
