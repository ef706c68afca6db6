package profiler

import (
	"io"
	"os"
	"path/filepath"

	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/report"
	"github.com/gotachyon/profiler/sampler"
)

// WithReport asks Stop to also write a self-contained HTML report of the
// profile at path (see package report): a flame graph, a timeline of the
// busiest goroutines colored by state and a table of the top functions. The
// page names the program, the sampling mode and, when chosen with
// WithBackend, the backend.
func WithReport(path string) Option {
	return func(c *config) error {
		return WithExport(path, func(f *reader.File, w io.Writer) error {
			opt := report.Options{Mode: c.mode.String()}
			if c.backend != sampler.Auto {
				opt.Backend = c.backend.String()
			}
			if len(os.Args) > 0 {
				opt.Title = "Tachyon profile of " + filepath.Base(os.Args[0])
			}
			return report.Write(w, f, opt)
		})(c)
	}
}
