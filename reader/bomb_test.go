package reader_test

import (
	"strings"
	"testing"

	"github.com/gotachyon/profiler/internal/hostile"
	"github.com/gotachyon/profiler/reader"
)

// TestDecompressionBomb: a 100 M-sample bomb of a few kilobytes is refused
// after a bounded number of samples, with an error that says why.
func TestDecompressionBomb(t *testing.T) {
	b := hostile.Bomb(100_000_000)
	f, err := reader.NewFileBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	off, n := f.SampleRegion()
	err = f.Verify()
	t.Logf("%d-byte file, region %d bytes at %d: %v", len(b), n, off, err)
	if reader.Code(err) != reader.EZstd || !strings.Contains(err.Error(), "decompression bomb") {
		t.Fatalf("Verify: %v", err)
	}
}
