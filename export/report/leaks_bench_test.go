package report

import (
	"testing"

	"github.com/gotachyon/profiler/internal/testing/proftest"
)

// BenchmarkLeaksMillion analyses the 1 M synthetic samples of
// BenchmarkAggregateMillion for the leaks view alone: the share of
// Aggregate's time that the view costs.
func BenchmarkLeaksMillion(b *testing.B) {
	path, err := million()
	if err != nil {
		b.Fatal(err)
	}
	f := proftest.Open(b, path)
	p, err := Aggregate(f, Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := leaksOf(f, p); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(1e6*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
}
