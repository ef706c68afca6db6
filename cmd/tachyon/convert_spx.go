package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/gotachyon/profiler/export/spx"
	"github.com/gotachyon/profiler/reader"
)

// spxConverter writes SPX reports into a directory.
type spxConverter struct {
	layout    string
	top       int
	host      string
	pid       int
	cmdline   string
	maxFrames int
}

func (c *spxConverter) flags(fs *flag.FlagSet) {
	fs.StringVar(&c.layout, "layout", "per-goroutine", "spx: per-goroutine (one report per goroutine, real time) or sequential (one report, goroutines end to end)")
	fs.IntVar(&c.top, "top", 10, "spx: per-goroutine layout writes the N busiest goroutines (0 = all)")
	fs.StringVar(&c.host, "host", "", "spx: host name of the profiled process (default: this host)")
	fs.IntVar(&c.pid, "pid", 0, "spx: pid of the profiled process, if known")
	fs.StringVar(&c.cmdline, "cmdline", "", "spx: command line of the profiled program (default: names the profile)")
	maxStackFramesFlag(fs, &c.maxFrames)
}

func (c *spxConverter) convert(in input, out string, stdout, stderr io.Writer) error {
	if out == Stdout {
		return usageProblem("--to spx writes a directory of reports (KEY.json and KEY.txt.gz each), which standard output cannot hold: give -o DIR")
	}
	opt, err := c.options(in.name)
	if err != nil {
		return err
	}
	// WriteDir reads every sample, and so validates the file, before it
	// creates the directory: one pass, not a verification first.
	f, err := reader.Open(in.path)
	if err != nil {
		return err
	}
	defer f.Close()
	stage, err := stageDir(out)
	if err != nil {
		return err
	}
	defer dropTemp(stage)
	ws, err := spx.WriteDir(stage, f, opt)
	if err != nil {
		return exportError(in.name, f, err)
	}
	if err := moveInto(stage, out); err != nil {
		return err
	}
	if len(ws) == 0 {
		fmt.Fprintf(stderr, "tachyon convert: %s has no samples: no report written\n", quoteName(in.name))
	}
	for _, w := range ws {
		fmt.Fprintf(stdout, "%s: goroutine %d, %d samples, %d calls, %d functions, wall %d us\n",
			quoteName(filepath.Join(out, w.Key)), w.Goroutine, w.Samples, w.Summary.Calls, w.Summary.Functions, w.Summary.WallTime/1000)
	}
	return nil
}

// options returns the export options of the flags for the profile in.
func (c *spxConverter) options(in string) (spx.Options, error) {
	l, err := spx.ParseLayout(c.layout)
	if err != nil {
		return spx.Options{}, err
	}
	opt := spx.Options{Layout: l, Top: c.top, Host: c.host, PID: c.pid, CommandLine: c.cmdline, MaxStackFrames: c.maxFrames}
	if opt.CommandLine == "" {
		opt.CommandLine = "[gotachyon profile " + filepath.Base(in) + "]"
	}
	if abs, err := filepath.Abs(filepath.Dir(in)); err == nil {
		opt.Dir = abs
	}
	return opt, nil
}

// stageDir creates a new hidden directory beside the directory out, where
// the reports are written before moveInto moves them into out: an export
// that fails adds nothing to out.
func stageDir(out string) (string, error) {
	parent, base := filepath.Split(filepath.Clean(out))
	if parent == "" {
		parent = "."
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp(parent, "."+base[:min(len(base), 64)]+".*.tmp")
	if err != nil {
		return "", fmt.Errorf("%s: creating a temporary directory beside it: %w", quoteName(out), err)
	}
	addTemp(dir)
	return dir, nil
}

// moveInto moves the files of stage into the directory out, creating it.
// It checks first that none would replace anything but a regular file, so
// that a report that cannot be moved leaves out as it was.
func moveInto(stage, out string) error {
	ents, err := os.ReadDir(stage)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	for _, e := range ents {
		dst := filepath.Join(out, e.Name())
		if fi, err := os.Lstat(dst); err == nil && !fi.Mode().IsRegular() {
			return fmt.Errorf("%s: exists and is not a regular file: no report was written", quoteName(dst))
		}
	}
	for _, e := range ents {
		if err := os.Rename(filepath.Join(stage, e.Name()), filepath.Join(out, e.Name())); err != nil {
			return err
		}
	}
	return nil
}
