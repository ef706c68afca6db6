package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/gotachyon/profiler/export/nytprof"
)

func init() {
	registerConverter(&converter{
		name:    "nytprof",
		summary: "Devel::NYTProf 5.0 data file for nytprofhtml/nytprofcalls (--compress, --on-cpu, --source, --source-root DIR, --bin EXE, --max-name-bytes N)",
		setup:   setupNYTProf,
	})
}

func setupNYTProf(fs *flag.FlagSet) func(in, out string, stdout, stderr io.Writer) error {
	compress := fs.Bool("compress", false, "nytprof: zlib-compress the records (NYTProf's default form)")
	onCPU := fs.Bool("on-cpu", false, "nytprof: count only on-CPU samples (default: all samples, wall time)")
	source := fs.Bool("source", false, "nytprof: embed the source files the profile names, read from this machine (regular files only, never /proc, /sys or /dev; 16 MiB each, 256 MiB in all)")
	sourceRoot := fs.String("source-root", "", "nytprof: with --source (implied), read source files only inside `DIR`")
	noSource := fs.Bool("no-source", false, "nytprof: embed no source (the default; kept for scripts)")
	bin := fs.String("bin", "", "nytprof: Go executable that was profiled, for the subs' declaration lines")
	maxFrames := maxStackFramesFlag(fs)
	maxNames := fs.Int64("max-name-bytes", nytprof.DefaultMaxNameBytes, "nytprof: most bytes of sub names in the file (a name is repeated per call-tree node); past it the command fails")
	return func(in, out string, stdout, stderr io.Writer) error {
		opt := nytprof.Options{Compress: *compress, OnCPU: *onCPU, Application: filepath.Base(in), MaxStackFrames: *maxFrames, MaxNameBytes: *maxNames}
		if (*source || *sourceRoot != "") && !*noSource {
			opt.ReadSource = nytprof.SourceFiles(nytprof.SourceLimits{Root: *sourceRoot})
		}
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
		if err := nytprof.WriteSource(w, nytprof.FromFile(f), opt); err != nil {
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
