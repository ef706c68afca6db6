package nytprof

import (
	"bytes"
	"testing"

	"github.com/gotachyon/profiler/reader"
)

// FuzzExport feeds arbitrary bytes to the reader: a file it rejects must
// produce no output, a file it accepts must export (wall and on-CPU,
// compressed or not) to a stream the strict decoder accepts, whose numbers
// match the samples.
func FuzzExport(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := reader.NewFileBytes(data)
		if err != nil {
			return
		}
		var b bytes.Buffer
		if file.Verify() != nil {
			if err := Write(&b, file, Options{}); err == nil || b.Len() != 0 {
				t.Fatalf("rejected file: err %v, %d bytes written", err, b.Len())
			}
			return
		}
		for _, cpu := range []bool{false, true} {
			b.Reset()
			if err := Write(&b, file, Options{OnCPU: cpu, Compress: cpu}); err != nil {
				t.Fatalf("accepted file does not export: %v", err)
			}
			d, err := decode(b.Bytes())
			if err != nil {
				t.Fatalf("decoder rejects the export: %v", err)
			}
			if diffs := compare(reference(t, FromFile(file), cpu), fromDecoded(d)); len(diffs) > 0 {
				t.Fatalf("numbers differ: %v", diffs)
			}
		}
	})
}
