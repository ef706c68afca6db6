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
	binary        string
	maxFrames     int
	maxGoroutines int
	maxSamples    int
}

func (c *pprofConverter) flags(fs *flag.FlagSet) {
	fs.StringVar(&c.typ, "type", "auto", "wall (samples, wall and on_cpu values; on_cpu the default), cpu (samples and cpu of the on-CPU samples, as go build -pgo reads), or auto (cpu when every sample is on a CPU)")
	fs.StringVar(&c.binary, "binary", "", "the profiled Go executable: names the main mapping, and its line table and DWARF give each function's start line (go build -pgo needs them)")
	maxStackFramesFlag(fs, &c.maxFrames)
	fs.IntVar(&c.maxGoroutines, "max-goroutines", pprof.DefaultMaxGoroutines, "goroutines with their own goroutine label (the busiest); the others are labelled goroutine=other; negative: no goroutine label at all (one pass)")
	fs.IntVar(&c.maxSamples, "max-samples", pprof.DefaultMaxSamples, "distinct samples (stack, goroutine, state) the profile may have; past it the conversion fails")
}

func (c *pprofConverter) convert(in input, out string, stdout, _ io.Writer) error {
	t, err := pprof.ParseType(c.typ)
	if err != nil {
		return err
	}
	opt := pprof.Options{Type: t, Binary: c.binary, MaxStackFrames: c.maxFrames, MaxGoroutines: c.maxGoroutines, MaxSamples: c.maxSamples}
	// Convert reads every sample before a byte is written: one pass.
	return exportInOnePass(in, out, stdout, func(w io.Writer, f *reader.File) error {
		return pprof.Write(w, f, opt)
	})
}
