package collapsed

import (
	"io"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/reader"
)

func benchWrite(b *testing.B, f *reader.File) {
	b.ReportAllocs()
	for b.Loop() {
		if err := Write(io.Discard, f, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(f.Header.SampleCount)*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
}

// BenchmarkWrite1M folds 1 M realistic samples (few repeats).
func BenchmarkWrite1M(b *testing.B) { benchWrite(b, proftest.MillionSamples(b)) }

// BenchmarkWriteWall folds a wall profile of 1,000 parked goroutines over
// 6,000 ticks (6 M samples, mostly long REPEAT runs).
func BenchmarkWriteWall(b *testing.B) { benchWrite(b, proftest.Wall(b, 1000, 6000)) }
