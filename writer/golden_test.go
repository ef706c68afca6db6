package writer_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// dumpText is the canonical text form of a file used by the golden tests:
// header facts, then one line per sample with the encoding of its record.
func dumpText(t *testing.T, b []byte) string {
	f, err := reader.NewFileBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	h := f.Header
	fmt.Fprintf(&sb, "start=%d interval=%d samples=%d threads=%d strings=%d frames=%d compression=%v\n",
		h.StartTime, h.Interval, h.SampleCount, h.ThreadCount, f.Footer.StringCount, f.Footer.FrameCount, h.Compression)
	it := f.Samples()
	for it.Next() {
		s := it.Sample()
		fmt.Fprintf(&sb, "%-8s g%d/%d t=%d st=%#02x", s.Encoding, s.ThreadID, s.InterpreterID, s.Timestamp, s.Status)
		for _, fr := range it.Frames(nil) {
			fmt.Fprintf(&sb, " %s:%d", fr.Func, fr.Line)
		}
		sb.WriteByte('\n')
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	return sb.String()
}

// TestGolden encodes the hand-made streams in testdata/golden and compares
// the raw file and its text dump with NAME.bin and NAME.txt. Run with
// -update to rewrite them after an intended change.
func TestGolden(t *testing.T) {
	inputs, _ := filepath.Glob("testdata/golden/*.input.jsonl")
	if len(inputs) == 0 {
		t.Fatal("no golden inputs")
	}
	for _, in := range inputs {
		base := strings.TrimSuffix(in, ".input.jsonl")
		t.Run(filepath.Base(base), func(t *testing.T) {
			meta, samples := inputStream(t, in)
			got := encode(t, meta, samples, tachyon.CompressionNone)
			text := dumpText(t, got)
			if *update {
				if err := os.WriteFile(base+".bin", got, 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(base+".txt", []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(base + ".bin")
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("encoding differs from %s.bin", base)
			}
			wantText, _ := os.ReadFile(base + ".txt")
			if text != string(wantText) {
				t.Errorf("dump differs from %s.txt:\n%s", base, text)
			}
		})
	}
}
