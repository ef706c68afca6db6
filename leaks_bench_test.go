package profiler

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/workload/benchload"
	"github.com/gotachyon/profiler/reader"
)

// BenchmarkCreationLabelsFile profiles 2 s of goroutine churn (2,000
// goroutines a second, each sleeping 5 ms) beside 1,000 goroutines
// parked during the profile, with the creation-site labels (on) and
// without (off), compressed (zstd) or not (raw), and reports the file's
// sample data in bytes a sample.
func BenchmarkCreationLabelsFile(b *testing.B) {
	for _, c := range []struct {
		name string
		on   bool
		comp Compression
	}{{"on/zstd", true, CompressionZstd}, {"off/zstd", false, CompressionZstd}, {"on/raw", true, CompressionNone}, {"off/raw", false, CompressionNone}} {
		b.Run(c.name, func(b *testing.B) {
			var bytes, samples int64
			for i := range b.N {
				path := filepath.Join(b.TempDir(), "p.tachyon")
				stop := benchload.Churn(2000)
				p := Start(WithPath(path), WithQuiet(true), WithCreationLabels(c.on), WithCompression(c.comp))
				time.Sleep(200 * time.Millisecond)
				release := benchload.Park(1000)
				time.Sleep(1800 * time.Millisecond)
				if err := p.Stop(); err != nil {
					b.Fatal(err)
				}
				release()
				stop()
				f, err := reader.Open(path)
				if err != nil {
					b.Fatal(err)
				}
				_, n := f.SampleRegion()
				bytes += n
				samples += int64(f.Header.SampleCount)
				f.Close()
				_ = i
			}
			b.ReportMetric(float64(bytes)/float64(samples), "bytes/sample")
			b.ReportMetric(float64(samples)/float64(b.N), "samples/op")
		})
	}
}
