package reader_test

import (
	"encoding/binary"
	"runtime"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/hostile"
	"github.com/gotachyon/profiler/reader"
)

// TestDecompressionBomb: a 100 M-sample bomb of a small file is refused
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

// TestStringTableMemory loads a table of 20 M one-byte strings: the reader
// may hold little more than the table itself (a []string held 16 bytes per
// string, 17 times the table).
func TestStringTableMemory(t *testing.T) {
	const n = 20_000_000
	b := hostile.ManyStrings(n)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f, err := reader.NewFileBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := after.HeapAlloc - before.HeapAlloc
	t.Logf("%d strings: %.1f MB held for a %d-byte table", n, float64(held)/1e6, n)
	if held > 2*n {
		t.Errorf("the string table holds %d bytes, over twice its %d bytes on disk", held, n)
	}
	if f.NumStrings() != n || f.Frame(0).File != "" {
		t.Errorf("%d strings", f.NumStrings())
	}
	runtime.KeepAlive(f)
}

// TestMaxBombStopsEarly: the largest bomb a file can declare (262 KB of
// zstd RLE blocks) is refused within its first few million samples, and a
// header that declares fewer samples than the bomb holds does not turn the
// error into a count mismatch.
func TestMaxBombStopsEarly(t *testing.T) {
	for _, declared := range []uint32{1<<32 - 1, 100_000_000} {
		b := hostile.MaxBomb()
		binary.LittleEndian.PutUint32(b[24:], declared) // the header's sample count
		f, err := reader.NewFileBytes(b)
		if err != nil {
			t.Fatal(err)
		}
		it := f.Samples()
		for it.Next() {
		}
		it.Close()
		err = it.Err()
		if reader.Code(err) != reader.EZstd || !strings.Contains(err.Error(), "decompression bomb") {
			t.Errorf("header declaring %d samples: %v", declared, err)
		}
		if n := it.Stats().Samples; n > 4<<20 {
			t.Errorf("header declaring %d samples: the bomb was refused only after %d samples", declared, n)
		}
	}
}
