package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gotachyon/profiler/segment"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// threeRuns writes into one directory the segments of three runs, one
// after the other, whose goroutines have the same ids (as every process's
// do), and returns the directory.
func threeRuns(t *testing.T) string {
	t.Helper()
	return writeRuns(t, 3, 60e6)
}

// writeRuns writes into one directory the segments of n runs, each
// starting apart µs after the one before, 3 s long, whose goroutines have
// the same ids (as every process's do), and returns the directory.
func writeRuns(t *testing.T, n int, apart uint64) string {
	t.Helper()
	dir := t.TempDir()
	start := uint64(time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC).UnixMicro())
	for run := range n {
		t0 := start + uint64(run)*apart
		s, err := segment.New(segment.Options{Dir: dir, StartTime: t0, Period: time.Second, Interval: 10_000})
		if err != nil {
			t.Fatal(err)
		}
		fr := s.Frame(tachyon.Frame{File: "main.go", Func: fmt.Sprintf("main.run%d", run), Line: 1})
		for g := range uint64(4) {
			h := s.Thread(g+1, 0)
			for tick := range uint64(300) {
				if err := h.Write(t0+tick*10_000, 0, []uint32{fr}); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestMergeRuns checks that merge and the reading commands refuse to fuse
// the segments of several runs unless told, naming the runs, and that
// --runs all and --runs latest merge what they say.
func TestMergeRuns(t *testing.T) {
	dir := threeRuns(t)
	out := filepath.Join(t.TempDir(), "out.bin")
	code, stdout, errs := runCLI("merge", "-o", out, dir)
	if code == exitOK || strings.Count(errs, "run ") < 3 {
		t.Fatalf("merge of three runs: exit %d, %q %q", code, stdout, errs)
	}
	if code, _, errs := runCLI("collapsed", dir); code == exitOK || !strings.Contains(errs, "--runs") {
		t.Errorf("collapsed of three runs: exit %d, %q", code, errs)
	}
	code, stdout, errs = runCLI("merge", "--runs", "all", "-o", out, dir)
	if code != exitOK || !strings.Contains(stdout, "3600 samples of 12 threads") {
		t.Errorf("merge --runs all: exit %d, %q %q", code, stdout, errs)
	}
	code, stdout, errs = runCLI("merge", "--runs", "latest", "-o", out, dir)
	if code != exitOK || !strings.Contains(stdout, "1200 samples of 4 threads") {
		t.Fatalf("merge --runs latest: exit %d, %q %q", code, stdout, errs)
	}
	if _, got, _ := runCLI("collapsed", out); strings.Contains(got, "run0") || !strings.Contains(got, "main.run2") {
		t.Errorf("the latest run's profile:\n%s", got)
	}
	// The reading commands pick runs with the same flag.
	for _, args := range [][]string{{"collapsed", "--runs", "latest", dir}, {"info", "--runs", "latest", dir}} {
		code, got, errs := runCLI(args...)
		if code != exitOK || !strings.Contains(got, "run2") || strings.Contains(got, "run0") {
			t.Errorf("tachyon %q: exit %d, stderr %q, stdout:\n%s", args, code, errs, got)
		}
	}
}

// TestMergeRunsAtOnce checks that --runs all merges the segments of two
// runs that ran at the same time, as two processes sharing a directory
// do, and keeps their goroutines apart: goroutine 1 of one process is not
// goroutine 1 of the other.
func TestMergeRunsAtOnce(t *testing.T) {
	dir := writeRuns(t, 2, 500_000) // the second starts 0.5 s after the first
	out := filepath.Join(t.TempDir(), "out.bin")
	code, stdout, errs := runCLI("merge", "--runs", "all", "-o", out, dir)
	if code != exitOK || !strings.Contains(stdout, "2400 samples of 8 threads") {
		t.Errorf("merge --runs all of two runs at once: exit %d, %q %q", code, stdout, errs)
	}
	code, got, errs := runCLI("info", "--runs", "all", dir)
	if code != exitOK || !strings.Contains(got, "threads:       8 distinct") {
		t.Errorf("info --runs all of two runs at once: exit %d, stderr %q, stdout:\n%s", code, errs, got)
	}
	code, got, errs = runCLI("leaks", "--runs", "all", dir)
	if code != exitOK || !strings.Contains(got, "; 8 goroutines sampled") {
		t.Errorf("leaks --runs all of two runs at once: exit %d, stderr %q, stdout:\n%s", code, errs, got)
	}
}

// TestRunsDirMixed checks that a directory of segments that also holds
// another program's profile is refused, naming that file, rather than read
// with the segments: no --runs leaves it out, and its goroutine 1 would be
// the run's goroutine 1.
func TestRunsDirMixed(t *testing.T) {
	dir := writeRuns(t, 1, 0)
	other := filepath.Join(dir, "zz-other.tachyon")
	start := uint64(time.Date(2026, 11, 23, 11, 0, 0, 0, time.UTC).UnixMicro()) // after the run
	w, err := writer.Create(other, writer.Options{StartTime: start, Interval: 10_000})
	if err != nil {
		t.Fatal(err)
	}
	fr := w.Frame(tachyon.Frame{File: "other.go", Func: "main.other", Line: 1})
	for g := range uint64(4) {
		if err := w.WriteStack(g+1, 0, start, 0, []uint32{fr}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"info", dir}, {"info", "--runs", "latest", dir}, {"collapsed", dir}} {
		if code, _, errs := runCLI(args...); code == exitOK || !strings.Contains(errs, "zz-other.tachyon") {
			t.Errorf("tachyon %q: exit %d, stderr %q; want the other file named", args, code, errs)
		}
	}
	// Named, it is read with the segments, as any file is.
	segs, _ := filepath.Glob(filepath.Join(dir, "profile-*.tachyon"))
	if code, _, errs := runCLI(append([]string{"collapsed"}, append(segs, other)...)...); code != exitOK {
		t.Errorf("collapsed of the files named: exit %d, %q", code, errs)
	}
}
