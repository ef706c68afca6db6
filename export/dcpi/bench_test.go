package dcpi

import (
	"io"
	"testing"
)

// BenchmarkHistogramAdd measures the per-sample cost of the live hook
// (sampler.Config.LeafPC → Histogram.Add).
func BenchmarkHistogramAdd(b *testing.B) {
	var h Histogram
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
		if _, err := WriteCounts(io.Discard, h, counts); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(total)*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
}
