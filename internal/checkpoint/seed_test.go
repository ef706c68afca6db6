package checkpoint

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/gotachyon/profiler/tachyon"
)

var update = flag.Bool("update", false, "rewrite the fuzz seed of a real mark")

// TestSeedMark keeps testdata/fuzz/FuzzParseMark/real, the mark of a
// real stream, parseable; -update rewrites it.
func TestSeedMark(t *testing.T) {
	seed := filepath.Join("testdata", "fuzz", "FuzzParseMark", "real")
	if *update {
		dir := t.TempDir()
		c := newWriter(t, dir, tachyon.CompressionZstd)
		write(t, c, 0, 20)
		waitWritten(t, c, 1)
		b, err := os.ReadFile(filepath.Join(dir, MarkName))
		c.Abort()
		if err == nil {
			err = os.WriteFile(seed, fmt.Appendf(nil, "go test fuzz v1\n[]byte(%q)\n", b), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(seed); err != nil {
		t.Fatal(err)
	}
}
