package upload_test

import (
	"maps"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/segment"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/upload"
)

// lateSegments writes 9 s of 60 goroutines at 100 Hz into segments of
// 2 s after a first of 1 s, as the trace backend writes them: each
// goroutine's ticks in a batch every fourth second (up to four seconds
// late), after the watermark of the oldest tick still to come. It returns
// the finalized segments in order, and the run's start.
func lateSegments(t *testing.T) ([]string, uint64) {
	t.Helper()
	const start, interval, goroutines, ticks = 1_700_000_000_000_000, 10_000, 60, 900
	var paths []string
	s, err := segment.New(segment.Options{Dir: t.TempDir(), StartTime: start, First: time.Second, Period: 2 * time.Second,
		Interval: interval, Compression: tachyon.CompressionZstd,
		Closed: func(path string, last bool) { paths = append(paths, path) }})
	if err != nil {
		t.Fatal(err)
	}
	due := make([]int, goroutines) // each goroutine's first tick not written
	var stack []uint32
	settle := func(g, upTo int) {
		h := s.Thread(uint64(g+1), 0)
		for ; due[g] < upTo; due[g]++ {
			smp := goroutineSample(0, g, due[g])
			stack = stack[:0]
			for _, f := range smp.Frames {
				stack = append(stack, s.Frame(f))
			}
			if err := h.Write(start+uint64(due[g])*interval, smp.Status, stack); err != nil {
				t.Fatal(err)
			}
		}
		h.Flush()
	}
	for sec := 1; sec <= ticks/100; sec++ {
		oldest := sec * 100
		for _, d := range due {
			oldest = min(oldest, d)
		}
		s.Watermark(start + uint64(oldest)*interval)
		for g := range goroutines {
			if (g+sec)%4 == 0 {
				settle(g, sec*100)
			}
		}
	}
	for g := range goroutines {
		settle(g, ticks)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return paths, start
}

// TestPushRanges pushes segments whose samples came up to four seconds
// late and checks that each push states its segment's range: its time is
// the segment's nominal start (the header's), and its range holds every
// sample of the segment, each with its interval, and ends at most an
// interval past the next segment's start; and that the store's totals
// are the segment's.
func TestPushRanges(t *testing.T) {
	paths, start := lateSegments(t)
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			r := st.new(t)
			r.up()
			u := newUploader(t, st.url(r.addr), upload.Config{})
			for i, p := range paths {
				u.Segment(p, i == len(paths)-1)
			}
			got := r.received()
			if len(got) != len(paths) {
				t.Fatalf("received %d profiles, want %d", len(got), len(paths))
			}
			for i, rec := range got {
				name := filepath.Base(paths[i])
				f, err := reader.Open(paths[i])
				if err != nil {
					t.Fatal(err)
				}
				h := f.Header
				lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
				it := f.Samples()
				for it.Next() {
					ns := int64(it.Sample().Timestamp) * 1000
					lo, hi = min(lo, ns), max(hi, ns)
				}
				if err := it.Err(); err != nil {
					t.Fatal(err)
				}
				f.Close()
				iv := int64(h.Interval) * 1000
				if rec.time != int64(h.StartTime)*1000 || (h.StartTime-start)%1_000_000 != 0 {
					t.Errorf("%s: the push starts at %d ns, the segment at %d µs", name, rec.time, h.StartTime)
				}
				if lo < rec.time || hi+iv > rec.time+rec.duration {
					t.Errorf("%s: the push states [%d, %d) ns, its samples span [%d, %d]", name, rec.time, rec.time+rec.duration, lo, hi)
				}
				for _, next := range paths[i+1:] {
					ns := segStartNanos(t, next)
					if ns == rec.time { // the first segment's sequel
						continue
					}
					if rec.time+rec.duration > ns+iv {
						t.Errorf("%s: the push ends at %d ns, past the next segment's start %d and an interval", name, rec.time+rec.duration, ns)
					}
					break
				}
				if want := fileTotals(t, paths[i]); !maps.Equal(rec.totals, want) {
					t.Errorf("%s: totals\n got %v\nwant %v", name, rec.totals, want)
				}
			}
		})
	}
}

// segStartNanos returns the header start of the segment at path, in ns.
func segStartNanos(t *testing.T, path string) int64 {
	t.Helper()
	f, err := reader.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return int64(f.Header.StartTime) * 1000
}
