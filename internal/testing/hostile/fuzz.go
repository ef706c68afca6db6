package hostile

import (
	"testing"

	"github.com/gotachyon/profiler/reader"
)

// FuzzExporter fuzzes an exporter over arbitrary bytes, seeded with Seeds.
// For each input the reader opens, export runs on it: for a file Verify
// rejects it must fail; for one Verify accepts it must succeed, and then
// check (which may be nil) tests what it produced.
func FuzzExporter(f *testing.F, export func(file *reader.File) error, check func(t *testing.T, file *reader.File)) {
	for _, b := range Seeds() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := reader.NewFileBytes(data)
		if err != nil {
			return
		}
		err = export(file)
		if file.Verify() != nil {
			if err == nil {
				t.Fatal("a file the reader rejects was exported")
			}
			return
		}
		if err != nil {
			t.Fatalf("a file the reader accepts does not export: %v", err)
		}
		if check != nil {
			check(t, file)
		}
	})
}
