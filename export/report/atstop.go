package report

import (
	"io"
	"os"
	"path/filepath"

	"github.com/gotachyon/profiler/reader"
)

// AtStop returns the export function profiler.WithExport takes, for a
// report of the running program written when the profiler stops:
//
//	profiler.Start(profiler.WithExport("profile.html", report.AtStop(report.Options{})))
//
// Unless opt says otherwise, the page is titled with the program's name.
func AtStop(opt Options) func(f *reader.File, w io.Writer) error {
	return func(f *reader.File, w io.Writer) error {
		o := opt
		if o.Title == "" && len(os.Args) > 0 {
			o.Title = "Tachyon profile of " + filepath.Base(os.Args[0])
		}
		return Write(w, f, o)
	}
}
