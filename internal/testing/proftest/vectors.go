package proftest

import (
	"os"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/gotachyon/profiler/internal/jsonl"
	"github.com/gotachyon/profiler/reader"
)

// VectorText returns the vector text file at path (NAME.jsonl,
// NAME.input.jsonl, NAME.collapsed.txt) or, when only path+".zst" exists, as
// for the large realistic_50k vector, that file decompressed.
func VectorText(tb testing.TB, path string) []byte {
	tb.Helper()
	if b, err := os.ReadFile(path); err == nil {
		return b
	}
	z, err := os.ReadFile(path + ".zst")
	if err != nil {
		tb.Fatalf("neither %s nor its .zst: %v", path, err)
	}
	d, err := zstd.NewReader(nil)
	if err != nil {
		tb.Fatal(err)
	}
	defer d.Close()
	b, err := d.DecodeAll(z, nil)
	if err != nil {
		tb.Fatalf("%s.zst: %v", path, err)
	}
	return b
}

// Samples decodes every sample of f, in file order, into the schema of the
// vectors' NAME.jsonl files (a sample without frames has an empty stack, not
// a null one), failing tb if the file does not decode.
func Samples(tb testing.TB, f *reader.File) []jsonl.Sample {
	tb.Helper()
	var out []jsonl.Sample
	it := f.Samples()
	defer it.Close()
	for it.Next() {
		s := it.Sample()
		js := jsonl.Sample{ThreadID: s.ThreadID, InterpreterID: s.InterpreterID, TimestampUS: s.Timestamp, Status: s.Status, Stack: jsonl.Stack{}}
		js.Stack = append(js.Stack, it.Frames(nil)...)
		out = append(out, js)
	}
	if err := it.Err(); err != nil {
		tb.Fatalf("decode: %v", err)
	}
	return out
}
