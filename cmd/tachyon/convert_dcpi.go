package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/gotachyon/profiler/export/dcpi"
	"github.com/gotachyon/profiler/reader"
)

// dcpiConverter writes a DCPI profile: a sample histogram over the
// addresses of the --binary executable.
type dcpiConverter struct {
	binary string
	all    bool
}

func (c *dcpiConverter) flags(fs *flag.FlagSet) {
	fs.StringVar(&c.binary, "binary", "", "dcpi: the profiled Go executable (its line table maps leaf lines to addresses)")
	fs.BoolVar(&c.all, "all-samples", false, "dcpi: count every sample as event 'wallclock' instead of on-CPU samples as 'cycles'")
}

func (c *dcpiConverter) convert(in input, out string, stdout, stderr io.Writer) error {
	if c.binary == "" {
		return usageProblem("--to dcpi needs --binary PROG (the profiled executable)")
	}
	img, err := dcpi.OpenImage(c.binary)
	if err != nil {
		return err
	}
	defer img.Close()
	var st dcpi.WriteStats
	if err := exportToFile(in, out, stdout, func(w io.Writer, f *reader.File) error {
		return dcpi.Write(w, f, dcpi.Options{Image: img, All: c.all, Stats: &st})
	}); err != nil {
		return err
	}
	if out == Stdout { // the profile is on standard output: what it holds goes to stderr
		stdout = stderr
	}
	c.report(in.name, out, st, stdout, stderr)
	return nil
}

// report says what the conversion of in to out wrote and how approximate
// it is.
func (c *dcpiConverter) report(in, out string, st dcpi.WriteStats, stdout, stderr io.Writer) {
	fmt.Fprintf(stderr, "tachyon convert: note: %s stores no PCs; each leaf source line was mapped to the first "+
		"instruction of that line in %s (an approximation, valid only if it is the profiled binary)\n", quoteName(in), quoteName(c.binary))
	if st.Unmapped > 0 {
		fmt.Fprintf(stderr, "tachyon convert: %d samples (%d leaf lines) not found in the line table were left out\n",
			st.Unmapped, st.UnmappedLines)
	}
	fmt.Fprintf(stdout, "%s: %d samples at %d addresses (of %d samples considered; %d distinct leaf lines)\n",
		quoteName(out), st.Written.Samples, st.Written.Addresses, st.Samples, st.Lines)
}
