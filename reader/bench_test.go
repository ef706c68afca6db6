package reader_test

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/synth"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

var (
	benchOnce  sync.Once
	benchDir   string
	benchCount int
)

// benchFiles writes a seeded realistic 1 M-sample stream (8 goroutines,
// depth 10-40, repeats, pushes and pops) raw and zstd into a temporary
// directory shared by the decode benchmarks.
func benchFiles(b *testing.B) string {
	benchOnce.Do(func() {
		dir, err := os.MkdirTemp("", "tachyon-bench")
		if err != nil {
			b.Fatal(err)
		}
		r := synth.Record(42, 8, 2000, 1<<20)
		for name, c := range map[string]tachyon.Compression{"raw.bin": tachyon.CompressionNone, "zstd.bin": tachyon.CompressionZstd} {
			w, err := writer.Create(filepath.Join(dir, name), writer.Options{StartTime: r.Start, Interval: r.Interval, Compression: c})
			if err != nil {
				b.Fatal(err)
			}
			if err := r.WriteTo(w); err != nil {
				b.Fatal(err)
			}
			if err := w.Close(); err != nil {
				b.Fatal(err)
			}
		}
		benchDir, benchCount = dir, r.Len()
	})
	return benchDir
}

func benchDecode(b *testing.B, name string) { benchIterate(b, name, (*reader.Samples).Next) }

func benchIterate(b *testing.B, name string, next func(*reader.Samples) bool) {
	path := filepath.Join(benchFiles(b), name)
	f, err := reader.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	b.ReportAllocs()
	var frames uint64
	for b.Loop() {
		it := f.Samples()
		for next(it) {
			frames += uint64(len(it.Sample().Stack))
		}
		if err := it.Err(); err != nil {
			b.Fatal(err)
		}
	}
	_, region := f.SampleRegion()
	b.ReportMetric(float64(benchCount)*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
	b.ReportMetric(float64(region)/float64(benchCount), "bytes/sample")
}

// BenchmarkDecodeRaw iterates over 1 M samples of a mapped raw file.
func BenchmarkDecodeRaw(b *testing.B) { benchDecode(b, "raw.bin") }

// BenchmarkDecodeZstd iterates over 1 M samples of a mapped zstd file.
func BenchmarkDecodeZstd(b *testing.B) { benchDecode(b, "zstd.bin") }

// BenchmarkDecodeRunsZstd iterates over the same file's runs (NextRun);
// samples/s counts the samples the runs hold.
func BenchmarkDecodeRunsZstd(b *testing.B) { benchIterate(b, "zstd.bin", (*reader.Samples).NextRun) }
