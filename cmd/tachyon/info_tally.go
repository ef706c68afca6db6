package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/gotachyon/profiler/internal/busiest"
	"github.com/gotachyon/profiler/internal/gogroup"
	"github.com/gotachyon/profiler/internal/labelframes"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
)

// tally is what info reports beyond the format facts, gathered in the same
// pass over the samples: the share of each state, the goroutines grouped
// by their start function, and the functions samples were in, on and off
// the CPU. The groups and their names are the HTML report's
// (internal/gogroup). The runtime's system goroutines (samples under
// tachyon.RuntimeRoot) are one group, "runtime", after the program's, and
// stay out of the top lists, unless runtime is set: then they count as the
// program's own, grouped by their start under the root. Label frames
// (tachyon.LabelOf) are no code: they change no group and no leaf, and
// count the samples of each label by state.
type tally struct {
	runtime   bool // --runtime: the runtime's goroutines in full
	states    [tachyon.NumStates]uint64
	onCPU     []uint64                      // samples by leaf frame index, on a CPU
	offCPU    []uint64                      // samples by leaf frame index (under any synthetic innermost frame), off it
	rtSamples uint64                        // samples under tachyon.RuntimeRoot
	roots     map[busiest.Key]gogroup.Start // each goroutine's first stack's
	groups    *gogroup.Rule
	names     *gogroup.Names
	synthetic []bool // frame index is a synthetic frame (tachyon.Synthetic)
	rtRoot    []bool // frame index is tachyon.RuntimeRoot
	labels    *labelframes.Frames
	byLabel   map[uint32]*[tachyon.NumStates]uint64 // samples by label frame index, by state
}

func newTally(f *reader.File, runtime bool) *tally {
	n := len(f.FrameRefs())
	g := gogroup.Of(f)
	t := &tally{runtime: runtime, onCPU: make([]uint64, n), offCPU: make([]uint64, n), roots: map[busiest.Key]gogroup.Start{},
		groups: g, names: gogroup.NewNames(g),
		synthetic: make([]bool, n), rtRoot: make([]bool, n), labels: labelframes.Of(f), byLabel: map[uint32]*[tachyon.NumStates]uint64{}}
	for i := range n {
		fr := f.Frame(uint32(i))
		t.synthetic[i], t.rtRoot[i] = tachyon.Synthetic(fr), tachyon.IsRuntimeRoot(fr)
	}
	return t
}

// add counts n samples of s's thread, status and stack.
func (t *tally) add(s *reader.Sample, n uint64) {
	st := s.Status.State()
	t.states[st] += n
	d := t.labels.Code(s.Stack)
	for _, fi := range s.Stack[d:] {
		c := t.byLabel[fi]
		if c == nil {
			c = new([tachyon.NumStates]uint64)
			t.byLabel[fi] = c
		}
		c[st] += n
	}
	if d == 0 {
		return
	}
	rt := t.rtRoot[s.Stack[d-1]]
	if start, ok := t.groups.StartOf(s.Stack[:d]); ok {
		t.names.Add(start, n)
		k := busiest.Key{ID: s.ThreadID, Interp: s.InterpreterID}
		if _, ok := t.roots[k]; !ok {
			t.roots[k] = start
		}
	}
	if rt {
		t.rtSamples += n
		if !t.runtime {
			return
		}
	}
	if st.OnCPU() {
		t.onCPU[s.Stack[0]] += n
		return
	}
	leaf := s.Stack[0]
	if t.synthetic[leaf] && d > 1 {
		leaf = s.Stack[1]
	}
	t.offCPU[leaf] += n
}

// print writes the tally's lines after info's format facts.
func (t *tally) print(w io.Writer, f *reader.File) {
	var total, onCPU uint64
	for s, n := range t.states {
		total += n
		if tachyon.State(s).OnCPU() {
			onCPU += n
		}
	}
	mode := "wall (samples off the CPU too)"
	if tachyon.InferMode(onCPU, total) == tachyon.ModeCPU {
		mode = "cpu (every sample on a CPU)"
	}
	fmt.Fprintf(w, "mode:          %s\n", mode)
	fmt.Fprintf(w, "states:       ")
	for s := range tachyon.State(tachyon.NumStates) {
		fmt.Fprintf(w, " %s=%s", s, share(t.states[s], total))
	}
	fmt.Fprintln(w)
	t.printGroups(w)
	printTop(w, f, "top on CPU:", t.onCPU)
	printTop(w, f, "top off CPU:", t.offCPU)
	if len(t.byLabel) > 0 {
		printLabels(w, f, t.byLabel)
	}
}

// printGroups writes the goroutine count and the largest groups of
// goroutines by start function, then the runtime group.
func (t *tally) printGroups(w io.Writer) {
	byStart := map[int32]int{}
	rt := 0 // goroutines in the runtime group
	for _, r := range t.roots {
		if r.Runtime && !t.runtime {
			rt++
			continue
		}
		byStart[r.Func]++
	}
	type group struct {
		fn string
		n  int
	}
	gs := make([]group, 0, len(byStart))
	for fn, n := range byStart {
		gs = append(gs, group{t.names.Name(fn), n})
	}
	slices.SortFunc(gs, func(a, b group) int {
		return cmp.Or(cmp.Compare(b.n, a.n), strings.Compare(a.fn, b.fn))
	})
	groups := len(gs)
	if rt > 0 {
		groups++
	}
	fmt.Fprintf(w, "goroutines:    %d with samples, in %d groups by start function\n", len(t.roots), groups)
	for _, g := range gs[:min(len(gs), 5)] {
		fmt.Fprintf(w, "  %8d  %s\n", g.n, g.fn)
	}
	if rt > 0 {
		fmt.Fprintf(w, "  %8d  runtime (the runtime's system goroutines: %d samples, left out of the top lists; --runtime counts them)\n", rt, t.rtSamples)
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
