package collapsed_test

import (
	"testing"

	"github.com/gotachyon/profiler/collapsed"
	"github.com/gotachyon/profiler/internal/hostile"
	"github.com/gotachyon/profiler/reader"
)

// FuzzLines feeds arbitrary bytes to the reader: a file it rejects must
// not fold; one it accepts must fold every sample with a stack once.
func FuzzLines(f *testing.F) {
	for _, b := range hostile.Seeds() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := reader.NewFileBytes(data)
		if err != nil {
			return
		}
		lines, err := collapsed.LinesWith(file, collapsed.Options{ByGoroutine: true})
		if file.Verify() != nil {
			if err == nil {
				t.Fatal("a rejected file folded")
			}
			return
		}
		if err != nil {
			t.Fatalf("an accepted file does not fold: %v", err)
		}
		var total uint64
		for _, l := range lines {
			total += l.Count
		}
		if total > uint64(file.Header.SampleCount) {
			t.Fatalf("%d folded samples, the file has %d", total, file.Header.SampleCount)
		}
	})
}
