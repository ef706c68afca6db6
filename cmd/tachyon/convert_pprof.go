package main

import (
	"bufio"
	"errors"
	"flag"
	"io"
	"os"

	"github.com/gotachyon/profiler/export/pprof"
	"github.com/gotachyon/profiler/internal/stacktab"
	"github.com/gotachyon/profiler/reader"
)

func init() {
	registerConverter(&converter{
		name:    "pprof",
		summary: "gzipped pprof protobuf for go tool pprof, labels goroutine, state, wait_reason (--type wall|cpu)",
		setup: func(fs *flag.FlagSet) func(in, out string, stdout, stderr io.Writer) error {
			typ := fs.String("type", "auto", "time value: wall, cpu, or auto (cpu when every sample is on a CPU)")
			maxFrames := maxStackFramesFlag(fs)
			maxG := fs.Int("max-goroutines", pprof.DefaultMaxGoroutines, "goroutines with their own goroutine label (the busiest); the others are labelled goroutine=other")
			maxS := fs.Int("max-samples", pprof.DefaultMaxSamples, "distinct samples (stack, goroutine, state) the profile may have; past it the conversion fails")
			return func(in, out string, stdout, stderr io.Writer) error {
				t, err := pprof.ParseType(*typ)
				if err != nil {
					return err
				}
				return exportToFile(in, out, func(w io.Writer, f *reader.File) error {
					return pprof.Write(w, f, pprof.Options{Type: t, MaxStackFrames: *maxFrames, MaxGoroutines: *maxG, MaxSamples: *maxS})
				})
			}
		},
	})
}

// exportToFile opens and validates the profile in, then writes it to the
// file out with export. A failed export leaves no output file behind.
func exportToFile(in, out string, export func(io.Writer, *reader.File) error) (err error) {
	f, err := openVerified(in)
	if err != nil {
		return err
	}
	defer f.Close()
	o, err := os.Create(out)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.Remove(out)
		}
	}()
	bw := bufio.NewWriterSize(o, 256<<10)
	if err := export(bw, f); err != nil {
		o.Close()
		return wrapPath(in, err)
	}
	return errors.Join(bw.Flush(), o.Close())
}

// maxStackFramesFlag registers --max-stack-frames, the bound on the frames
// an aggregating export keeps across distinct stacks.
func maxStackFramesFlag(fs *flag.FlagSet) *int {
	return fs.Int("max-stack-frames", stacktab.DefaultMaxFrames,
		"most frames kept across the profile's distinct stacks (8 bytes each); past it the export fails")
}
