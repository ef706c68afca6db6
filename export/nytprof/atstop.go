package nytprof

import (
	"io"

	"github.com/gotachyon/profiler/internal/self"
	"github.com/gotachyon/profiler/reader"
)

// AtStop returns the export function profiler.WithExport takes, for a
// NYTProf file of the running program written when the profiler stops:
//
//	profiler.Start(profiler.WithExport("nytprof.out", nytprof.AtStop(nytprof.Options{})))
//
// Unless opt says otherwise, subs get their declaration lines from the
// running executable's line table (read at Stop) and the report is titled
// with the program's name.
func AtStop(opt Options) func(f *reader.File, w io.Writer) error {
	if opt.Application == "" {
		opt.Application = self.Name()
	}
	return func(f *reader.File, w io.Writer) error {
		o := opt
		if o.DeclLine == nil {
			if exe, err := self.Executable(); err == nil {
				o.DeclLine, _ = DeclLines(exe)
			}
		}
		return Write(w, f, o)
	}
}
