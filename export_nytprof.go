package profiler

import (
	"io"
	"os"
	"path/filepath"

	"github.com/gotachyon/profiler/nytprof"
	"github.com/gotachyon/profiler/reader"
)

// WithNYTProf asks Stop to also write the profile as a Devel::NYTProf 5.0
// file at path (see package nytprof), for nytprofhtml and nytprofcalls.
// Unless opts says otherwise, subs get their declaration lines from the
// running executable's line table and the report is titled with the
// program's name.
func WithNYTProf(path string, opts nytprof.Options) Option {
	return WithExport(path, func(f *reader.File, w io.Writer) error {
		o := opts
		if o.DeclLine == nil {
			if decl, err := nytprof.DeclLines("/proc/self/exe"); err == nil {
				o.DeclLine = decl
			}
		}
		if o.Application == "" && len(os.Args) > 0 {
			o.Application = filepath.Base(os.Args[0])
		}
		return nytprof.ExportFile(w, f, o)
	})
}
