package merge_test

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/merge"
	"github.com/gotachyon/profiler/segment"
)

// names returns the paths in dir of segments of run from start, seqs
// from..to.
func names(dir, run string, start time.Time, from, to int) []string {
	var out []string
	for seq := from; seq <= to; seq++ {
		ts := uint64(start.Add(time.Duration(seq) * time.Second).UnixMicro())
		out = append(out, filepath.Join(dir, segment.Name("profile", run, ts, seq)))
	}
	return out
}

// TestRuns checks that Runs tells runs apart by the id in the names, and
// for names without one by their sequence numbers starting again, and
// leaves other files out.
func TestRuns(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	a := names("d", "aaaaaaaa", t0, 4, 6) // its first files deleted by a budget
	b := names("d", "bbbbbbbb", t0.Add(time.Minute), 1, 2)
	old1 := names("d", "", t0.Add(-time.Hour), 2, 3)
	old2 := names("d", "", t0.Add(-time.Hour+time.Minute), 1, 2)
	paths := slices.Concat(old1, old2, a, []string{"d/notes.tachyon"}, b)
	runs := merge.Runs(paths)
	want := []merge.Run{{ID: "old1", Files: old1}, {ID: "old2", Files: old2}, {ID: "aaaaaaaa", Files: a}, {ID: "bbbbbbbb", Files: b}}
	if len(runs) != len(want) {
		t.Fatalf("runs %+v", runs)
	}
	for i, r := range runs {
		if r.ID != want[i].ID || !slices.Equal(r.Files, want[i].Files) {
			t.Errorf("run %d: %+v, want %+v", i, r, want[i])
		}
	}
}

// TestSelectRuns checks each selection, and that the default refuses the
// segments of several runs, naming them.
func TestSelectRuns(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	a := names("d", "aaaa1111", t0, 1, 3)
	b := names("d", "aaaa2222", t0.Add(time.Minute), 1, 2)
	other := "d/x.tachyon"
	paths := slices.Concat(a, b, []string{other})
	_, err := merge.SelectRuns(paths, "")
	if !errors.Is(err, merge.ErrRuns) || !strings.Contains(err.Error(), "run aaaa1111 (3 files") || !strings.Contains(err.Error(), "run aaaa2222 (2 files") {
		t.Errorf("default: %v", err)
	}
	for _, tc := range []struct {
		sel  string
		want []string
	}{
		{"all", paths},
		{"latest", append(slices.Clone(b), other)},
		{"aaaa1", append(slices.Clone(a), other)},
		{"aaaa2222", append(slices.Clone(b), other)},
	} {
		got, err := merge.SelectRuns(paths, tc.sel)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("--runs %s: %v, %v; want %v", tc.sel, got, err, tc.want)
		}
	}
	for _, sel := range []string{"aaaa", "bbbb"} {
		if _, err := merge.SelectRuns(paths, sel); !errors.Is(err, merge.ErrRuns) {
			t.Errorf("--runs %s: %v", sel, err)
		}
	}
	if got, err := merge.SelectRuns(a, ""); err != nil || !slices.Equal(got, a) {
		t.Errorf("one run: %v, %v", got, err)
	}
}
