package segment_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/segment"
	"github.com/gotachyon/profiler/tachyon"
)

// segRange is what one finalized segment states and holds: its name's
// and header's start, and its samples' timestamps by thread.
type segRange struct {
	path    string
	start   uint64 // the header's start time
	samples map[uint64][]uint64
}

// readRanges reads the finalized segments at paths (in the order the
// Closed hook saw them), and checks that each name's start is its
// header's (to the millisecond the name keeps).
func readRanges(t *testing.T, paths []string) []segRange {
	t.Helper()
	var out []segRange
	for _, p := range paths {
		f, err := reader.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		r := segRange{path: p, start: f.Header.StartTime, samples: map[uint64][]uint64{}}
		it := f.Samples()
		for it.Next() { // every sample, a REPEAT run's each one
			s := it.Sample()
			r.samples[s.ThreadID] = append(r.samples[s.ThreadID], s.Timestamp)
		}
		if err := it.Err(); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		f.Close()
		name, ok := segment.ParseName(filepath.Base(p))
		if !ok || uint64(name.Start.UnixMilli()) != r.start/1000 {
			t.Errorf("%s: the name's start is not the header's %d", filepath.Base(p), r.start)
		}
		out = append(out, r)
	}
	return out
}

// checkRanges checks that the segments tile time from start: each starts
// where the one before it ends (its end is the next start, or stop for
// the last), only the first may have a sequel of the same range, every
// start is a boundary (bound), and every sample lies within its segment's
// range. It returns the number of samples.
func checkRanges(t *testing.T, rs []segRange, start, stop uint64, bound func(uint64) bool) int {
	t.Helper()
	if len(rs) == 0 || rs[0].start != start {
		t.Fatalf("segments do not start at %d: %d segments", start, len(rs))
	}
	n := 0
	for i, r := range rs {
		end := stop + 1 // the last segment holds samples up to stop
		for _, next := range rs[i+1:] {
			if next.start != r.start {
				end = next.start
				break
			}
		}
		switch {
		case i > 0 && r.start < rs[i-1].start:
			t.Errorf("%s starts at %d, before the segment finalized before it (%d)", filepath.Base(r.path), r.start, rs[i-1].start)
		case i > 1 && r.start == rs[i-1].start:
			t.Errorf("%s: a second file of %d, not the first segment's", filepath.Base(r.path), r.start)
		case !bound(r.start):
			t.Errorf("%s starts at %d, not a boundary", filepath.Base(r.path), r.start)
		}
		for id, tss := range r.samples {
			for _, ts := range tss {
				if ts < r.start || ts >= end {
					t.Errorf("%s: thread %d's sample at %d lies outside [%d, %d)", filepath.Base(r.path), id, ts, r.start, end)
				}
			}
			n += len(tss)
		}
	}
	return n
}

// rangeRun is a Writer of the range tests: segments of period from
// segStart, their paths in the order Closed saw them, its log lines.
type rangeRun struct {
	s     *segment.Writer
	paths []string
	lasts []bool
	mu    sync.Mutex
	logs  []string
	stack []uint32
}

func newRangeRun(t *testing.T, period time.Duration, set ...func(*segment.Options)) *rangeRun {
	r := &rangeRun{}
	opts := segment.Options{Dir: t.TempDir(), StartTime: segStart, Period: period, Interval: segStep,
		Closed: func(path string, last bool) { r.paths, r.lasts = append(r.paths, path), append(r.lasts, last) },
		Logf: func(format string, args ...any) {
			r.mu.Lock()
			r.logs = append(r.logs, fmt.Sprintf(format, args...))
			r.mu.Unlock()
		}}
	for _, f := range set {
		f(&opts)
	}
	s, err := segment.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	r.s = s
	r.stack = []uint32{s.Frame(tachyon.Frame{File: "a.go", Func: "a", Line: 1}), s.Frame(tachyon.Frame{File: "b.go", Func: "b", Line: 2})}
	return r
}

// at returns the time ms milliseconds after segStart.
func at(ms uint64) uint64 { return segStart + ms*1000 }

func (r *rangeRun) write(t *testing.T, id uint64, ms uint64) {
	t.Helper()
	if err := r.s.Thread(id, 0).Write(at(ms), 0, r.stack); err != nil {
		t.Fatal(err)
	}
}

// repeat writes thread id's ticks from ms up to (not including) to, every
// 10 ms.
func (r *rangeRun) repeat(t *testing.T, id uint64, ms, to uint64) {
	t.Helper()
	if err := r.s.Thread(id, 0).RepeatEvery(at(ms), segStep, int((to-ms)/10), 0); err != nil {
		t.Fatal(err)
	}
}

// TestSegmentLateSamples drives a Writer of one-second segments with
// samples that come late, as the sampler writes them, and checks where
// each went: a late sample into the still open segment of its time, a run
// split across the segments it spans, the first segment finalized at the
// first rollover and its late samples in its sequel, segments finalized
// once the watermark passes their end, the newest lengthened while
// MaxOpen are open, a sample older than every open segment counted and
// logged, not written, and every segment's samples within its range.
func TestSegmentLateSamples(t *testing.T) {
	if segment.MaxOpen != 2 {
		t.Fatalf("the sequence below is written for MaxOpen 2, not %d", segment.MaxOpen)
	}
	r := newRangeRun(t, time.Second)
	r.write(t, 1, 100) // thread 1: 0.1 s, in the first segment
	r.repeat(t, 1, 110, 500)
	r.write(t, 2, 1200)        // thread 2 rolls over to [1 s, 2 s): the first is finalized
	r.repeat(t, 1, 500, 1500)  // thread 1's run, late: [0.5, 1) in the sequel, [1, 1.5)
	r.write(t, 3, 900)         // a late sample of the first segment's range: the sequel
	r.s.Watermark(at(1000))    // the sequel is finalized
	r.repeat(t, 1, 1500, 2500) // [1.5, 2), then [2, 2.5) opens [2 s, 3 s)
	r.write(t, 4, 999)         // a broken watermark: no segment holds it
	r.repeat(t, 4, 1000, 1500) // the rest of its run has [1 s, 2 s) open
	r.repeat(t, 2, 1210, 3500) // [1.21, 2), [2, 3) and, two segments open, [2, 4)
	r.s.Watermark(at(2000))    // [1, 2) is finalized
	r.write(t, 5, 2100)        // late for [2, 4), still open
	if err := r.s.Close(); err != nil {
		t.Fatal(err)
	}
	rs := readRanges(t, r.paths)
	n := checkRanges(t, rs, segStart, at(3490), func(ts uint64) bool { return (ts-segStart)%1_000_000 == 0 })
	want := []struct {
		start uint64
		count map[uint64]int // samples by thread
	}{
		{at(0), map[uint64]int{1: 40}},
		{at(0), map[uint64]int{1: 50, 3: 1}},
		{at(1000), map[uint64]int{1: 100, 2: 80, 4: 50}},
		{at(2000), map[uint64]int{1: 50, 2: 150, 5: 1}},
	}
	if len(rs) != len(want) {
		t.Fatalf("%d segments, want %d", len(rs), len(want))
	}
	for i, w := range want {
		got := map[uint64]int{}
		for id, tss := range rs[i].samples {
			got[id] = len(tss)
		}
		if rs[i].start != w.start || fmt.Sprint(got) != fmt.Sprint(w.count) {
			t.Errorf("segment %d: start %d, samples by thread %v; want %d, %v", i, rs[i].start, got, w.start, w.count)
		}
	}
	if n != 40+51+230+201 {
		t.Errorf("%d samples written", n)
	}
	st := r.s.Stats()
	if st.Late != 1 || st.Written != len(want) || st.PeakOpen != 2 || st.Extended != 1 || st.Expired != 0 {
		t.Errorf("stats %+v", st)
	}
	if !slices.Equal(r.lasts, []bool{false, false, false, true}) {
		t.Errorf("last flags %v", r.lasts)
	}
	if len(r.logs) != 1 || !strings.Contains(r.logs[0], "1 samples came after") {
		t.Errorf("logged %q", r.logs)
	}
}

// TestSegmentOpenBounds checks the Writer's bounds on what stays open: with
// MaxOpen segments open the newest is lengthened by whole periods, its
// range still holding its samples, and a sample MaxLag past an open
// segment's end finalizes it without the watermark (later samples of its
// time are left out and counted).
func TestSegmentOpenBounds(t *testing.T) {
	if segment.MaxOpen != 2 {
		t.Fatalf("the sequence below is written for MaxOpen 2, not %d", segment.MaxOpen)
	}
	r := newRangeRun(t, time.Second)
	r.s.Watermark(at(100))
	r.write(t, 1, 100)
	r.s.Watermark(at(1000)) // the first segment ends, not the watermark's newest
	for _, ms := range []uint64{1500, 2500, 3500, 4500, 5500} {
		r.write(t, 1, ms) // [1, 2) and [2, 3) open, [2, 3) lengthened to [2, 6)
	}
	if st := r.s.Stats(); st.PeakOpen != segment.MaxOpen || st.Extended != 3 {
		t.Errorf("after 5.5 s: stats %+v", st)
	}
	r.write(t, 2, 1600) // still open
	// MaxLag past [1, 2): it is finalized, and [2, 6) ends where the
	// segment of 12 s starts.
	r.write(t, 1, 2000+uint64(segment.MaxLag/time.Millisecond))
	r.write(t, 2, 1700) // left out
	if err := r.s.Close(); err != nil {
		t.Fatal(err)
	}
	rs := readRanges(t, r.paths)
	checkRanges(t, rs, segStart, at(12000), func(ts uint64) bool { return (ts-segStart)%1_000_000 == 0 })
	var starts []uint64
	for _, s := range rs {
		starts = append(starts, (s.start-segStart)/1000)
	}
	if want := []uint64{0, 1000, 2000, 12000}; !slices.Equal(starts, want) {
		t.Errorf("segments start at %v ms, want %v", starts, want)
	}
	if st := r.s.Stats(); st.Late != 1 || st.Expired != 1 {
		t.Errorf("stats %+v", st)
	}
}

// TestThreadHandles: Thread gives one handle a thread, which Forget lets
// go; NewThread gives a handle Thread does not know.
func TestThreadHandles(t *testing.T) {
	r := newRangeRun(t, time.Second)
	a := r.s.Thread(1, 0)
	if r.s.Thread(1, 0) != a || r.s.Thread(1, 1) == a {
		t.Error("Thread gave another handle of (1, 0), or (1, 0)'s for (1, 1)")
	}
	n := r.s.NewThread(2, 0)
	if r.s.Thread(2, 0) == n {
		t.Error("Thread found NewThread's handle")
	}
	a.Forget()
	if r.s.Thread(1, 0) == a {
		t.Error("Thread gave a forgotten handle")
	}
	n.Forget()
	if err := r.s.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestHandlesShareStacks: handles whose stack held still for a batch
// share one copy of it; one that moves on owns its own again; the copies
// go with the last holder.
func TestHandlesShareStacks(t *testing.T) {
	r := newRangeRun(t, time.Second)
	other := []uint32{r.stack[1]}
	hs := make([]*segment.Thread, 100)
	for i := range hs {
		hs[i] = r.s.NewThread(uint64(i+1), 0)
		if err := hs[i].Write(at(100), 0, r.stack); err != nil {
			t.Fatal(err)
		}
		hs[i].Flush() // moved in this batch: still its own
	}
	if n, f := segment.Stacks(r.s); n != 0 || f != 200 {
		t.Fatalf("after the first batch: %d stacks shared, %d frames held", n, f)
	}
	for _, h := range hs {
		if err := h.RepeatEvery(at(110), segStep, 10, 0); err != nil {
			t.Fatal(err)
		}
		h.Flush()
	}
	if n, f := segment.Stacks(r.s); n != 1 || f != 2 {
		t.Fatalf("held still a batch: %d stacks shared, %d frames held", n, f)
	}
	if err := hs[0].Write(at(210), 0, other); err != nil {
		t.Fatal(err)
	}
	if n, f := segment.Stacks(r.s); n != 1 || f != 3 {
		t.Fatalf("one moved on: %d stacks shared, %d frames held", n, f)
	}
	for _, h := range hs {
		h.Forget()
	}
	if n, f := segment.Stacks(r.s); n != 0 || f != 0 {
		t.Fatalf("all forgotten: %d stacks shared, %d frames held", n, f)
	}
	if err := r.s.Close(); err != nil {
		t.Fatal(err)
	}
}
