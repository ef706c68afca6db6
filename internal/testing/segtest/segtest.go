package segtest

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// Profile writes to path a profile with the shapes merging must keep: a
// goroutine parked for the whole profile (one long REPEAT run, evenly
// spaced), one whose repeats have jittered timestamps and change status,
// one that changes stacks often, one that ends early and one that starts
// late, with the given compression. It returns the profile's start time
// and the timestamp of its last tick.
func Profile(t testing.TB, path string, c tachyon.Compression) (start, end uint64) {
	t.Helper()
	return ProfileInterval(t, path, c, 10_000)
}

// ProfileInterval is Profile with the given sampling interval, in µs.
func ProfileInterval(t testing.TB, path string, c tachyon.Compression, interval uint64) (start, end uint64) {
	t.Helper()
	const ticks = 3000
	start = 1_763_870_000_000_000
	w, err := writer.Create(path, writer.Options{StartTime: start, Interval: interval, Compression: c})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 13))
	fr := func(fn string, line int32) tachyon.Frame {
		return tachyon.Frame{File: "/src/app/" + fn + ".go", Func: "app." + fn, Line: line}
	}
	park := []tachyon.Frame{fr("gopark", 1), fr("chanrecv", 2), fr("worker", 3), fr("main", 4)}
	for i := range ticks {
		now := start + uint64(i)*interval
		write(t, w, 1, now, blocked, park)
		jitter := now + uint64(rng.IntN(900))
		st := running
		if i%97 > 80 {
			st = blocked
		}
		write(t, w, 2, jitter, st, []tachyon.Frame{fr("loop", 7), fr("serve", 8)})
		write(t, w, 3, now+1, running, []tachyon.Frame{fr(fmt.Sprintf("f%d", rng.IntN(40)), int32(rng.IntN(5))), fr("serve", 8)})
		if i < ticks/4 {
			write(t, w, 4, now+2, running, park[2:])
		}
		if i > ticks*3/4 {
			write(t, w, 5, now+3, running, park[1:])
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return start, start + (ticks-1)*interval
}

// Span returns the first and last timestamps of the file at path.
func Span(t testing.TB, path string) (lo, hi uint64) {
	t.Helper()
	for _, ss := range Threads(t, path) {
		for _, s := range ss {
			if lo == 0 || s.ts < lo {
				lo = s.ts
			}
			hi = max(hi, s.ts)
		}
	}
	return lo, hi
}

func write(t testing.TB, w *writer.Writer, tid uint64, ts uint64, st tachyon.Status, frames []tachyon.Frame) {
	t.Helper()
	if err := w.WriteSample(&writer.Sample{ThreadID: tid, Timestamp: ts, Status: st, Frames: frames}); err != nil {
		t.Fatal(err)
	}
}

// Split writes the samples of the file at src into len(cuts)+1 files in
// dir, named like a profiler's segments so that they sort by start time:
// a sample at timestamp ts goes to the first segment whose next cut is
// above ts. Segment k starts at cuts[k-1] (the first at src's start). It
// returns the segments' paths, in time order.
func Split(t testing.TB, src, dir string, cuts []uint64, c tachyon.Compression) []string {
	t.Helper()
	f, err := reader.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	starts := append([]uint64{f.Header.StartTime}, cuts...)
	ws := make([]*writer.Writer, len(starts))
	paths := make([]string, len(starts))
	for k, s := range starts {
		paths[k] = filepath.Join(dir, fmt.Sprintf("profile-%020d-%06d.tachyon", s, k+1))
		if ws[k], err = writer.Create(paths[k], writer.Options{StartTime: s, Interval: f.Header.Interval, Compression: c}); err != nil {
			t.Fatal(err)
		}
	}
	it := f.Samples()
	for it.Next() {
		s := it.Sample()
		k, _ := slices.BinarySearch(cuts, s.Timestamp+1)
		err := ws[k].WriteSample(&writer.Sample{ThreadID: s.ThreadID, InterpreterID: s.InterpreterID,
			Timestamp: s.Timestamp, Status: s.Status, Frames: it.Frames(nil)})
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	for _, w := range ws {
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return paths
}

// Statuses of the profile: parked, and running on a CPU.
const (
	blocked tachyon.Status = 0
	running                = tachyon.StatusHasGIL | tachyon.StatusOnCPU
)

// sample is a decoded sample with its frames resolved.
type sample struct {
	ts     uint64
	status tachyon.Status
	frames []tachyon.Frame
}

// Threads reads the file at path into each thread's samples, in order.
func Threads(t testing.TB, path string) map[[2]uint64][]sample {
	t.Helper()
	f, err := reader.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[[2]uint64][]sample{}
	it := f.Samples()
	for it.Next() {
		s := it.Sample()
		k := [2]uint64{s.ThreadID, uint64(s.InterpreterID)}
		out[k] = append(out[k], sample{s.Timestamp, s.Status, it.Frames(nil)})
	}
	if err := it.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return out
}

// Equal reports the first difference between the samples of the files at
// got and want: the headers' sample and thread counts, then each thread's
// (timestamp, status, stack) sequence.
func Equal(t testing.TB, got, want string) {
	t.Helper()
	hg, hw := header(t, got), header(t, want)
	if hg.SampleCount != hw.SampleCount || hg.ThreadCount != hw.ThreadCount {
		t.Errorf("%s: %d samples of %d threads, want %d of %d", got, hg.SampleCount, hg.ThreadCount, hw.SampleCount, hw.ThreadCount)
	}
	g, w := Threads(t, got), Threads(t, want)
	for k, ws := range w {
		gs := g[k]
		if len(gs) != len(ws) {
			t.Errorf("thread %v: %d samples, want %d", k, len(gs), len(ws))
			continue
		}
		for i := range ws {
			if gs[i].ts != ws[i].ts || gs[i].status != ws[i].status || !slices.Equal(gs[i].frames, ws[i].frames) {
				t.Errorf("thread %v sample %d: %+v, want %+v", k, i, gs[i], ws[i])
				break
			}
		}
	}
	if len(g) != len(w) {
		t.Errorf("%d threads, want %d", len(g), len(w))
	}
}

func header(t testing.TB, path string) tachyon.Header {
	t.Helper()
	f, err := reader.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return f.Header
}
