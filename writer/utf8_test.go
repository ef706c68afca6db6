package writer_test

import (
	"path/filepath"
	"testing"

	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// TestInvalidUTF8Names: a file's strings are UTF-8, and a reader refuses a
// file with one that is not, whole. A name that is not (a program's label
// value of raw bytes, through its label frame) is written with U+FFFD for
// each invalid sequence, and the file reads.
func TestInvalidUTF8Names(t *testing.T) {
	path := filepath.Join(t.TempDir(), "prof.bin")
	w, err := writer.Create(path, writer.Options{StartTime: 1_000_000, Interval: 10_000, Compression: tachyon.CompressionZstd})
	if err != nil {
		t.Fatal(err)
	}
	if a, b := w.String("x\xff"), w.String("x\xfe"); a != b || w.String("x\uFFFD") != a {
		t.Errorf("names that read the same after U+FFFD have indices %d, %d and %d, not one", a, b, w.String("x\uFFFD"))
	}
	code := w.Frame(tachyon.Frame{File: "/src/d\xffir/main.go", Func: "main.main", Line: 10})
	label := w.Frame(tachyon.Frame{File: tachyon.LabelFile, Func: "id=caf\xc3"})
	if err := w.WriteStack(1, 0, 1_010_000, tachyon.StatusOnCPU, []uint32{code, label}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := reader.Open(path)
	if err != nil {
		t.Fatalf("the file does not read: %v", err)
	}
	defer f.Close()
	it := f.Samples()
	defer it.Close()
	if !it.Next() {
		t.Fatalf("no sample: %v", it.Err())
	}
	fr := it.Frames(nil)
	if len(fr) != 2 || fr[0].File != "/src/d\uFFFDir/main.go" || fr[1].Func != "id=caf\uFFFD" {
		t.Fatalf("frames %+v", fr)
	}
}
