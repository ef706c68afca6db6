package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/gotachyon/profiler/internal/leaks"
	"github.com/gotachyon/profiler/internal/merge"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
)

func init() {
	register(&command{
		name:    "leaks",
		summary: "list the goroutines blocked in one wait for whole slices of a wall profile, by creation site and wait, growing groups first, with their count over time (a DIR of segments: as many slices as segments)",
		usage:   "[--all] [--slices N] [--runs all|latest|ID] FILE... | DIR",
		run:     runLeaks,
	})
}

func runLeaks(args []string, stdout, stderr io.Writer) int {
	fs := newFlags(commands["leaks"], stderr)
	runs := runsFlag(fs)
	all := fs.Bool("all", false, "list also the groups blocked through the last slice that do not grow (idle workers, or leaks older than the profile)")
	nslices := fs.Int("slices", 0, "cut the profile's time in `N` slices (default: for one file one a second, 3 to 12; for segments one a segment)")
	files, code := parseFlags(fs, args)
	if code != proceed {
		return code
	}
	if len(files) == 0 {
		return usageError(fs, "%v", errNoInput)
	}
	if *nslices < 0 || *nslices > 1000 {
		return usageError(fs, "--slices %d: want 1 to 1000", *nslices)
	}
	files, release := unfinished(files, stderr)
	defer release()
	paths := files
	if len(files) > 1 || isDir(files[0]) {
		var err error
		if paths, err = expandRuns(files, *runs); err != nil {
			return fail(stderr, err)
		}
	}
	ins := make([]leaks.Input, 0, len(paths))
	defer func() {
		for _, in := range ins {
			in.File.Close()
		}
	}()
	runOf := map[string]int{} // --runs all: each run's goroutines apart
	if *runs == merge.AllRuns {
		for r, run := range merge.Runs(paths) {
			for _, p := range run.Files {
				runOf[p] = r
			}
		}
	}
	for _, p := range paths {
		f, err := reader.Open(p)
		if err != nil {
			return fail(stderr, err)
		}
		ins = append(ins, leaks.Input{Name: p, File: f, Run: runOf[p]})
	}
	res, err := leaks.Analyze(ins, leaks.Options{Slices: *nslices})
	if fe := (*leaks.FileError)(nil); errors.As(err, &fe) {
		return fail(stderr, wrapPath(fe.Name, fe.Err))
	} else if err != nil {
		return fail(stderr, err)
	}
	printLeaks(stdout, inputName(files), res, *all)
	return exitOK
}

// printLeaks writes res, the analysis of the profile called name; all
// lists the groups that do not grow too.
func printLeaks(w io.Writer, name string, res *leaks.Result, all bool) {
	fmt.Fprintf(w, "profile:  %s\n", quoteName(name))
	if len(res.Slices) == 0 {
		fmt.Fprintln(w, "no samples")
		return
	}
	first, last := res.Slices[0], res.Slices[len(res.Slices)-1]
	span := time.Duration(last.End-first.Start) * time.Microsecond
	fmt.Fprintf(w, "time:     %s in %d slices of %s; %d goroutines sampled\n", span.Round(time.Millisecond), len(res.Slices),
		(span / time.Duration(len(res.Slices))).Round(time.Millisecond), res.Goroutines)
	fmt.Fprintf(w, "counts:   goroutines blocked at one stack from a slice's start to its end, by slice\n")
	listed := len(res.Groups) - res.Flat
	if listed == 0 {
		fmt.Fprintln(w, "\nno group of blocked goroutines grows, and none is proved unable to wake")
	}
	n := 0
	for i := range res.Groups {
		g := &res.Groups[i]
		if !g.Listed && !all {
			continue
		}
		n++
		printGroup(w, n, g)
	}
	if res.Flat > 0 && !all {
		fmt.Fprintf(w, "\nnot listed: %d %s of %d goroutines blocked through the last slice without growing (idle workers, or leaks older than the profile); --all lists them\n",
			res.Flat, plural(res.Flat, "group", "groups"), res.FlatGoroutines)
	}
	if !res.Marked {
		fmt.Fprintln(w, "\nno goroutine is marked unreachable: the runtime's goroutine leak profile (Go 1.27 and later) was not taken, or found none")
	}
}

// printGroup writes group g, the n-th listed.
func printGroup(w io.Writer, n int, g *leaks.Group) {
	site := g.Site
	if site == "" {
		site = "(not known: created before the profile began)"
	}
	fmt.Fprintf(w, "\n#%d  created at %s\n", n, site)
	verdict := "does not grow"
	if g.Grows {
		verdict = fmt.Sprintf("grows %.1f/s, %d new since the start", g.Rate, g.New)
	}
	fmt.Fprintf(w, "    %d blocked at the end; %s\n", g.Last(), verdict)
	fmt.Fprintf(w, "    count:  %s  %s\n", sparkline(g.Counts), countList(g.Counts))
	if u := g.LastUnreachable(); u > 0 {
		fmt.Fprintf(w, "    can never wake: %d of %d (the runtime's goroutine leak profile proved them unreachable)\n", u, g.Last())
	}
	fmt.Fprintln(w, "    wait:")
	printWait(w, g.Wait)
}

// printWait writes a wait stack, innermost first: its 8 innermost frames
// and its outermost, the goroutine's start.
func printWait(w io.Writer, frames []tachyon.Frame) {
	for i, f := range frames {
		if i == 8 && len(frames) > 9 {
			fmt.Fprintf(w, "      ... %d more\n", len(frames)-9)
			f = frames[len(frames)-1]
			fmt.Fprintf(w, "      %s\n", frameText(f))
			return
		}
		fmt.Fprintf(w, "      %s\n", frameText(f))
	}
}

// frameText is one frame as the wait lists show it.
func frameText(f tachyon.Frame) string {
	if f.File == "" {
		return quoteName(f.Func)
	}
	return fmt.Sprintf("%s %s:%d", quoteName(f.Func), quoteName(f.File), f.Line)
}

// countList is the counts, all of them up to 24, else the first, the
// largest and the last.
func countList(c []int) string {
	if len(c) <= 24 {
		var b strings.Builder
		for i, n := range c {
			if i > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprint(&b, n)
		}
		return b.String()
	}
	m := 0
	for _, n := range c {
		m = max(m, n)
	}
	return fmt.Sprintf("first %d, most %d, last %d", c[0], m, c[len(c)-1])
}

// sparkline draws counts as block characters from 0 to the largest.
func sparkline(c []int) string {
	const bars = "▁▂▃▄▅▆▇█"
	levels := []rune(bars)
	m := 0
	for _, n := range c {
		m = max(m, n)
	}
	var b strings.Builder
	for _, n := range c {
		i := 0
		if m > 0 {
			i = n * (len(levels) - 1) / m
		}
		b.WriteRune(levels[i])
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
