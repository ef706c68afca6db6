package report_test

import (
	"bytes"
	"testing"

	"github.com/gotachyon/profiler/internal/hostile"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/report"
)

// FuzzWrite feeds arbitrary bytes to the reader: a file it rejects must
// not make a report; one it accepts must make a whole page.
func FuzzWrite(f *testing.F) {
	for _, b := range hostile.Seeds() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := reader.NewFileBytes(data)
		if err != nil {
			return
		}
		var out bytes.Buffer
		err = report.Write(&out, file, report.Options{Goroutines: 4, Buckets: 16, MaxNodes: 64, MaxFunctions: 8})
		if file.Verify() != nil {
			if err == nil {
				t.Fatal("a rejected file made a report")
			}
			return
		}
		if err != nil {
			t.Fatalf("an accepted file makes no report: %v", err)
		}
		if !bytes.Contains(out.Bytes(), []byte("</html>")) {
			t.Fatal("the report is not a whole page")
		}
	})
}
