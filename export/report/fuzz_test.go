package report_test

import (
	"bytes"
	"testing"

	"github.com/gotachyon/profiler/export/report"
	"github.com/gotachyon/profiler/internal/testing/hostile"
	"github.com/gotachyon/profiler/reader"
)

// FuzzWrite: an accepted file makes a whole page.
func FuzzWrite(f *testing.F) {
	var out bytes.Buffer
	hostile.FuzzExporter(f, func(file *reader.File) error {
		out.Reset()
		return report.Write(&out, file, report.Options{Goroutines: 4, Buckets: 16, MaxNodes: 64, MaxFunctions: 8})
	}, func(t *testing.T, _ *reader.File) {
		if !bytes.Contains(out.Bytes(), []byte("</html>")) {
			t.Fatal("the report is not a whole page")
		}
	})
}
