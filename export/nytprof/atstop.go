package nytprof

import (
	"io"
	"os"
	"path/filepath"

	"github.com/gotachyon/profiler/reader"
)

// AtStop returns the export function profiler.WithExport takes, for a
// NYTProf file of the running program written when the profiler stops:
//
//	profiler.Start(profiler.WithExport("nytprof.out", nytprof.AtStop(nytprof.Options{})))
//
// Unless opt says otherwise, subs get their declaration lines from the
// running executable's line table and the report is titled with the
// program's name.
func AtStop(opt Options) func(f *reader.File, w io.Writer) error {
	return func(f *reader.File, w io.Writer) error {
		o := opt
		if o.DeclLine == nil {
			if decl, err := DeclLines("/proc/self/exe"); err == nil {
				o.DeclLine = decl
			}
		}
		if o.Application == "" && len(os.Args) > 0 {
			o.Application = filepath.Base(os.Args[0])
		}
		return Write(w, f, o)
	}
}
