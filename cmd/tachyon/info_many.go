package main

import (
	"fmt"
	"io"
)

// infoMany prints the facts of each file that args name (a directory
// stands for its *.tachyon files), then the totals over them and the tally
// of their merge: states, goroutine groups and top functions of the whole
// run; runtime is --runtime.
func infoMany(args []string, runs string, runtime bool, stdout, stderr io.Writer) int {
	paths, err := expandRuns(args, runs)
	if err != nil {
		return fail(stderr, err)
	}
	var size int64
	for _, p := range paths {
		x, err := readFacts(p, p, runtime)
		if err != nil {
			return fail(stderr, err)
		}
		x.print(stdout, p)
		fmt.Fprintln(stdout)
		size += x.f.Size
		x.f.Close()
	}
	in, release, err := resolveInputRuns(args, runs, stderr)
	if err != nil {
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
	fmt.Fprintf(w, "total:         %d files (%s)\n", n, name)
	fmt.Fprintf(w, "start time:    %s\n", startTime(h.StartTime))
	fmt.Fprintf(w, "interval:      %d us\n", h.Interval)
	fmt.Fprintf(w, "samples:       %d\n", h.SampleCount)
	fmt.Fprintf(w, "threads:       %d distinct\n", h.ThreadCount)
	fmt.Fprintf(w, "frames:        %d distinct\n", ft.FrameCount)
	fmt.Fprintf(w, "file size:     %d bytes in all\n", size)
	fmt.Fprintf(w, "duration:      %s (earliest start time to last sample)\n", x.duration())
}
