package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/gotachyon/profiler/export/spx"
)

func init() {
	registerConverter(&converter{
		name:    "spx",
		summary: "SPX (php-spx v0.4) full reports: OUT is a directory receiving KEY.json and KEY.txt.gz per report",
		setup: func(fs *flag.FlagSet) func(in, out string, stdout, stderr io.Writer) error {
			layout := fs.String("layout", "per-goroutine", "spx: per-goroutine (one report per goroutine, real time) or sequential (one report, goroutines end to end)")
			top := fs.Int("top", 10, "spx: per-goroutine layout writes the N busiest goroutines (0 = all)")
			host := fs.String("host", "", "spx: host name of the profiled process (default: this host)")
			pid := fs.Int("pid", 0, "spx: pid of the profiled process, if known")
			cmdline := fs.String("cmdline", "", "spx: command line of the profiled program (default: names the profile)")
			maxFrames := maxStackFramesFlag(fs)
			return func(in, out string, stdout, stderr io.Writer) error {
				l, err := spx.ParseLayout(*layout)
				if err != nil {
					return err
				}
				f, err := openVerified(in)
				if err != nil {
					return err
				}
				defer f.Close()
				opt := spx.Options{Layout: l, Top: *top, Host: *host, PID: *pid, CommandLine: *cmdline, MaxStackFrames: *maxFrames}
				if opt.CommandLine == "" {
					opt.CommandLine = "[gotachyon profile " + filepath.Base(in) + "]"
				}
				if abs, err := filepath.Abs(filepath.Dir(in)); err == nil {
					opt.Dir = abs
				}
				ws, err := spx.WriteDir(out, f, opt)
				if err != nil {
					return wrapPath(in, err)
				}
				if len(ws) == 0 {
					fmt.Fprintf(stderr, "tachyon convert: %s has no samples: no report written\n", in)
				}
				for _, w := range ws {
					fmt.Fprintf(stdout, "%s: goroutine %d, %d samples, %d calls, %d functions, wall %d us\n",
						filepath.Join(out, w.Key), w.Goroutine, w.Samples, w.Summary.Calls, w.Summary.Functions, w.Summary.WallTime/1000)
				}
				return nil
			}
		},
	})
}
