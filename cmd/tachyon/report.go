package main

import (
	"bufio"
	"fmt"
	"io"
	"path/filepath"

	"github.com/gotachyon/profiler/export/report"
	"github.com/gotachyon/profiler/reader"
)

func init() {
	register(&command{
		name:    "report",
		summary: "write a self-contained HTML report: views by state, goroutine groups over time, flame graph, top functions",
		usage:   "FILE... | DIR -o report.html [-title T] [-groups N] [-goroutines N] [-buckets N] [-slices N] [-max-nodes N] [-mode M] [-backend B] [--runtime] [--runs all|latest|ID]",
		run:     runReport,
	})
}

func runReport(args []string, stdout, stderr io.Writer) int {
	fs := newFlags(commands["report"], stderr)
	out := fs.String("o", "", "output `file` (- for standard output)")
	var opt report.Options
	fs.StringVar(&opt.Title, "title", "", "page title (default: Tachyon profile FILE)")
	fs.StringVar(&opt.Mode, "mode", "", "sampling mode to show (default: inferred from the states)")
	fs.StringVar(&opt.Backend, "backend", "", "sampler backend to show")
	fs.IntVar(&opt.Groups, "groups", report.DefaultGroups, "timeline lanes of goroutine groups: the `N` busiest (running, runnable)")
	fs.IntVar(&opt.Goroutines, "goroutines", report.DefaultGoroutines, "goroutine lanes shown inside their groups: the `N` busiest, spread over the groups")
	fs.IntVar(&opt.Buckets, "buckets", report.DefaultBuckets, "time buckets (columns) of the timeline")
	fs.IntVar(&opt.Slices, "slices", report.DefaultSlices, "at most `N` time slices a brushed range snaps to")
	fs.IntVar(&opt.MaxNodes, "max-nodes", report.DefaultMaxNodes, "call-tree nodes kept for the flame graph (the heaviest; fewer if the page would pass 4.5 MB)")
	rt := runtimeFlag(fs, "the flame graph, the views and the tables")
	runs := runsFlag(fs)
	files, code := parseFlags(fs, args)
	switch {
	case code != proceed:
		return code
	case len(files) == 0:
		return usageError(fs, "%v", errNoInput)
	case *out == "":
		return usageError(fs, "needs -o OUT (a file, or - for standard output)")
	}
	in, release, err := resolveInputRuns(files, *runs, stderr)
	if err != nil {
		return fail(stderr, err)
	}
	defer release()
	opt.Runtime = *rt
	if opt.Title == "" {
		opt.Title = "Tachyon profile " + filepath.Base(in.name)
	}
	// Aggregate reads, and so validates, every sample before a byte is
	// written: one pass, and a verification only to explain a failure.
	f, err := reader.Open(in.path)
	if err != nil {
		return fail(stderr, err)
	}
	defer f.Close()
	p, err := report.Aggregate(f, opt)
	if err != nil {
		return fail(stderr, exportError(in.name, f, err))
	}
	if *out == "-" {
		bw := bufio.NewWriter(stdout)
		if err := p.WriteHTML(bw); err != nil {
			return fail(stderr, err)
		}
		if err := bw.Flush(); err != nil {
			return fail(stderr, err)
		}
		return exitOK
	}
	w, err := createOutput(*out)
	if err != nil {
		return fail(stderr, err)
	}
	if err := p.WriteHTML(w); err != nil {
		w.discard()
		return fail(stderr, fmt.Errorf("%s: %w", quoteName(*out), err))
	}
	if err := w.commit(); err != nil {
		return fail(stderr, err)
	}
	return exitOK
}
