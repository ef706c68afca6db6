package nytprof

import (
	"bytes"
	"io"
	"testing"

	"github.com/gotachyon/profiler/internal/testutil"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/writer"
)

// repeated builds, with the writer, a Tachyon file holding the samples of
// the shared realistic_50k vector n times over.
func repeated(b *testing.B, n int) *reader.File {
	src, err := reader.Open(testutil.Shared(b, "testdata", "tachyon", "realistic_50k.bin"))
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	var out seekBuffer
	w, err := writer.New(&out, writer.Options{StartTime: src.Header.StartTime, Interval: src.Header.Interval})
	if err != nil {
		b.Fatal(err)
	}
	idx := make([]uint32, len(src.FrameRefs()))
	for i := range idx {
		fr := src.Frame(uint32(i))
		idx[i] = w.Frame(writer.Frame{File: fr.File, Func: fr.Func, Line: fr.Line})
	}
	span := uint64(0)
	var stack []uint32
	for r := 0; r < n; r++ {
		it := src.Samples()
		for it.Next() {
			s := it.Sample()
			stack = stack[:0]
			for _, fi := range s.Stack {
				stack = append(stack, idx[fi])
			}
			ts := s.Timestamp + uint64(r)*span
			if err := w.WriteStack(s.ThreadID, s.InterpreterID, ts, s.Status, stack); err != nil {
				b.Fatal(err)
			}
			if r == 0 && s.Timestamp-src.Header.StartTime+1 > span {
				span = s.Timestamp - src.Header.StartTime + 1
			}
		}
		if err := it.Err(); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	f, err := reader.NewFileBytes(out.b)
	if err != nil {
		b.Fatal(err)
	}
	return f
}

// seekBuffer is an in-memory io.WriteSeeker for the writer.
type seekBuffer struct {
	b   []byte
	pos int
}

func (s *seekBuffer) Write(p []byte) (int, error) {
	if need := s.pos + len(p); need > len(s.b) {
		s.b = append(s.b, make([]byte, need-len(s.b))...)
	}
	copy(s.b[s.pos:], p)
	s.pos += len(p)
	return len(p), nil
}

func (s *seekBuffer) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
		s.pos = int(off)
	case io.SeekCurrent:
		s.pos += int(off)
	case io.SeekEnd:
		s.pos = len(s.b) + int(off)
	}
	return int64(s.pos), nil
}

// BenchmarkExport1M exports realistic_50k repeated to 1,000,000 samples
// (the acceptance figure: under 2 s on one core, -cpu 1).
func BenchmarkExport1M(b *testing.B) {
	f := repeated(b, 20)
	n := f.Header.SampleCount
	var out bytes.Buffer
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out.Reset()
		if err := Export(&out, FromFile(f), Options{NoSource: true}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
	b.ReportMetric(float64(out.Len()), "bytes")
}

// BenchmarkExport50k exports the realistic_50k vector once per iteration.
func BenchmarkExport50k(b *testing.B) {
	f, err := reader.Open(testutil.Shared(b, "testdata", "tachyon", "realistic_50k.bin"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var out bytes.Buffer
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out.Reset()
		if err := Export(&out, FromFile(f), Options{NoSource: true}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(f.Header.SampleCount)*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
}
