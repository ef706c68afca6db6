package main

import (
	"errors"
	"flag"
	"io"
	"path/filepath"

	"github.com/gotachyon/profiler/export/speedscope"
	"github.com/gotachyon/profiler/reader"
)

func init() {
	registerConverter(&converter{
		name:    "speedscope",
		summary: "speedscope JSON, one sampled profile per goroutine for the busiest (--top N), the rest merged",
		setup: func(fs *flag.FlagSet) func(in, out string, stdout, stderr io.Writer) error {
			top := fs.Int("top", speedscope.DefaultTop, "goroutines with a profile of their own (busiest first; -1 for all); the rest are merged")
			maxFrames := maxStackFramesFlag(fs)
			return func(in, out string, stdout, stderr io.Writer) error {
				if *top == 0 {
					return errors.New("--top must be at least 1, or -1 for every goroutine")
				}
				o := speedscope.Options{Top: *top, Name: filepath.Base(in), MaxStackFrames: *maxFrames}
				return exportToFile(in, out, func(w io.Writer, f *reader.File) error {
					return speedscope.Write(w, f, o)
				})
			}
		},
	})
}
