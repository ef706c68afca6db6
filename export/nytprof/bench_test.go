package nytprof

import (
	"bytes"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/internal/testing/testutil"
)

// BenchmarkExport1M exports realistic_50k repeated to 1,000,000 samples
// (the acceptance figure: under 2 s on one core, -cpu 1).
func BenchmarkExport1M(b *testing.B) {
	f := proftest.MillionSamples(b)
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
	f := proftest.Open(b, testutil.Vectors(b, "tachyon", "realistic_50k.bin"))
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

// BenchmarkExportWall exports a wall profile of 1,000 parked goroutines
// over 6,000 ticks (6 M samples, mostly long REPEAT runs): the output's
// bytes follow the runs, not the samples.
func BenchmarkExportWall(b *testing.B) {
	f := proftest.Wall(b, 1000, 6000)
	var out bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		out.Reset()
		if err := Write(&out, f, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(f.Header.SampleCount)*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
	b.ReportMetric(float64(out.Len()), "bytes")
}
