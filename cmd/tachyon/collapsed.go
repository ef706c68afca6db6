package main

import (
	"io"

	"github.com/gotachyon/profiler/collapsed"
)

func init() {
	register(&command{
		name:    "collapsed",
		summary: "print folded stacks (outermost;...;innermost count) for flame graphs",
		usage:   "FILE",
		run:     runCollapsed,
	})
}

func runCollapsed(args []string, stdout, stderr io.Writer) int {
	fs := newFlags(commands["collapsed"], stderr)
	files, ok := parseFlags(fs, args)
	if !ok || len(files) != 1 {
		fs.Usage()
		return exitUsage
	}
	f, err := openVerified(files[0])
	if err != nil {
		return fail(stderr, err)
	}
	defer f.Close()
	if err := collapsed.Write(stdout, f); err != nil {
		return fail(stderr, wrapPath(files[0], err))
	}
	return exitOK
}
