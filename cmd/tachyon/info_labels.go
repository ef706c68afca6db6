package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
)

// maxLabelValues is how many values of each label key info lists.
const maxLabelValues = 10

// labelRow is one label's samples by state.
type labelRow struct {
	l      tachyon.Label
	states [tachyon.NumStates]uint64
	total  uint64
}

// printLabels writes info's "labels" section: for each label key, its
// values with the most samples first, each with its time on CPU,
// runnable, in a system call and blocked (the samples times the interval;
// samples if the file has no interval). byLabel counts samples by label
// frame index; a sample counts under each of its labels.
func printLabels(w io.Writer, f *reader.File, byLabel map[uint32]*[tachyon.NumStates]uint64) {
	rows := map[tachyon.Label]*labelRow{} // frames of one label are summed
	for fi, c := range byLabel {
		l, _ := tachyon.LabelOf(f.Frame(fi))
		r := rows[l]
		if r == nil {
			r = &labelRow{l: l}
			rows[l] = r
		}
		for st, n := range c {
			r.states[st] += n
			r.total += n
		}
	}
	byKey := map[string][]*labelRow{}
	for _, r := range rows {
		byKey[r.l.Key] = append(byKey[r.l.Key], r)
	}
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range byKey {
			if !yield(k) {
				return
			}
		}
	})
	unit, scale := "seconds", float64(f.Header.Interval)/1e6
	if f.Header.Interval == 0 {
		unit, scale = "samples", 1
	}
	fmt.Fprintf(w, "labels:        %d values of %d keys, %s by state (a sample counts under each of its labels)\n", len(rows), len(keys), unit)
	fmt.Fprintf(w, "  %10s %10s %10s %10s  %s\n", "on CPU", "runnable", "syscall", "blocked", "label")
	for _, k := range keys {
		rs := byKey[k]
		slices.SortFunc(rs, func(a, b *labelRow) int {
			return cmp.Or(cmp.Compare(b.total, a.total), strings.Compare(a.l.Value, b.l.Value))
		})
		for _, r := range rs[:min(len(rs), maxLabelValues)] {
			fmt.Fprintf(w, "  %10s %10s %10s %10s  %s\n", amount(r.states[tachyon.Running], scale), amount(r.states[tachyon.Runnable], scale),
				amount(r.states[tachyon.Syscall], scale), amount(r.states[tachyon.Blocked], scale), quoteLabel(r.l))
		}
		if more := len(rs) - maxLabelValues; more > 0 {
			fmt.Fprintf(w, "  %43s  %s: %d more values\n", "", k, more)
		}
	}
}

// amount formats n samples in the unit scale gives: seconds with three
// decimals, or a count.
func amount(n uint64, scale float64) string {
	if scale == 1 {
		return fmt.Sprint(n)
	}
	return fmt.Sprintf("%.3f", float64(n)*scale)
}

// quoteLabel returns "key=value", quoted as a Go string if it holds
// characters that would break the line (a value may hold anything).
func quoteLabel(l tachyon.Label) string {
	s := l.String()
	if strings.ContainsFunc(s, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		return fmt.Sprintf("%q", s)
	}
	return s
}
