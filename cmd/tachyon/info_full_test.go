// Filling files past one merge's 2^32-1 samples takes seconds, and over a
// minute under the race detector: this test runs without it (CI's second
// pass), as writer's TestFileFull does.

//go:build !race

package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// TestInfoPastOneMerge: files that together hold more samples than one
// Tachyon file can (a day of segments) cannot be merged for the tally,
// but info still prints each file's facts and their totals, counted file
// by file, with threads and frames that two files share counted once;
// then it fails, saying why the tally is missing.
func TestInfoPastOneMerge(t *testing.T) {
	dir := t.TempDir()
	const ticks = 360_000_000
	// Threads 1-6 in the first file, 4-9 in the second: 9 distinct. The
	// second file's threads also have a frame of their own.
	for k, file := range []struct {
		first uint64
		start uint64
		funcs []string
	}{{1, 1_000_000, []string{"a"}}, {4, 5_000_000_000, []string{"a", "b"}}} {
		path := filepath.Join(dir, fmt.Sprintf("seg-%d.tachyon", k))
		w, err := writer.Create(path, writer.Options{Compression: tachyon.CompressionZstd, StartTime: file.start, Interval: 10_000})
		if err != nil {
			t.Fatal(err)
		}
		var stack []uint32
		for i, fn := range file.funcs {
			stack = append(stack, w.Frame(tachyon.Frame{File: fn + ".go", Func: fn, Line: int32(i + 1)}))
		}
		for id := file.first; id < file.first+6; id++ {
			th := w.NewThread(id, 0)
			if err := th.Write(file.start, 0, stack); err != nil {
				t.Fatal(err)
			}
			if err := th.RepeatEvery(file.start+10_000, 10_000, ticks-1, 0); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, stderr := runCLI("info", dir)
	if code == 0 {
		t.Fatalf("info of files past one merge: exit 0\n%s", stdout)
	}
	for _, want := range []string{
		"total:         2 files (" + dir + ")",
		fmt.Sprintf("samples:       %d\n", int64(12*ticks)),
		"threads:       9 distinct\n",
		"frames:        2 distinct\n",
		fmt.Sprintf("duration:      %s ", time.Duration(5_000_000_000+10_000*(ticks-1)-1_000_000)*time.Microsecond),
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("info: no %q in\n%s", want, stdout)
		}
	}
	if strings.Count(stdout, "file:          ") != 2 {
		t.Errorf("info: not each file's facts\n%s", stdout)
	}
	if !strings.Contains(stderr, "no states, goroutine groups or top functions over all the files") || !strings.Contains(stderr, "name fewer files at once") {
		t.Errorf("info's error: %s", stderr)
	}
}
