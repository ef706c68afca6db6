package speedscope

import (
	"io"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/proftest"
)

// BenchmarkWrite1M converts 1 M samples to speedscope JSON.
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

// BenchmarkWriteWall converts a wall profile of 1,000 parked goroutines
// over 6,000 ticks (6 M samples, mostly long REPEAT runs).
func BenchmarkWriteWall(b *testing.B) {
	f := proftest.Wall(b, 1000, 6000)
	b.ReportAllocs()
	for b.Loop() {
		if err := Write(io.Discard, f, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(f.Header.SampleCount)*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
}
