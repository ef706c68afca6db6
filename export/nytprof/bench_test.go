package nytprof

import (
	"bytes"
	"testing"

	"github.com/gotachyon/profiler/internal/testutil"
	"github.com/gotachyon/profiler/reader"
)

// repeated returns the public realistic_50k vector n times over.
func repeated(b *testing.B, n int) *reader.File {
	return testutil.RepeatedVector(b, "realistic_50k", n)
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
		if err := WriteSource(&out, FromFile(f), Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
	b.ReportMetric(float64(out.Len()), "bytes")
}

// BenchmarkExport50k exports the realistic_50k vector once per iteration.
func BenchmarkExport50k(b *testing.B) {
	f, err := reader.Open(testutil.Vectors(b, "tachyon", "realistic_50k.bin"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var out bytes.Buffer
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out.Reset()
		if err := WriteSource(&out, FromFile(f), Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(f.Header.SampleCount)*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
}
