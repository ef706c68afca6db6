package main

import (
	"os"
	"strings"

	"github.com/gotachyon/profiler/internal/busiest"
	"github.com/gotachyon/profiler/tachyon"
)

// runTotals adds up the facts of several files one at a time, for files
// that together hold more samples than one merge can: threads and frames
// count once however many files they appear in, as in a merge.
type runTotals struct {
	files                    int // added so far
	size                     int64
	start, interval, samples uint64
	first, last              uint64 // the earliest and the latest sample
	threads                  map[busiest.Key]struct{}
	frames                   map[tachyon.Frame]struct{}
}

func newRunTotals() *runTotals {
	return &runTotals{threads: map[busiest.Key]struct{}{}, frames: map[tachyon.Frame]struct{}{}}
}

// add counts the file of x, whose file is still open: the frames' names
// are copied out of it. Its threads went into r.threads as it was read
// (readFactsThreads).
func (r *runTotals) add(x *facts) {
	h := x.f.Header
	if r.files == 0 || h.StartTime < r.start {
		r.start = h.StartTime
	}
	r.files++
	r.size += x.f.Size
	r.interval = h.Interval
	r.samples += uint64(h.SampleCount)
	if h.SampleCount > 0 {
		if r.first == 0 || x.first < r.first {
			r.first = x.first
		}
		r.last = max(r.last, x.last)
	}
	for i := range x.f.FrameRefs() {
		fr := x.f.Frame(uint32(i))
		fr.File, fr.Func = strings.Clone(fr.File), strings.Clone(fr.Func)
		r.frames[fr] = struct{}{}
	}
}

// totals returns the totals of the files added.
func (r *runTotals) totals() totals {
	return totals{files: r.files, size: r.size, start: r.start, interval: r.interval, samples: r.samples,
		threads: len(r.threads), frames: len(r.frames), dur: sinceStart(r.start, r.first, r.last, r.samples)}
}

// headerSamples adds up the sample counts the headers of the files at
// paths give, as read, unchecked: 0 for a file it cannot read, which the
// reading of each file then reports.
func headerSamples(paths []string) uint64 {
	var n uint64
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		var b [tachyon.HeaderSize]byte
		if _, err := f.ReadAt(b[:], 0); err == nil {
			n += uint64(tachyon.ParseHeader(&b).SampleCount)
		}
		f.Close()
	}
	return n
}
