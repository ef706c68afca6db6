package segment_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/workload/benchload"
	"github.com/gotachyon/profiler/sampler"
	"github.com/gotachyon/profiler/segment"
	"github.com/gotachyon/profiler/tachyon"
)

// samplerSink is the sampler.Sink of a segment Writer, which takes
// watermarks, as the profiler makes it.
type samplerSink struct{ s *segment.Writer }

func (k samplerSink) Frame(f tachyon.Frame) uint32          { return k.s.Frame(f) }
func (k samplerSink) Goroutine(id uint64) sampler.Goroutine { return k.s.NewThread(id, 0) }
func (k samplerSink) Watermark(ts uint64)                   { k.s.Watermark(ts) }

// TestSegmentRangesUnderChurn samples a program of parked goroutines and
// of goroutines started and ended at a high rate with the trace backend in
// wall mode, whose parked goroutines' runs are written seconds late, into
// segments of 2 s after a first of 1 s, as the profiler writes them. Every
// finalized segment's samples (each of a run's) lie within its range,
// from its header's start to the next segment's (the last's up to Stop);
// the ranges tile the run from its start, each starting at a boundary
// (or, when segments end full, after the one before); every sample the
// sampler wrote is in one segment, none left out.
func TestSegmentRangesUnderChurn(t *testing.T) {
	t.Run("periods", func(t *testing.T) { rangesUnderChurn(t, false) })
	// Segments that end full, at 3,000 samples (the sampler writes about
	// 20,000 a second here, in batches), take its late samples too.
	t.Run("full", func(t *testing.T) { rangesUnderChurn(t, true) })
}

func rangesUnderChurn(t *testing.T, full bool) {
	defer benchload.Park(200)()
	defer benchload.Churn(2000)()
	start := uint64(time.Now().UnixMicro())
	var paths []string
	opts := segment.Options{Dir: t.TempDir(), StartTime: start, First: time.Second, Period: 2 * time.Second,
		Interval: 1e6 / sampler.DefaultRate, Compression: tachyon.CompressionZstd,
		Closed: func(path string, last bool) { paths = append(paths, path) }}
	if full {
		segment.SetFullAt(&opts, 3_000)
	}
	s, err := segment.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	smp, err := sampler.Start(sampler.Config{Mode: sampler.Wall, Backend: sampler.Trace}, samplerSink{s})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(6500 * time.Millisecond)
	st, err := smp.Stop()
	if err != nil {
		t.Fatal(err)
	}
	stop := uint64(time.Now().UnixMicro())
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	rs := readRanges(t, paths)
	boundary := func(ts uint64) bool {
		return full || ts == start || ts >= start+1e6 && (ts-start-1e6)%2e6 == 0
	}
	n := checkRanges(t, rs, start, stop, boundary)
	seg := s.Stats()
	if uint64(n) != st.Samples || seg.Late != 0 {
		t.Errorf("the segments hold %d samples, the sampler wrote %d; %d left out as late", n, st.Samples, seg.Late)
	}
	if full && seg.EndedFull < 3 {
		t.Errorf("%d segments ended full, want more", seg.EndedFull)
	}
	if len(rs) < 3 || seg.PeakOpen < 2 {
		t.Errorf("%d segments, at most %d open at once: want at least 3, and late samples that kept one open", len(rs), seg.PeakOpen)
	}
	for _, r := range rs {
		t.Logf("%s starts at +%.3f s", filepath.Base(r.path), float64(r.start-start)/1e6)
	}
	t.Logf("%d segments, %d samples; segment stats %+v", len(rs), n, seg)
}
