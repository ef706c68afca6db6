package merge_test

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/gotachyon/profiler/internal/merge"
	"github.com/gotachyon/profiler/internal/testing/segtest"
	"github.com/gotachyon/profiler/internal/testing/synth"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// BenchmarkMerge merges three zstd segments of two profiles and reports
// input samples per second: "synth", 1 M samples of 8 goroutines whose
// stacks of depth 10–40 change often; "wall", 3,000 ticks of 1,000
// goroutines parked on one stack, their timestamps jittered by a few µs
// per tick as real ticks are, so that most repeats are not evenly spaced
// and cost a writer call each. Setting up takes a minute (the split
// resolves every sample's frames).
func BenchmarkMerge(b *testing.B) {
	for _, p := range []struct {
		name  string
		write func(w *writer.Writer) error
	}{
		{"synth", func(w *writer.Writer) error { return synth.Record(42, 8, 2000, 1_000_000).WriteTo(w) }},
		{"wall", writeWall},
	} {
		b.Run(p.name, func(b *testing.B) {
			segs, samples := benchSegments(b, p.write)
			out, err := os.Create(filepath.Join(b.TempDir(), "merged.bin"))
			if err != nil {
				b.Fatal(err)
			}
			defer out.Close()
			b.ResetTimer()
			for range b.N {
				if _, err := out.Seek(0, io.SeekStart); err != nil {
					b.Fatal(err)
				}
				if _, err := merge.Merge(out, segs, merge.Options{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(samples)*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
		})
	}
}

// writeWall writes the parked goroutines of BenchmarkMerge's wall profile.
func writeWall(w *writer.Writer) error {
	const start, interval = 1_700_000_000_000_000, 10_000
	stack := []uint32{w.Frame(tachyon.Frame{File: "proc.go", Func: "runtime.gopark", Line: 1}),
		w.Frame(tachyon.Frame{File: "main.go", Func: "main.worker", Line: 2})}
	for i := range uint64(3000) {
		for g := range uint64(1000) {
			ts := start + i*interval + (i*7+g)%5
			if err := w.WriteStack(g+1, 0, ts, 0, stack); err != nil {
				return err
			}
		}
	}
	return nil
}

// benchSegments writes a profile with write and splits it into three
// segments; it returns their paths and the profile's sample count.
func benchSegments(b *testing.B, write func(w *writer.Writer) error) ([]string, uint64) {
	dir := b.TempDir()
	orig := filepath.Join(dir, "orig.bin")
	w, err := writer.Create(orig, writer.Options{StartTime: 1_700_000_000_000_000, Interval: 10_000, Compression: tachyon.CompressionZstd})
	if err != nil {
		b.Fatal(err)
	}
	if err := write(w); err != nil {
		b.Fatal(err)
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	lo, hi := segtest.Span(b, orig)
	segs := segtest.Split(b, orig, dir, []uint64{lo + (hi-lo)/3, lo + (hi-lo)*2/3}, tachyon.CompressionZstd)
	f, err := reader.Open(orig)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	return segs, uint64(f.Header.SampleCount)
}
