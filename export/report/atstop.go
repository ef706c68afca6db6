package report

import (
	"io"

	"github.com/gotachyon/profiler/internal/self"
	"github.com/gotachyon/profiler/reader"
)

// AtStop returns the export function profiler.WithExport takes, for a
// report of the running program written when the profiler stops:
//
//	profiler.Start(profiler.WithExport("profile.html", report.AtStop(report.Options{})))
//
// Unless opt says otherwise, the page is titled with the program's name.
func AtStop(opt Options) func(f *reader.File, w io.Writer) error {
	if opt.Title == "" && self.Name() != "" {
		opt.Title = "Tachyon profile of " + self.Name()
	}
	return func(f *reader.File, w io.Writer) error { return Write(w, f, opt) }
}
