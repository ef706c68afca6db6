package pprof

import (
	"io"
	"testing"

	"github.com/gotachyon/profiler/internal/testutil"
	"github.com/gotachyon/profiler/reader"
)

// millionSamples is realistic_50k repeated 20 times: 1 M samples.
func millionSamples(b *testing.B) *reader.File {
	return testutil.RepeatedVector(b, "realistic_50k", 20)
}

// BenchmarkWrite1M converts 1 M samples to a gzipped pprof profile.
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
