package reader_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/hostile"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// TestNextRun checks that NextRun's runs, and NextEvenRun's, expanded,
// are exactly Next's samples (NextEvenRun's to every timestamp), with the same end and the same error, over every vector (valid
// and corrupt) and a file whose REPEAT records change status mid-record.
func TestNextRun(t *testing.T) {
	dir, m := loadManifest(t)
	var paths []string
	for _, v := range m.Valid {
		paths = append(paths, filepath.Join(dir, v.Name+".bin"), filepath.Join(dir, v.Name+".zstd.bin"))
	}
	for _, c := range m.Corrupt {
		paths = append(paths, filepath.Join(dir, c.File))
	}
	mixed := mixedRepeats(t)
	paths = append(paths, mixed)
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			f, err := reader.Open(p)
			if err != nil {
				return // rejected before the samples: nothing to iterate
			}
			defer f.Close()
			compareRuns(t, f, (*reader.Samples).NextEvenRun)
			runs := compareRuns(t, f, (*reader.Samples).NextRun)
			// Thread 1: its first sample, a record of 7 in 4 runs, a record
			// of 3; thread 2: its first sample, 500 in one run.
			if p == mixed && runs != 8 {
				t.Errorf("%d runs, want 8", runs)
			}
		})
	}
}

// flat is a sample with its stack copied.
type flat struct {
	reader.Sample
	stack []uint32
}

// compareRuns compares f's runs, read by next (NextRun or NextEvenRun),
// with its samples and returns the number of runs. An even run's samples
// are checked at every timestamp.
func compareRuns(t *testing.T, f *reader.File, next func(*reader.Samples) bool) int {
	var want []flat
	it := f.Samples()
	for it.Next() {
		s := *it.Sample()
		if r := it.Run(); r.Count != 1 || r.Last != s.Timestamp {
			t.Fatalf("Run after Next = %+v, want one sample at %d", r, s.Timestamp)
		}
		want = append(want, flat{s, slices.Clone(s.Stack)})
	}
	wantErr, wantStats := it.Err(), it.Stats()

	runs := f.Samples()
	defer runs.Close()
	i, n := 0, 0
	for ; next(runs); n++ {
		s, r := runs.Sample(), runs.Run()
		for k := range r.Count {
			if i >= len(want) {
				t.Fatalf("runs hold more than Next's %d samples", len(want))
			}
			w := want[i]
			switch {
			case w.ThreadID != s.ThreadID || w.Status != s.Status || !slices.Equal(w.stack, s.Stack):
				t.Fatalf("sample %d (run's %d of %d): thread %d status %v stack %v, want thread %d status %v stack %v",
					i, k, r.Count, s.ThreadID, s.Status, s.Stack, w.ThreadID, w.Status, w.stack)
			case k == 0 && w.Timestamp != s.Timestamp, k == r.Count-1 && w.Timestamp != r.Last:
				t.Fatalf("sample %d: timestamp %d, run from %d to %d", i, w.Timestamp, s.Timestamp, r.Last)
			case r.Step != 0 && w.Timestamp != s.Timestamp+k*r.Step:
				t.Fatalf("sample %d: timestamp %d, even run from %d every %d", i, w.Timestamp, s.Timestamp, r.Step)
			}
			i++
		}
	}
	if i != len(want) {
		t.Errorf("runs hold %d samples, Next %d", i, len(want))
	}
	if got := runs.Err(); (got == nil) != (wantErr == nil) || got != nil && got.Error() != wantErr.Error() {
		t.Errorf("NextRun ends with %v, Next with %v", got, wantErr)
	}
	if got := runs.Stats(); got != wantStats {
		t.Errorf("Stats after runs %+v, after Next %+v", got, wantStats)
	}
	return n
}

// mixedRepeats writes a file in which one thread's REPEAT records change
// status several times, beside another thread's, and returns its path.
func mixedRepeats(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "mixed.tachyon")
	w, err := writer.Create(path, writer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	fr := w.Frame(tachyon.Frame{Func: "main.f", File: "f.go", Line: 1})
	a, b := w.Thread(1, 0), w.Thread(2, 0)
	run, blocked := tachyon.StatusOf(tachyon.Running, false), tachyon.StatusOf(tachyon.Blocked, false)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(a.Write(10, run, []uint32{fr}))
	must(b.Write(10, blocked, []uint32{fr}))
	for i, st := range []tachyon.Status{run, run, blocked, blocked, blocked, run, blocked} {
		must(a.Repeat(uint64(20+10*i), st))
	}
	must(b.RepeatEvery(20, 10, 500, blocked))
	a.Flush()
	must(a.RepeatEvery(100, 10, 3, run))
	must(w.Close())
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestNextRunBombs checks that NextRun, which counts identical pairs in
// bulk, stops a decompression bomb at the same sample as Next, with the
// same error: the bound is checked at the same samples.
func TestNextRunBombs(t *testing.T) {
	for name, b := range map[string][]byte{"bomb": hostile.Bomb(100_000_000), "maxbomb": hostile.MaxBomb()} {
		t.Run(name, func(t *testing.T) {
			f, err := reader.NewFileBytes(b)
			if err != nil {
				t.Fatal(err)
			}
			it := f.Samples()
			for it.Next() {
			}
			wantErr, wantStats := it.Err(), it.Stats()
			runs := f.Samples()
			var n uint64
			for runs.NextRun() {
				n += runs.Run().Count
			}
			if err := runs.Err(); err == nil || wantErr == nil || err.Error() != wantErr.Error() {
				t.Errorf("NextRun ends with %v, Next with %v", err, wantErr)
			}
			if got := runs.Stats(); got != wantStats || n != wantStats.Samples {
				t.Errorf("runs hold %d samples, Stats %+v; Next: %+v", n, got, wantStats)
			}
		})
	}
}
