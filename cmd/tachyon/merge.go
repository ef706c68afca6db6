package main

import (
	"fmt"
	"io"
	"os"

	"github.com/gotachyon/profiler/internal/merge"
)

func init() {
	register(&command{
		name:    "merge",
		summary: "write one file from the segments of one run (files, or directories of *.tachyon files), in order",
		usage:   "-o OUT [--compression auto|zstd|none] [--runs all|latest|ID] FILE|DIR...",
		run:     runMerge,
	})
}

func runMerge(args []string, stdout, stderr io.Writer) int {
	fs := newFlags(commands["merge"], stderr)
	out := fs.String("o", "", "output `file` (- for standard output)")
	comp := fs.String("compression", "auto", "output compression: zstd, none, or auto (zstd when any input uses it)")
	runs := runsFlag(fs)
	files, code := parseFlags(fs, args)
	switch {
	case code != proceed:
		return code
	case len(files) == 0:
		return usageError(fs, "%v", errNoInput)
	case *out == "":
		return usageError(fs, "needs -o OUT")
	}
	c, err := merge.ParseCompression(*comp)
	if err != nil {
		return usageError(fs, "%v", err)
	}
	paths, err := expandRuns(files, *runs)
	if err != nil {
		return fail(stderr, err)
	}
	if p := sameFile(*out, paths); p != "" && *out != Stdout {
		return usageError(fs, "-o %s is the input %s", *out, p)
	}
	st, err := mergeToFile(*out, paths, merge.Options{Compression: c, SeparateRuns: *runs == merge.AllRuns}, stdout)
	if err != nil {
		return fail(stderr, err)
	}
	warnCut(stderr, st)
	say := stdout
	if *out == Stdout { // the profile is on standard output: what it holds goes to stderr
		say = stderr
	}
	fmt.Fprintf(say, "%s: %d samples of %d threads, %d frames, from %d files\n", *out, st.Samples, st.Threads, st.Frames, len(paths))
	return exitOK
}

// sameFile returns the input that out is, if any: writing it would
// truncate it while it is read.
func sameFile(out string, paths []string) string {
	fo, err := os.Stat(out)
	if err != nil {
		return ""
	}
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil && os.SameFile(fo, fi) {
			return p
		}
	}
	return ""
}

// mergeToFile merges paths into the file out. The merge is written to a
// temporary file that replaces out only once it is whole: a merge that
// fails (a header or a sample record the reader rejects, in any input, a
// thread going back in time) leaves out as it was. Out Stdout is stdout.
func mergeToFile(out string, paths []string, opts merge.Options, stdout io.Writer) (merge.Stats, error) {
	o, err := createOutputStd(out, stdout)
	if err != nil {
		return merge.Stats{}, err
	}
	st, err := merge.Merge(o.File, paths, opts)
	if err != nil {
		o.discard()
		return st, err
	}
	return st, o.commit()
}
