package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/gotachyon/profiler/export/dcpi"
	"github.com/gotachyon/profiler/reader"
)

func init() {
	registerConverter(&converter{
		name:    "dcpi",
		summary: "DCPI profile (per-address sample histogram of --binary PROG); approximate: one address per leaf source line",
		setup: func(fs *flag.FlagSet) func(in, out string, stdout, stderr io.Writer) error {
			binary := fs.String("binary", "", "dcpi: the profiled Go executable (its line table maps leaf lines to addresses)")
			all := fs.Bool("all-samples", false, "dcpi: count every sample as event 'wallclock' instead of on-CPU samples as 'cycles'")
			return func(in, out string, stdout, stderr io.Writer) error {
				if *binary == "" {
					return errors.New("convert --to dcpi needs --binary PROG (the profiled executable)")
				}
				img, err := dcpi.OpenImage(*binary)
				if err != nil {
					return err
				}
				defer img.Close()
				var st dcpi.WriteStats
				if err := exportToFile(in, out, func(w io.Writer, f *reader.File) error {
					return dcpi.Write(w, f, dcpi.Options{Image: img, All: *all, Stats: &st})
				}); err != nil {
					return err
				}
				fmt.Fprintf(stderr, "tachyon convert: note: %s stores no PCs; each leaf source line was mapped to the first "+
					"instruction of that line in %s (an approximation, valid only if it is the profiled binary)\n", in, *binary)
				if st.Unmapped > 0 {
					fmt.Fprintf(stderr, "tachyon convert: %d samples (%d leaf lines) not found in the line table were left out\n",
						st.Unmapped, st.UnmappedLines)
				}
				fmt.Fprintf(stdout, "%s: %d samples at %d addresses (of %d samples considered; %d distinct leaf lines)\n",
					out, st.Written.Samples, st.Written.Addresses, st.Samples, st.Lines)
				return nil
			}
		},
	})
}
