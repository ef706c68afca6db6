package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/gotachyon/profiler/export/pprof"
	"github.com/gotachyon/profiler/reader"
)

// pprofConverter writes a gzipped pprof protobuf for go tool pprof.
type pprofConverter struct {
	typ             string
	binary          string
	maxFrames       int
	maxGoroutines   int
	maxSamples      int
	maxSampleFrames int
}

func (c *pprofConverter) flags(fs *flag.FlagSet) {
	fs.StringVar(&c.typ, "type", "auto", "wall (samples, wall and on_cpu values; on_cpu the default), cpu (samples and cpu of the on-CPU samples, as go build -pgo reads), or auto (cpu when every sample is on a CPU)")
	fs.StringVar(&c.binary, "binary", "", "the profiled Go executable: names the main mapping, and its line table and DWARF give each function's start line (go build -pgo needs them; see 'tachyon pgo')")
	maxStackFramesFlag(fs, &c.maxFrames)
	fs.IntVar(&c.maxGoroutines, "max-goroutines", pprof.DefaultMaxGoroutines, "goroutines with their own goroutine label (the busiest); the others are labelled goroutine=other; negative: no goroutine label at all (one pass)")
	fs.IntVar(&c.maxSamples, "max-samples", pprof.DefaultMaxSamples, "distinct samples (stack, goroutine, state) the profile may have; past it the conversion fails")
	fs.IntVar(&c.maxSampleFrames, "max-sample-frames", pprof.DefaultMaxSampleFrames, "frames the distinct samples may list in all, each its stack's (8 bytes each while encoding); past it the conversion fails")
}

// convert writes the profile. Its guard rails for go build -pgo: an
// output named *.pgo, which is for it, is refused without --binary (no
// start lines: go build refuses the file) and for a wall profile (its
// samples count parked goroutines, which go build would weigh as CPU
// time); --type cpu without --binary, and a wall profile with it, get a
// note saying so. Each names the command that makes a PGO profile.
func (c *pprofConverter) convert(in input, out string, stdout, stderr io.Writer) error {
	t, err := pprof.ParseType(c.typ)
	if err != nil {
		return err
	}
	pgo := strings.HasSuffix(out, ".pgo")
	if pgo && c.binary == "" {
		return usageProblem(fmt.Sprintf("-o %s: go build -pgo refuses a profile without start lines (\"missing Function.start_line\"): give --binary PROG, the profiled executable; %s", out, pgoHint))
	}
	opt := pprof.Options{Type: t, Binary: c.binary, MaxStackFrames: c.maxFrames, MaxGoroutines: c.maxGoroutines, MaxSamples: c.maxSamples, MaxSampleFrames: c.maxSampleFrames}
	wall := false
	// Convert reads every sample before a byte is written: one pass.
	err = exportInOnePass(in, out, stdout, func(w io.Writer, f *reader.File) error {
		p, err := pprof.Convert(f, opt)
		if err != nil {
			return err
		}
		wall = p.SampleType[len(p.SampleType)-1].Type != pprof.TypeCPU
		if wall && pgo {
			return usageProblem(fmt.Sprintf("-o %s: this is a wall profile, whose samples count parked goroutines too, and go build -pgo would weigh them as CPU time: give --type cpu (the on-CPU samples only); %s", out, pgoHint))
		}
		if err := p.Write(w); err != nil {
			return fmt.Errorf("pprof: %w", err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	switch {
	case !wall && c.binary == "":
		if t == pprof.CPU {
			fmt.Fprintf(stderr, "tachyon convert: note: without --binary the profile has no start lines: go tool pprof reads it, go build -pgo refuses it; %s\n", pgoHint)
		}
	case wall && c.binary != "":
		fmt.Fprintf(stderr, "tachyon convert: note: a wall profile: its samples value counts parked goroutines too, which go build -pgo would weigh as CPU time; %s (the on-CPU samples only)\n", pgoHint)
	}
	return nil
}
