package segment_test

import (
	"slices"
	"testing"
	"time"

	"github.com/gotachyon/profiler/segment"
)

// TestSegmentEndsFull writes more samples a period than a segment may
// hold (SetFullAt lowers FullAt to 1,000): 30 threads at 100 Hz, each
// thread's ticks in batches of 100 ms that come in turn, the later
// threads' after the earlier ones' newer batch, as a sampler writes them.
// Each segment must end after its newest sample once it holds 1,000, the
// next start there, every sample land in exactly one segment within its
// range, and no segment hold more than what came late besides.
func TestSegmentEndsFull(t *testing.T) {
	const threads, batch = 30, 10 // a batch: 10 ticks of 10 ms
	r := newRangeRun(t, time.Second, func(o *segment.Options) { segment.SetFullAt(o, 1000) })
	for id := range uint64(threads) {
		r.write(t, id+1, 0)
	}
	const stop = 3000 // ms
	for ms := uint64(10); ms < stop; ms += batch * 10 {
		// The first half of the threads write this batch, then the
		// second half the batch before, late.
		for id := range uint64(threads) {
			from := ms
			if id >= threads/2 {
				if ms < batch*10 {
					continue
				}
				from = ms - batch*10
			}
			r.repeat(t, id+1, from, from+batch*10)
		}
		r.s.Watermark(at(ms - min(ms, 2*batch*10)))
	}
	for id := uint64(threads / 2); id < threads; id++ {
		r.repeat(t, id+1, stop-batch*10+10, stop+10)
	}
	if err := r.s.Close(); err != nil {
		t.Fatal(err)
	}
	rs := readRanges(t, r.paths)
	// A full segment's successor starts off the period grid.
	n := checkRanges(t, rs, segStart, at(stop), func(uint64) bool { return true })
	if want := threads * (stop/10 + 1); n != want {
		t.Errorf("%d samples in the segments, want %d", n, want)
	}
	st := r.s.Stats()
	if st.EndedFull < 4 {
		t.Errorf("%d segments ended full, want one or more a second: %+v", st.EndedFull, st)
	}
	for _, seg := range rs {
		held := 0
		for _, tss := range seg.samples {
			held += len(tss)
		}
		// What may come after the 1,000th: the rest of the batch in
		// hand and the late half's batch before.
		if held > 1000+threads*batch*2 {
			t.Errorf("%s holds %d samples", seg.path, held)
		}
	}
	if st.Late != 0 || st.Dropped != 0 {
		t.Errorf("samples left out: %+v", st)
	}
}

// TestSegmentsUnionFull: segments that end full, 700 samples each, hold
// exactly the samples one file holds, thread by thread, and their names
// sort in order.
func TestSegmentsUnionFull(t *testing.T) {
	const gens = 30
	want := single(t, gens)
	var opts segment.Options
	segment.SetFullAt(&opts, 700)
	s, paths, _ := segmented(t, gens, 3700*time.Millisecond, opts)
	got := map[uint64][]sample{}
	for _, p := range paths {
		readThreads(t, p, got)
	}
	if len(got) != len(want) {
		t.Fatalf("%d threads, want %d", len(got), len(want))
	}
	for id, ws := range want {
		if !slices.Equal(got[id], ws) {
			t.Errorf("thread %d: %d samples differ from the single file's %d", id, len(got[id]), len(ws))
		}
	}
	st := s.Stats()
	if st.EndedFull < len(paths)/2 || st.Late != 0 || st.Written != len(paths) {
		t.Errorf("%d segments: stats %+v", len(paths), st)
	}
	if !slices.IsSorted(paths) {
		t.Errorf("names do not sort in order: %v", paths)
	}
	t.Logf("%d segments, %d ended full", len(paths), st.EndedFull)
}
