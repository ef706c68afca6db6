package dcpi

import (
	"io"
	"os"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/proftest"
)

// BenchmarkHistogramAdd measures the per-sample cost of the live hook
// (Recorder.OnCPU → histogram.Add).
func BenchmarkHistogramAdd(b *testing.B) {
	var h histogram
	b.ReportAllocs()
	for i := range b.N {
		h.Add(uintptr(0x401000 + (i*7919)%4096))
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "samples/s")
}

// BenchmarkWrite measures writing a profile of 10k sampled addresses.
func BenchmarkWrite(b *testing.B) {
	counts := map[uint64]uint64{}
	var total uint64
	for i := range 10000 {
		counts[uint64(i*37)] = uint64(i%13 + 1)
		total += uint64(i%13 + 1)
	}
	h := example
	h.TextSize = 1 << 24
	b.ReportAllocs()
	for range b.N {
		if _, err := writeCounts(io.Discard, h, counts); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(total)*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
}

// BenchmarkFromTachyonWall approximates a histogram from a wall profile of
// 1,000 parked goroutines over 6,000 ticks (6 M samples, mostly long
// REPEAT runs), every sample counted, against the test binary's line
// table (the profile's frames are not in it: each leaf is looked up once).
func BenchmarkFromTachyonWall(b *testing.B) {
	img, err := OpenImage(os.Args[0])
	if err != nil {
		b.Skip("the test binary is not an ELF image: ", err)
	}
	defer img.Close()
	f := proftest.Wall(b, 1000, 6000)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := fromTachyon(f, img, true); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(f.Header.SampleCount)*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
}
