package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/gotachyon/profiler/internal/busiest"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
)

func init() {
	register(&command{
		name:    "info",
		summary: "print a file's header facts, sizes, duration, records per encoding, then its states, goroutine groups and top functions (several files: each one's facts, then totals)",
		usage:   "[--runs all|latest|ID] [--runtime] FILE... | DIR",
		run:     runInfo,
	})
}

func runInfo(args []string, stdout, stderr io.Writer) int {
	fs := newFlags(commands["info"], stderr)
	runs := runsFlag(fs)
	rt := runtimeFlag(fs, "the top functions")
	files, code := parseFlags(fs, args)
	if code != proceed {
		return code
	}
	if len(files) == 0 {
		return usageError(fs, "%v", errNoInput)
	}
	files, release := unfinished(files, stderr)
	defer release()
	if len(files) == 1 && !isDir(files[0]) {
		return infoOne(files[0], *rt, stdout, stderr)
	}
	return infoMany(files, *runs, *rt, stdout, stderr)
}

// runtimeFlag adds the --runtime flag of info and report, whose default
// leaves the runtime's goroutines out of what.
func runtimeFlag(fs *flag.FlagSet, what string) *bool {
	return fs.Bool("runtime", false, "show the runtime's system goroutines (GC workers, sweeper, scavenger, finalizer) in full, ranked as the program's own; by default they are one group, \"runtime\", after the program's, left out of "+what)
}

// infoOne prints the facts and the tally of one file; runtime is
// --runtime.
func infoOne(path string, runtime bool, stdout, stderr io.Writer) int {
	x, err := readFacts(path, path, runtime)
	if err != nil {
		return fail(stderr, err)
	}
	defer x.f.Close()
	x.print(stdout, path)
	x.tl.print(stdout, x.f)
	return exitOK
}

// facts is what info learns of a file in one pass over its samples.
type facts struct {
	f           *reader.File
	st          reader.Stats
	tl          *tally
	first, last uint64 // timestamps of the earliest and the latest sample
}

// readFacts reads the file at path, which messages call name, run by run:
// a run of samples counts at once, so the work follows the records. The
// tally shows the runtime's goroutines in full if runtime is set. The
// caller closes x.f.
func readFacts(path, name string, runtime bool) (*facts, error) {
	return readFactsThreads(path, name, runtime, nil)
}

// readFactsThreads is readFacts that also puts every thread met in
// threads, if not nil.
func readFactsThreads(path, name string, runtime bool, threads map[busiest.Key]struct{}) (*facts, error) {
	f, err := reader.Open(path)
	if err != nil {
		return nil, err
	}
	x := &facts{f: f, tl: newTally(f, runtime)}
	it := f.Samples()
	for it.NextRun() {
		s, r := it.Sample(), it.Run()
		x.tl.add(s, r.Count)
		if threads != nil {
			threads[busiest.Key{ID: s.ThreadID, Interp: s.InterpreterID}] = struct{}{}
		}
		if ts := s.Timestamp; x.first == 0 || ts < x.first {
			x.first = ts
		}
		x.last = max(x.last, r.Last)
	}
	if err := it.Err(); err != nil {
		f.Close()
		return nil, wrapPath(name, err)
	}
	x.st = it.Stats()
	return x, nil
}

// duration is the time from the start time to the last sample.
func (x *facts) duration() time.Duration {
	h := x.f.Header
	return sinceStart(h.StartTime, x.first, x.last, uint64(h.SampleCount))
}

// sinceStart is the time from start, or the first sample if earlier, to
// the last sample, all in microseconds; 0 if there are no samples. A span
// past what a time.Duration holds (292 years) is the most it holds.
func sinceStart(start, first, last, samples uint64) time.Duration {
	if samples == 0 {
		return 0
	}
	us := last - min(first, start)
	if us > math.MaxInt64/uint64(time.Microsecond) {
		return math.MaxInt64
	}
	return time.Duration(us) * time.Microsecond
}

// print writes the format facts of the file, called name.
func (x *facts) print(stdout io.Writer, name string) {
	f, st := x.f, x.st
	h, ft := f.Header, f.Footer
	_, region := f.SampleRegion()
	fmt.Fprintf(stdout, "file:          %s\n", quoteName(name))
	fmt.Fprintf(stdout, "version:       %d\n", h.Version)
	fmt.Fprintf(stdout, "start time:    %s\n", startTime(h.StartTime))
	fmt.Fprintf(stdout, "interval:      %d us\n", h.Interval)
	fmt.Fprintf(stdout, "samples:       %d\n", h.SampleCount)
	fmt.Fprintf(stdout, "threads:       %d\n", h.ThreadCount)
	fmt.Fprintf(stdout, "strings:       %d\n", ft.StringCount)
	fmt.Fprintf(stdout, "frames:        %d\n", ft.FrameCount)
	fmt.Fprintf(stdout, "compression:   %s\n", h.Compression)
	fmt.Fprintf(stdout, "file size:     %d bytes\n", f.Size)
	fmt.Fprintf(stdout, "sample data:   %d bytes on disk, %d decoded", region, st.DecodedBytes)
	if h.SampleCount > 0 {
		fmt.Fprintf(stdout, " (%.2f bytes/sample on disk)", float64(region)/float64(h.SampleCount))
	}
	fmt.Fprintln(stdout)
	fmt.Fprintf(stdout, "tables:        %d bytes\n", f.Size-int64(h.StringTableOffset)-tachyon.FooterSize)
	fmt.Fprintf(stdout, "duration:      %s (start time to last sample)\n", x.duration())
	fmt.Fprintf(stdout, "records:      ")
	for e := tachyon.Encoding(0); e < tachyon.NumEncodings; e++ {
		fmt.Fprintf(stdout, " %s=%d", e, st.Records[e])
	}
	fmt.Fprintln(stdout)
	fmt.Fprintf(stdout, "samples by:   ")
	for e := tachyon.Encoding(0); e < tachyon.NumEncodings; e++ {
		fmt.Fprintf(stdout, " %s=%d", e, st.SamplesBy[e])
	}
	fmt.Fprintln(stdout)
}

// startTime formats a header start time in µs and in UTC.
func startTime(us uint64) string {
	if us > math.MaxInt64 {
		return fmt.Sprintf("%d us (past any date)", us)
	}
	return fmt.Sprintf("%d us (%s)", us, time.UnixMicro(int64(us)).UTC().Format(time.RFC3339Nano))
}
