package speedscope_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/gotachyon/profiler/internal/hostile"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/speedscope"
)

// FuzzWrite feeds arbitrary bytes to the reader: a file it rejects must
// not export; one it accepts must export to valid JSON.
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
		err = speedscope.Write(&out, file, speedscope.Options{Top: 2})
		if file.Verify() != nil {
			if err == nil {
				t.Fatal("a rejected file exported")
			}
			return
		}
		if err != nil {
			t.Fatalf("an accepted file does not export: %v", err)
		}
		if !json.Valid(out.Bytes()) {
			t.Fatal("the export is not valid JSON")
		}
	})
}
