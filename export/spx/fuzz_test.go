package spx_test

import (
	"testing"

	"github.com/gotachyon/profiler/export/spx"
	"github.com/gotachyon/profiler/internal/testing/hostile"
	"github.com/gotachyon/profiler/reader"
)

// FuzzConvert: an accepted file converts to SPX reports, in both layouts;
// a rejected one gives an error.
func FuzzConvert(f *testing.F) {
	dir := f.TempDir()
	hostile.FuzzExporter(f, func(file *reader.File) error {
		for _, l := range []spx.Layout{spx.PerGoroutine, spx.Sequential} {
			if _, err := spx.WriteDir(dir, file, spx.Options{Layout: l, Top: 4, Host: "fuzz"}); err != nil {
				return err
			}
		}
		return nil
	}, nil)
}
