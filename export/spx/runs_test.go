package spx

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// TestLoadKeepsRuns loads a wall profile of 100 parked goroutines with
// 100,000 samples each: the conversion holds a run per REPEAT record, not
// an entry per sample.
func TestLoadKeepsRuns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.bin")
	w, err := writer.Create(path, writer.Options{StartTime: 1, Interval: 10000, Compression: tachyon.CompressionZstd})
	if err != nil {
		t.Fatal(err)
	}
	f0 := w.Frame(tachyon.Frame{File: "p.go", Func: "main.parked", Line: 1})
	const threads, per = 100, 100000
	hs := make([]*writer.Thread, threads)
	for i := range hs {
		hs[i] = w.Thread(uint64(i+1), 0)
		hs[i].Write(10000, 0, []uint32{f0})
	}
	for done := 1; done < per; done += 400 {
		for _, h := range hs {
			h.RepeatEvery(uint64(done+1)*10000, 10000, min(400, per-done), 0)
			h.Flush()
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := reader.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := load(f, 0, nil, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	runs, samples := 0, 0
	for _, th := range p.threads {
		runs += len(th.runs)
		samples += int(th.n)
	}
	if samples != threads*per || runs != threads {
		t.Fatalf("%d samples in %d runs, want %d in %d", samples, runs, threads*per, threads)
	}
}

// TestWallProfile checks both layouts of a wall profile, whose parked
// goroutines are long runs, against its samples read one by one; its busy
// goroutines miss ticks (gaps inside runs) and change status mid-run.
func TestWallProfile(t *testing.T) {
	checkProfile(t, "wall", proftest.Wall(t, 40, 1500))
}

// TestSequentialLoadsRuns checks that the Sequential layout reads a wall
// profile run by run: its threads hold at most the file's runs.
func TestSequentialLoadsRuns(t *testing.T) {
	f := proftest.Wall(t, 100, 4000)
	p, err := load(f, 0, nil, true, 0)
	if err != nil {
		t.Fatal(err)
	}
	it := f.Samples()
	runs := 0
	for it.NextRun() {
		runs++
	}
	held, samples := 0, 0
	for _, th := range p.threads {
		held += len(th.runs)
		samples += int(th.n)
	}
	if samples != int(f.Header.SampleCount) || held > runs {
		t.Fatalf("%d samples in %d runs, want %d in at most %d", samples, held, f.Header.SampleCount, runs)
	}
}

// TestManyGoroutinesOneOrTwoPasses converts a wall profile of more than
// manyThreads goroutines with Top: in one pass holding every goroutine's
// runs, and, past maxOnePassRuns, in two (the busiest first); both write
// the same reports.
func TestManyGoroutinesOneOrTwoPasses(t *testing.T) {
	f := proftest.Wall(t, manyThreads+10, 30)
	convert := func() ([]Written, map[string][]byte) {
		dir := t.TempDir()
		ws, err := WriteDir(dir, f, Options{Top: 3, Host: "h"})
		if err != nil {
			t.Fatal(err)
		}
		files := map[string][]byte{}
		for _, w := range ws {
			b, err := os.ReadFile(filepath.Join(dir, w.Key+".txt.gz"))
			if err != nil {
				t.Fatal(err)
			}
			files[w.Key] = b
		}
		return ws, files
	}
	one, oneFiles := convert()
	defer func(n int) { maxOnePassRuns = n }(maxOnePassRuns)
	maxOnePassRuns = 100
	two, twoFiles := convert()
	if len(one) != 3 || !reflect.DeepEqual(one, two) || !reflect.DeepEqual(oneFiles, twoFiles) {
		t.Fatalf("one pass wrote %+v, two passes %+v", one, two)
	}
	if one[0].Goroutine != 1 && one[0].Goroutine != 2 {
		t.Errorf("busiest goroutine %d, want a busy one (1 or 2)", one[0].Goroutine)
	}
}

// TestLoadSameTimeOneRun: samples at one time (the hostile bomb's REPEAT
// record, whose deltas are 0) load as one run, not a run each: a small
// file of them took a run's memory per sample.
func TestLoadSameTimeOneRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.bin")
	w, err := writer.Create(path, writer.Options{StartTime: 1, Interval: 10000})
	if err != nil {
		t.Fatal(err)
	}
	h := w.Thread(1, 0)
	h.Write(10000, 0, []uint32{w.Frame(tachyon.Frame{File: "p.go", Func: "main.f", Line: 1})})
	h.RepeatEvery(10000, 0, 100_000, 0)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	p, err := load(proftest.Open(t, path), 0, nil, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.threads) != 1 || len(p.threads[0].runs) != 1 || p.threads[0].n != 100_001 {
		t.Fatalf("%d threads; the first: %d samples in %d runs, want 100001 in 1", len(p.threads), p.threads[0].n, len(p.threads[0].runs))
	}
}
