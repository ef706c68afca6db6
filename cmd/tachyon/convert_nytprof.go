package main

import (
	"flag"
	"io"
	"path/filepath"

	"github.com/gotachyon/profiler/export/nytprof"
	"github.com/gotachyon/profiler/reader"
)

// nytprofConverter writes a Devel::NYTProf data file.
type nytprofConverter struct {
	compress     bool
	onCPU        bool
	source       bool
	sourceRoot   string
	noSource     bool
	bin          string
	maxFrames    int
	maxNameBytes int64
}

func (c *nytprofConverter) flags(fs *flag.FlagSet) {
	fs.BoolVar(&c.compress, "compress", false, "nytprof: zlib-compress the records (NYTProf's default form)")
	fs.BoolVar(&c.onCPU, "on-cpu", false, "nytprof: count only on-CPU samples (default: all samples, wall time)")
	fs.BoolVar(&c.source, "source", false, "nytprof: embed the source files the profile names, read from this machine (regular files only, never /proc, /sys or /dev; 16 MiB each, 256 MiB in all)")
	fs.StringVar(&c.sourceRoot, "source-root", "", "nytprof: with --source (implied), read source files only inside `DIR`")
	fs.BoolVar(&c.noSource, "no-source", false, "nytprof: embed no source (the default; kept for scripts)")
	fs.StringVar(&c.bin, "bin", "", "nytprof: Go executable that was profiled, for the subs' declaration lines")
	maxStackFramesFlag(fs, &c.maxFrames)
	fs.Int64Var(&c.maxNameBytes, "max-name-bytes", nytprof.DefaultMaxNameBytes, "nytprof: most bytes of sub names in the file (a name is repeated per call-tree node); past it the command fails")
}

func (c *nytprofConverter) convert(in input, out string, stdout, _ io.Writer) error {
	opt, err := c.options(in.name)
	if err != nil {
		return err
	}
	return exportInOnePass(in, out, stdout, func(w io.Writer, f *reader.File) error {
		return nytprof.WriteSource(w, nytprof.FromFile(f), opt)
	})
}

// options returns the export options of the flags for the profile in,
// with the declaration lines of --bin's subs.
func (c *nytprofConverter) options(in string) (nytprof.Options, error) {
	opt := nytprof.Options{Compress: c.compress, OnCPU: c.onCPU, Application: filepath.Base(in),
		MaxStackFrames: c.maxFrames, MaxNameBytes: c.maxNameBytes}
	if (c.source || c.sourceRoot != "") && !c.noSource {
		opt.ReadSource = nytprof.SourceFiles(nytprof.SourceLimits{Root: c.sourceRoot})
	}
	if c.bin != "" {
		decl, err := nytprof.DeclLines(c.bin)
		if err != nil {
			return opt, err
		}
		opt.DeclLine = decl
	}
	return opt, nil
}
