package main

import (
	"fmt"
	"io"
	"time"

	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
)

func init() {
	register(&command{
		name:    "info",
		summary: "print a file's header facts, sizes, duration, records per encoding, then its states, goroutine groups and top functions",
		usage:   "FILE",
		run:     runInfo,
	})
}

func runInfo(args []string, stdout, stderr io.Writer) int {
	fs := newFlags(commands["info"], stderr)
	files, code := parseFlags(fs, args)
	if code != proceed {
		return code
	}
	if len(files) != 1 {
		return usageError(fs, "needs exactly one FILE, got %d", len(files))
	}
	path := files[0]
	f, err := reader.Open(path)
	if err != nil {
		return fail(stderr, err)
	}
	defer f.Close()
	it := f.Samples()
	tl := newTally(f)
	var first, last uint64
	for it.NextRun() { // a run of samples counts at once: work per record
		s, r := it.Sample(), it.Run()
		tl.add(s, r.Count)
		if ts := s.Timestamp; first == 0 || ts < first {
			first = ts
		}
		last = max(last, r.Last)
	}
	if err := it.Err(); err != nil {
		return fail(stderr, wrapPath(path, err))
	}
	st := it.Stats()
	h, ft := f.Header, f.Footer
	_, region := f.SampleRegion()
	start := time.UnixMicro(int64(h.StartTime)).UTC().Format(time.RFC3339Nano)
	fmt.Fprintf(stdout, "file:          %s\n", path)
	fmt.Fprintf(stdout, "version:       %d\n", h.Version)
	fmt.Fprintf(stdout, "start time:    %d us (%s)\n", h.StartTime, start)
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
	var dur uint64
	if h.SampleCount > 0 {
		dur = last - min(first, h.StartTime)
	}
	fmt.Fprintf(stdout, "duration:      %s (start time to last sample)\n", time.Duration(dur)*time.Microsecond)
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
	tl.print(stdout, f)
	return exitOK
}
