package speedscope_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/gotachyon/profiler/export/speedscope"
	"github.com/gotachyon/profiler/internal/testing/hostile"
	"github.com/gotachyon/profiler/reader"
)

// FuzzWrite: an accepted file exports to valid JSON.
func FuzzWrite(f *testing.F) {
	var out bytes.Buffer
	hostile.FuzzExporter(f, func(file *reader.File) error {
		out.Reset()
		return speedscope.Write(&out, file, speedscope.Options{Top: 2})
	}, func(t *testing.T, _ *reader.File) {
		if !json.Valid(out.Bytes()) {
			t.Fatal("the export is not valid JSON")
		}
	})
}
