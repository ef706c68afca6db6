package speedscope

import (
	"io"
	"path/filepath"
	"testing"

	"github.com/gotachyon/profiler/internal/testutil"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/writer"
)

// millionSamples writes realistic_50k repeated 20 times (1 M samples,
// timestamps shifted by the recording's span each round) and opens it.
func millionSamples(b *testing.B) *reader.File {
	b.Helper()
	src := open(b, testutil.Shared(b, "testdata", "tachyon", "realistic_50k.bin"))
	type rec struct {
		tid    uint64
		ts     uint64
		status uint8
		stack  []uint32
	}
	var recs []rec
	it := src.Samples()
	for it.Next() {
		s := it.Sample()
		recs = append(recs, rec{s.ThreadID, s.Timestamp, s.Status, append([]uint32(nil), s.Stack...)})
	}
	if err := it.Err(); err != nil {
		b.Fatal(err)
	}
	h := src.Header
	var span uint64
	for _, r := range recs {
		span = max(span, r.ts-h.StartTime+h.Interval)
	}
	path := filepath.Join(b.TempDir(), "1m.tachyon")
	w, err := writer.Create(path, writer.Options{StartTime: h.StartTime, Interval: h.Interval})
	if err != nil {
		b.Fatal(err)
	}
	idx := make([]uint32, len(src.FrameRefs()))
	for i := range idx {
		fr := src.Frame(uint32(i))
		idx[i] = w.Frame(writer.Frame{File: fr.File, Func: fr.Func, Line: fr.Line})
	}
	var stack []uint32
	for round := range uint64(20) {
		for _, r := range recs {
			stack = stack[:0]
			for _, i := range r.stack {
				stack = append(stack, idx[i])
			}
			if err := w.WriteStack(r.tid, 0, r.ts+round*span, r.status, stack); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	return open(b, path)
}

// BenchmarkWrite1M converts 1 M samples to speedscope JSON.
func BenchmarkWrite1M(b *testing.B) {
	f := millionSamples(b)
	n := float64(f.Header.SampleCount)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := Write(io.Discard, f, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(n*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
}
