package pprof

import (
	"fmt"
	"io"

	"github.com/gotachyon/profiler/internal/self"
	"github.com/gotachyon/profiler/reader"
)

// AtStop returns an export for profiler.WithExport that converts the
// finished profile with o, taking the running executable as o.Binary
// unless o sets one: the mapping is named after the program, and its line
// table gives the start lines go build -pgo needs. For example:
//
//	profiler.Start(profiler.WithMode(sampler.CPU), profiler.WithExport("cpu.pprof", pprof.AtStop(pprof.Options{})))
//
// For go build -pgo, set o.Type to CPU, so that a wall profile's export
// keeps only its on-CPU samples (see the package documentation):
//
//	profiler.Start(profiler.WithExport("default.pgo", pprof.AtStop(pprof.Options{Type: pprof.CPU})))
//
// The running executable must be an ELF Go binary (Linux and the BSDs).
func AtStop(o Options) func(f *reader.File, w io.Writer) error {
	return func(f *reader.File, w io.Writer) error {
		if o.Binary == "" {
			exe, err := self.Executable()
			if err != nil {
				return fmt.Errorf("pprof: the running executable: %w", err)
			}
			o.Binary = exe
		}
		return Write(w, f, o)
	}
}
