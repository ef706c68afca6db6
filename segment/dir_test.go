package segment_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/runlock"
	"github.com/gotachyon/profiler/segment"
)

// runInDir writes a run of gens seconds in one-second segments into dir,
// starting at start, and returns its Writer and the paths it finalized.
func runInDir(t *testing.T, dir string, start uint64, gens int, opts segment.Options) (*segment.Writer, []string) {
	t.Helper()
	var paths []string
	opts.Dir, opts.StartTime, opts.Period, opts.Interval = dir, start, time.Second, segStep
	prev := opts.Closed
	opts.Closed = func(path string, last bool) {
		paths = append(paths, path)
		if prev != nil {
			prev(path, last)
		}
	}
	s, err := segment.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	driveFrom(t, segSink(s), start, gens)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return s, paths
}

// segmentsIn lists the finalized segments in dir.
func segmentsIn(t *testing.T, dir string) []string {
	t.Helper()
	have, err := filepath.Glob(filepath.Join(dir, "*"+segment.Ext))
	if err != nil {
		t.Fatal(err)
	}
	return have
}

// TestSegmentBudgetRuns checks that the budget covers the segments of
// every run in the directory: three runs with KeepFiles 3 leave 3 files,
// the newest, and each run's names say which run wrote them.
func TestSegmentBudgetRuns(t *testing.T) {
	dir := t.TempDir()
	var all []string
	runs := map[string]bool{}
	for i := range 3 {
		s, paths := runInDir(t, dir, segStart+uint64(i)*20e6, 5, segment.Options{KeepFiles: 3})
		all = append(all, paths...)
		runs[s.Run()] = true
		for _, p := range paths {
			if f, ok := segment.ParseName(filepath.Base(p)); !ok || f.Run != s.Run() {
				t.Errorf("%s: parsed %+v, %v; want run %s", p, f, ok, s.Run())
			}
		}
	}
	if len(runs) != 3 {
		t.Errorf("run ids %v, want three", runs)
	}
	if have := segmentsIn(t, dir); !slices.Equal(have, all[len(all)-3:]) {
		t.Errorf("kept %v, want the newest 3 of %v", have, all)
	}
}

// TestSegmentBudgetIdentity checks that the budget deletes only the files
// the Writer wrote: an operator's file put at one of this run's
// segment names (even a copy of the segment), and a file at another run's
// name that is not a Tachyon file, are kept and not counted; another
// run's segment is deleted.
func TestSegmentBudgetIdentity(t *testing.T) {
	dir := t.TempDir()
	_, older := runInDir(t, dir, segStart-100e6, 2, segment.Options{})
	notOurs := filepath.Join(dir, segment.Name("profile", "0badc0de", segStart-200e6, 1))
	if err := os.WriteFile(notOurs, []byte("not a profile"), 0o644); err != nil {
		t.Fatal(err)
	}
	var replaced string
	replace := func(path string, last bool) {
		if replaced != "" {
			return
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		replaced = path
	}
	s, paths := runInDir(t, dir, segStart, 5, segment.Options{KeepFiles: 2, Closed: replace})
	want := []string{notOurs, replaced, paths[len(paths)-2], paths[len(paths)-1]}
	slices.Sort(want)
	if have := segmentsIn(t, dir); !slices.Equal(have, want) {
		t.Errorf("kept %v, want %v (other run's %v)", have, want, older)
	}
	if st := s.Stats(); st.Deleted != len(older)+len(paths)-3 {
		t.Errorf("deleted %d, want %d", st.Deleted, len(older)+len(paths)-3)
	}
}

// TestSegmentStale checks that a Writer removes the open files that
// dead processes left with its prefix, and keeps those a live process
// holds, the young ones, those whose bytes are not a Writer's, and every
// other name.
func TestSegmentStale(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-2 * runlock.MinAge)
	mk := func(name string, hold bool) string {
		p := filepath.Join(dir, name)
		f, err := runlock.Create(p, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		if hold {
			t.Cleanup(func() { f.Close() })
		} else {
			f.Close()
		}
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
		return p
	}
	seg := segment.Name("profile", "12345678", segStart-10e6, 3)
	stale := []string{
		mk(seg+segment.PartExt, false),
		mk("profile-next-42"+segment.PartExt, false),
		mk(segment.Name("profile", "", segStart-20e6, 1)+segment.PartExt, false),
	}
	kept := []string{
		mk(segment.Name("profile", "87654321", segStart-10e6, 3)+segment.PartExt, true), // a live run's
		mk("profile-notes"+segment.PartExt, false),
		mk(segment.Name("other", "12345678", segStart-10e6, 3)+segment.PartExt, false),
		mk(seg, false), // a finalized segment is not an open file
	}
	// Named as a dead run's open file, but holding the user's own bytes.
	users := mk(segment.Name("profile", "deadbeef", segStart-30e6, 3)+segment.PartExt, false)
	if err := os.WriteFile(users, []byte("the user's notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(users, old, old); err != nil {
		t.Fatal(err)
	}
	kept = append(kept, users)
	young := filepath.Join(dir, "profile-next-7"+segment.PartExt)
	if err := os.WriteFile(young, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	kept = append(kept, young)
	s, _ := runInDir(t, dir, segStart, 2, segment.Options{})
	for _, p := range stale {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s: not removed (%v)", filepath.Base(p), err)
		}
	}
	for _, p := range kept {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s: %v", filepath.Base(p), err)
		}
	}
	if st := s.Stats(); st.Stale != len(stale) {
		t.Errorf("stale %d, want %d", st.Stale, len(stale))
	}
}

// TestSegmentNames checks that names with and without a run id parse
// back, sort by start time, and that other names do not parse.
func TestSegmentNames(t *testing.T) {
	start := uint64(time.Date(2026, 11, 23, 4, 50, 0, 123_456_000, time.UTC).UnixMicro())
	with := segment.Name("my-app", "0a1b2c3d", start, 12)
	if want := "my-app-20261123T045000.123Z-0a1b2c3d-000012.tachyon"; with != want {
		t.Errorf("got %q, want %q", with, want)
	}
	for _, tc := range []struct {
		name string
		run  string
	}{{with, "0a1b2c3d"}, {segment.Name("my-app", "", start, 12), ""}} {
		f, ok := segment.ParseName(tc.name)
		if !ok || f.Prefix != "my-app" || f.Run != tc.run || f.Seq != 12 || !f.Start.Equal(time.UnixMilli(int64(start/1000))) {
			t.Errorf("%s: %+v, %v", tc.name, f, ok)
		}
	}
	later := segment.Name("my-app", "00000000", start+1000, 1)
	if !(with < later && segment.Name("my-app", "", start, 12) < later) {
		t.Errorf("%s does not sort after %s", later, with)
	}
	for _, bad := range []string{"x.tachyon", with + segment.PartExt, "my-app-20261123T045000.123Z-0A1B2C3D-000012.tachyon", "-20261123T045000.123Z-000012.tachyon"} {
		if f, ok := segment.ParseName(bad); ok {
			t.Errorf("%s parsed: %+v", bad, f)
		}
	}
}
