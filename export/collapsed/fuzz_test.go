package collapsed_test

import (
	"testing"

	"github.com/gotachyon/profiler/export/collapsed"
	"github.com/gotachyon/profiler/internal/testing/hostile"
	"github.com/gotachyon/profiler/reader"
)

// FuzzLines: an accepted file folds at most its samples.
func FuzzLines(f *testing.F) {
	var lines []collapsed.Line
	hostile.FuzzExporter(f, func(file *reader.File) (err error) {
		lines, err = collapsed.Lines(file, collapsed.Options{ByGoroutine: true})
		return err
	}, func(t *testing.T, file *reader.File) {
		var total uint64
		for _, l := range lines {
			total += l.Count
		}
		if total > uint64(file.Header.SampleCount) {
			t.Fatalf("%d folded samples, the file has %d", total, file.Header.SampleCount)
		}
	})
}
