package main

import (
	"flag"
	"io"

	"github.com/gotachyon/profiler/export/pprof"
	"github.com/gotachyon/profiler/reader"
)

// pprofConverter writes a gzipped pprof protobuf for go tool pprof.
type pprofConverter struct {
	typ           string
	maxFrames     int
	maxGoroutines int
	maxSamples    int
}

func (c *pprofConverter) flags(fs *flag.FlagSet) {
	fs.StringVar(&c.typ, "type", "auto", "time value: wall, cpu, or auto (cpu when every sample is on a CPU)")
	maxStackFramesFlag(fs, &c.maxFrames)
	fs.IntVar(&c.maxGoroutines, "max-goroutines", pprof.DefaultMaxGoroutines, "goroutines with their own goroutine label (the busiest); the others are labelled goroutine=other")
	fs.IntVar(&c.maxSamples, "max-samples", pprof.DefaultMaxSamples, "distinct samples (stack, goroutine, state) the profile may have; past it the conversion fails")
}

func (c *pprofConverter) convert(in, out string, _, _ io.Writer) error {
	t, err := pprof.ParseType(c.typ)
	if err != nil {
		return err
	}
	opt := pprof.Options{Type: t, MaxStackFrames: c.maxFrames, MaxGoroutines: c.maxGoroutines, MaxSamples: c.maxSamples}
	return exportToFile(in, out, func(w io.Writer, f *reader.File) error {
		return pprof.Write(w, f, opt)
	})
}
