package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/gotachyon/profiler/export/collapsed"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
)

func init() {
	register(&command{
		name:    "collapsed",
		summary: "print folded stacks (outermost;...;innermost count) for flame graphs",
		usage:   "[--frames func|func-line|file-func-line] [--by-goroutine] [--labels] [--state S]... [--max-bytes N] [--runs all|latest|ID] FILE... | DIR",
		run:     runCollapsed,
	})
}

// stateList is a repeatable flag of comma-separated state names.
type stateList []tachyon.State

func (l *stateList) String() string {
	names := make([]string, len(*l))
	for i, s := range *l {
		names[i] = s.String()
	}
	return strings.Join(names, ",")
}

func (l *stateList) Set(v string) error {
	for _, n := range strings.Split(v, ",") {
		s, err := tachyon.ParseState(strings.TrimSpace(n))
		if err != nil {
			return err
		}
		*l = append(*l, s)
	}
	return nil
}

// frameFormat is the --frames flag.
type frameFormat struct{ f *collapsed.FrameFormat }

func (v frameFormat) String() string {
	if v.f == nil {
		return collapsed.FileFuncLine.String()
	}
	return v.f.String()
}

func (v frameFormat) Set(s string) error {
	ff, err := collapsed.ParseFrameFormat(s)
	if err != nil {
		return err
	}
	*v.f = ff
	return nil
}

func runCollapsed(args []string, stdout, stderr io.Writer) int {
	fs := newFlags(commands["collapsed"], stderr)
	var o collapsed.Options
	fs.Var(frameFormat{&o.Frames}, "frames", "frame text: func, func-line or file-func-line (file:func:line, the spec format)")
	fs.BoolVar(&o.ByGoroutine, "by-goroutine", false, "add an outermost frame \"goroutine N\" per goroutine")
	labelsFlag(fs, &o.Labels)
	fs.IntVar(&o.MaxBytes, "max-bytes", collapsed.DefaultMaxBytes, "most bytes kept for the distinct folded stacks; past it the command fails")
	states := (*stateList)(&o.States)
	fs.Var(states, "state", fmt.Sprintf("keep only samples in these states (repeatable or comma list): %s, %s, %s, %s, %s",
		tachyon.Running, tachyon.Runnable, tachyon.Blocked, tachyon.Syscall, tachyon.Unknown))
	runs := runsFlag(fs)
	files, code := parseFlags(fs, args)
	if code != proceed {
		return code
	}
	if len(files) == 0 {
		return usageError(fs, "%v", errNoInput)
	}
	in, release, err := resolveInputRuns(files, *runs, stderr)
	if err != nil {
		return fail(stderr, err)
	}
	defer release()
	// collapsed.Write folds every sample, and so validates the file,
	// before it prints a line: one pass, not a verification first.
	f, err := reader.Open(in.path)
	if err != nil {
		return fail(stderr, err)
	}
	defer f.Close()
	if err := collapsed.Write(stdout, f, o); err != nil {
		return fail(stderr, exportError(in.name, f, err))
	}
	return exitOK
}
