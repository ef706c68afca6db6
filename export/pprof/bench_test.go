package pprof

import (
	"io"
	"testing"

	"github.com/gotachyon/profiler/internal/proftest"
)

// BenchmarkWrite1M converts 1 M samples to a gzipped pprof profile.
func BenchmarkWrite1M(b *testing.B) {
	f := proftest.MillionSamples(b)
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
