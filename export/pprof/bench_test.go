package pprof

import (
	"io"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/reader"
)

// BenchmarkWrite1M converts 1 M samples to a gzipped pprof profile.
func BenchmarkWrite1M(b *testing.B) {
	benchWrite(b, proftest.MillionSamples(b))
}

// BenchmarkWriteParked1M converts about 1 M samples of a wall profile's
// shape (proftest.Wall: 1,000 parked goroutines over 1,000 ticks and two
// busy ones), so that the file is mostly REPEAT runs and the export's
// work follows its records, not its samples.
func BenchmarkWriteParked1M(b *testing.B) {
	benchWrite(b, proftest.Wall(b, 1000, 1000))
}

// benchWrite converts f to a gzipped pprof profile in each round and
// reports the samples converted per second.
func benchWrite(b *testing.B, f *reader.File) {
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
