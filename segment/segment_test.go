package segment_test

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/sampler"
	"github.com/gotachyon/profiler/segment"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// handle is a thread handle as drive writes through it, a goroutine's
// stream as the sampler sees it: a *segment.Thread or a *writer.Thread.
type handle = sampler.Goroutine

// sink is what drive writes into: a segment.Writer (segSink) or a
// writer.Writer (writerSink).
type sink struct {
	frame     func(f tachyon.Frame) uint32
	thread    func(id uint64) handle
	watermark func(ts uint64) // nil: the sink takes none
}

// segSink asks for each thread's handle once, as the sampler does, with
// NewThread; the range tests take theirs from Thread, again and again.
func segSink(s *segment.Writer) sink {
	return sink{frame: s.Frame, thread: func(id uint64) handle { return s.NewThread(id, 0) }, watermark: s.Watermark}
}

func writerSink(w *writer.Writer) sink {
	return sink{frame: w.Frame, thread: func(id uint64) handle { return w.Thread(id, 0) }}
}

const (
	segStart = uint64(1_795_000_000_000_000) // 2026-11-18, µs
	segStep  = uint64(10_000)                // 100 Hz
	genTicks = 100                           // a generation: one second
)

// drive writes a deterministic stream the way the sampler does: time
// advances in one-second generations; each generation, a quarter of the
// goroutines have their ticks since their last write written (runs of
// identical samples, a full stack where it changes, up to four seconds
// late), then flushed; goroutines end (Forget) and start. Thread 1 stays
// parked for the whole run: its runs are the longest. Its time starts at
// segStart.
func drive(t *testing.T, s sink, gens int) {
	t.Helper()
	driveFrom(t, s, segStart, gens)
}

// driveFrom is drive with time starting at start.
func driveFrom(t *testing.T, s sink, start uint64, gens int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 13))
	stacks := make([][]uint32, 12)
	for i := range stacks {
		for d := range 3 + i%5 {
			stacks[i] = append(stacks[i], s.frame(tachyon.Frame{File: fmt.Sprintf("f%d.go", d), Func: fmt.Sprintf("pkg.fn%d_%d", i, d), Line: int32(10*i + d)}))
		}
	}
	type gor struct {
		h    handle
		due  uint64 // first tick not written
		last int    // index of the latest stack written, -1: none
		id   uint64
	}
	var live []*gor
	nextID := uint64(1)
	spawn := func(tick uint64) {
		live = append(live, &gor{h: s.thread(nextID), due: tick, last: -1, id: nextID})
		nextID++
	}
	for range 20 {
		spawn(0)
	}
	settle := func(g *gor, upTo uint64) {
		for g.due < upTo {
			n := min(upTo-g.due, uint64(1+rng.IntN(150)))
			if g.id == 1 {
				n = upTo - g.due
			}
			si, st := g.last, tachyon.Status(0)
			if g.id != 1 && (si < 0 || rng.IntN(3) == 0) {
				si, st = rng.IntN(len(stacks)), tachyon.Status(rng.IntN(4))
			} else if si < 0 {
				si = 0
			}
			ts := start + g.due*segStep
			k := int(n)
			if si != g.last {
				if err := g.h.Write(ts, st, stacks[si]); err != nil {
					t.Fatal(err)
				}
				g.last, ts, k = si, ts+segStep, k-1
			}
			if err := g.h.RepeatEvery(ts, segStep, k, st); err != nil {
				t.Fatal(err)
			}
			g.due += n
		}
		g.h.Flush()
	}
	for gen := 1; gen <= gens; gen++ {
		now := uint64(gen * genTicks)
		if s.watermark != nil {
			oldest := now
			for _, g := range live {
				oldest = min(oldest, g.due)
			}
			s.watermark(start + oldest*segStep)
		}
		for i := 0; i < len(live); i++ {
			g := live[i]
			if (g.id+uint64(gen))%4 != 0 {
				continue
			}
			settle(g, now)
			if g.id != 1 && rng.IntN(6) == 0 {
				g.h.Forget()
				live = slices.Delete(live, i, i+1)
				i--
				spawn(now - uint64(rng.IntN(genTicks)))
			}
		}
	}
	for _, g := range live {
		settle(g, uint64(gens*genTicks))
	}
}

// sample is one decoded sample, frames resolved.
type sample struct {
	ts     uint64
	status tachyon.Status
	stack  string
}

// readThreads decodes a file into each thread's samples, appended to m.
func readThreads(t *testing.T, path string, m map[uint64][]sample) *reader.File {
	t.Helper()
	f, err := reader.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	it := f.Samples()
	for it.Next() {
		s := it.Sample()
		var b strings.Builder
		for _, fr := range it.Frames(nil) {
			fmt.Fprintf(&b, "%s:%s:%d;", fr.File, fr.Func, fr.Line)
		}
		m[s.ThreadID] = append(m[s.ThreadID], sample{s.Timestamp, s.Status, b.String()})
	}
	if err := it.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return f
}

// single writes the stream into one file and returns its samples.
func single(t *testing.T, gens int) map[uint64][]sample {
	path := filepath.Join(t.TempDir(), "one.bin")
	w, err := writer.Create(path, writer.Options{StartTime: segStart, Interval: segStep, Compression: tachyon.CompressionZstd})
	if err != nil {
		t.Fatal(err)
	}
	drive(t, writerSink(w), gens)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	m := map[uint64][]sample{}
	readThreads(t, path, m)
	return m
}

// segmented writes the stream through a segment.Writer and returns the closed
// paths in the order the hook saw them, with their last flags.
func segmented(t *testing.T, gens int, period time.Duration, opts segment.Options) (*segment.Writer, []string, []bool) {
	t.Helper()
	var paths []string
	var lasts []bool
	opts.Dir = t.TempDir()
	opts.StartTime, opts.Period, opts.Interval = segStart, period, segStep
	opts.Compression = tachyon.CompressionZstd
	opts.Closed = func(path string, last bool) {
		if _, err := os.Stat(path); err != nil {
			t.Errorf("hook: %v", err)
		}
		paths, lasts = append(paths, path), append(lasts, last)
	}
	s, err := segment.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	drive(t, segSink(s), gens)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return s, paths, lasts
}

// TestSegmentsUnion checks that the segments of a run hold exactly the
// samples one file holds: per thread, the same (timestamp, status, stack)
// sequence, none lost or doubled, across rollovers that split runs.
func TestSegmentsUnion(t *testing.T) {
	const gens = 30
	want := single(t, gens)
	s, paths, lasts := segmented(t, gens, 3700*time.Millisecond, segment.Options{})
	if len(paths) < 7 {
		t.Fatalf("%d segments, want at least 7", len(paths))
	}
	got := map[uint64][]sample{}
	var first map[uint64][]sample
	for i, p := range paths {
		readThreads(t, p, got)
		if i == 0 {
			first = maps.Clone(got)
		}
		if lasts[i] != (i == len(paths)-1) {
			t.Errorf("segment %d: last = %v", i, lasts[i])
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%d threads, want %d", len(got), len(want))
	}
	for id, ws := range want {
		if !slices.Equal(got[id], ws) {
			for i := range ws {
				if i >= len(got[id]) || got[id][i] != ws[i] {
					t.Logf("sample %d: got %+v want %+v", i, got[id][i], ws[i])
					break
				}
			}
			t.Fatalf("thread %d: %d samples differ from the single file's %d", id, len(got[id]), len(ws))
		}
	}
	// Thread 4's first run, [0, 4 s), crosses the first boundary at 3.7 s:
	// it is split there, and goes on in the second segment.
	end := segStart + 3_700_000
	if f := first[4]; len(f) == 0 || f[len(f)-1].ts != end-segStep || got[4][len(f)].ts != end || got[4][len(f)].stack != f[len(f)-1].stack {
		t.Errorf("thread 4's run is not split at %d: first segment ends at %v", end, f[max(len(f)-1, 0):])
	}
	if st := s.Stats(); st.Late != 0 || st.Written != len(paths) || st.Deleted != 0 {
		t.Errorf("stats %+v", st)
	}
	if !slices.IsSorted(paths) {
		t.Errorf("names do not sort in order: %v", paths)
	}
}

// TestSegmentFirst checks that First ends the first segment early, that
// the later boundaries follow it a period apart, and that no sample is
// lost or doubled across them.
func TestSegmentFirst(t *testing.T) {
	const gens = 30
	want := single(t, gens)
	_, paths, _ := segmented(t, gens, 5*time.Second, segment.Options{First: time.Second})
	got := map[uint64][]sample{}
	var starts []uint64
	for _, p := range paths {
		f, err := reader.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		starts = append(starts, f.Header.StartTime)
		f.Close()
		readThreads(t, p, got)
	}
	// The first segment's sequel, if any, starts where it does.
	if len(starts) > 1 && starts[1] == starts[0] {
		starts = starts[1:]
	}
	for i, st := range starts {
		want := segStart + uint64(max(5*i-4, 0))*1_000_000
		if st != want {
			t.Errorf("segment starts %v, want boundaries at +1 s, +6 s, ... of %d", starts, segStart)
			break
		}
	}
	for id, ws := range want {
		if !slices.Equal(got[id], ws) {
			t.Fatalf("thread %d: %d samples differ from the single file's %d", id, len(got[id]), len(ws))
		}
	}
}

// TestSegmentsVerify checks that every segment is a complete file on its
// own and that no .part file is left.
func TestSegmentsVerify(t *testing.T) {
	_, paths, _ := segmented(t, 12, 2*time.Second, segment.Options{})
	modes := map[os.FileMode][]string{}
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil {
			modes[st.Mode().Perm()] = append(modes[st.Mode().Perm()], filepath.Base(p))
		}
	}
	if len(modes) != 1 {
		t.Errorf("segments have different modes: %v", modes) // the first was 0644, the spares 0600
	}
	for _, p := range paths {
		f, err := reader.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Verify(); err != nil {
			t.Errorf("%s: %v", p, err)
		}
		f.Close()
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(paths[0]), "*"+segment.PartExt))
	if len(left) > 0 {
		t.Errorf("left %v", left)
	}
}

// TestSegmentBudget checks that the budget deletes the oldest finalized
// segments and keeps the newest.
func TestSegmentBudget(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files int
		bytes int64
		keep  int
	}{
		{"files", 3, 0, 3},
		{"bytes", 0, 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, paths, _ := segmented(t, 12, 2*time.Second, segment.Options{KeepFiles: tc.files, KeepBytes: tc.bytes})
			have, _ := filepath.Glob(filepath.Join(filepath.Dir(paths[0]), "*"))
			if !slices.Equal(have, paths[len(paths)-tc.keep:]) {
				t.Errorf("kept %v, want the newest %d of %v", have, tc.keep, paths)
			}
			if st := s.Stats(); st.Deleted != len(paths)-tc.keep {
				t.Errorf("deleted %d, want %d", st.Deleted, len(paths)-tc.keep)
			}
		})
	}
}

// TestSegmentBudgetOthers checks that the budget never deletes a file the
// Writer did not write.
func TestSegmentBudgetOthers(t *testing.T) {
	dir := t.TempDir()
	other := filepath.Join(dir, segment.Name("profile", "", segStart-1e9, 1))
	if err := os.WriteFile(other, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := segment.New(segment.Options{Dir: dir, StartTime: segStart, Period: time.Second, KeepFiles: 1})
	if err != nil {
		t.Fatal(err)
	}
	drive(t, segSink(s), 5)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("the other run's file: %v", err)
	}
}

// TestSegmentName checks the documented naming.
func TestSegmentName(t *testing.T) {
	start := uint64(time.Date(2026, 11, 23, 4, 50, 0, 123_456_000, time.UTC).UnixMicro())
	if got, want := segment.Name("profile", "", start, 1), "profile-20261123T045000.123Z-000001.tachyon"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestSegmentsReferenceTool checks every segment with the reference
// validator.
func TestSegmentsReferenceTool(t *testing.T) {
	ref := testutil.Shared(t, "tools", "tachyon_ref.py")
	py := testutil.Tool(t, "python3")
	testutil.Tool(t, "zstd")
	_, paths, _ := segmented(t, 8, 2*time.Second, segment.Options{})
	for _, p := range paths {
		if out, err := exec.Command(py, ref, "validate", p).CombinedOutput(); err != nil {
			t.Errorf("%s: %v\n%s", filepath.Base(p), err, out)
		}
	}
}
