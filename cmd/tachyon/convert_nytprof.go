package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/gotachyon/profiler/nytprof"
)

func init() {
	registerConverter(&converter{
		name:    "nytprof",
		summary: "Devel::NYTProf 5.0 data file for nytprofhtml/nytprofcalls (--compress, --on-cpu, --no-source, --bin EXE)",
		setup:   setupNYTProf,
	})
}

func setupNYTProf(fs *flag.FlagSet) func(in, out string, stdout, stderr io.Writer) error {
	compress := fs.Bool("compress", false, "nytprof: zlib-compress the records (NYTProf's default form)")
	onCPU := fs.Bool("on-cpu", false, "nytprof: count only on-CPU samples (default: all samples, wall time)")
	noSource := fs.Bool("no-source", false, "nytprof: do not embed source files")
	bin := fs.String("bin", "", "nytprof: Go executable that was profiled, for the subs' declaration lines")
	return func(in, out string, stdout, stderr io.Writer) error {
		opt := nytprof.Options{Compress: *compress, OnCPU: *onCPU, NoSource: *noSource,
			Application: filepath.Base(in)}
		if *bin != "" {
			decl, err := nytprof.DeclLines(*bin)
			if err != nil {
				return err
			}
			opt.DeclLine = decl
		}
		f, err := openVerified(in)
		if err != nil {
			return err
		}
		defer f.Close()
		w, err := os.Create(out)
		if err != nil {
			return err
		}
		if err := nytprof.Export(w, nytprof.FromFile(f), opt); err != nil {
			w.Close()
			os.Remove(out)
			return wrapPath(in, err)
		}
		if err := w.Close(); err != nil {
			return fmt.Errorf("%s: %w", out, err)
		}
		return nil
	}
}
