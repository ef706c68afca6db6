package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/gotachyon/profiler/internal/busiest"
	"github.com/gotachyon/profiler/internal/merge"
)

// infoMany prints the facts of each file that args name (a directory
// stands for its *.tachyon files), then the totals over them and the tally
// of their merge: states, goroutine groups and top functions of the whole
// run; runtime is --runtime. Files that together hold more samples than
// one merge can still get their totals, counted file by file; the tally
// is then refused with the merge's error.
func infoMany(args []string, runs string, runtime bool, stdout, stderr io.Writer) int {
	paths, err := expandRuns(args, runs)
	if err != nil {
		return fail(stderr, err)
	}
	var tot *runTotals
	if headerSamples(paths) > math.MaxUint32 {
		tot = newRunTotals()
	}
	var size int64
	for _, p := range paths {
		var threads map[busiest.Key]struct{}
		if tot != nil {
			threads = tot.threads
		}
		x, err := readFactsThreads(p, p, runtime, threads)
		if err != nil {
			return fail(stderr, err)
		}
		x.print(stdout, p)
		fmt.Fprintln(stdout)
		size += x.f.Size
		if tot != nil {
			tot.add(x)
		}
		x.f.Close()
	}
	in, release, err := resolveInputRuns(args, runs, stderr)
	if err != nil {
		if tot != nil && errors.Is(err, merge.ErrTooManySamples) {
			tot.totals().print(stdout, inputName(args))
			return fail(stderr, fmt.Errorf("no states, goroutine groups or top functions over all the files: %w", err))
		}
		return fail(stderr, err)
	}
	defer release()
	x, err := readFacts(in.path, in.name, runtime)
	if err != nil {
		return fail(stderr, err)
	}
	defer x.f.Close()
	x.printTotals(stdout, in.name, len(paths), size)
	x.tl.print(stdout, x.f)
	return exitOK
}

// printTotals writes the facts of the merge of n files of size bytes in
// all, named name: threads and frames count once however many files they
// appear in.
func (x *facts) printTotals(w io.Writer, name string, n int, size int64) {
	h, ft := x.f.Header, x.f.Footer
	totals{files: n, size: size, start: h.StartTime, interval: h.Interval, samples: uint64(h.SampleCount),
		threads: int(h.ThreadCount), frames: int(ft.FrameCount), dur: x.duration()}.print(w, name)
}

// totals are the facts of several files together, named name.
type totals struct {
	files                    int
	size                     int64
	start, interval, samples uint64
	threads, frames          int // distinct
	dur                      time.Duration
}

func (t totals) print(w io.Writer, name string) {
	fmt.Fprintf(w, "total:         %d files (%s)\n", t.files, name)
	fmt.Fprintf(w, "start time:    %s\n", startTime(t.start))
	fmt.Fprintf(w, "interval:      %d us\n", t.interval)
	fmt.Fprintf(w, "samples:       %d\n", t.samples)
	fmt.Fprintf(w, "threads:       %d distinct\n", t.threads)
	fmt.Fprintf(w, "frames:        %d distinct\n", t.frames)
	fmt.Fprintf(w, "file size:     %d bytes in all\n", t.size)
	fmt.Fprintf(w, "duration:      %s (earliest start time to last sample)\n", t.dur)
}
