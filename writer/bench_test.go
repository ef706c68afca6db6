package writer_test

import (
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/seekbuf"
	"github.com/gotachyon/profiler/internal/testing/synth"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// benchSamples is the size of the benchmark stream: at least a million
// samples, as the format's performance goals are stated for.
const benchSamples = 1 << 20

var (
	recOnce sync.Once
	rec     *synth.Recording
)

// recording returns a seeded realistic stream: 8 goroutines, depth 10-40,
// 70% repeats and a mix of pushes, pops and jumps.
func recording() *synth.Recording {
	recOnce.Do(func() { rec = synth.Record(42, 8, 2000, benchSamples) })
	return rec
}

func benchEncode(b *testing.B, c tachyon.Compression) {
	r := recording()
	b.ReportAllocs()
	var size int64
	for b.Loop() {
		var d seekbuf.Discard
		w, err := writer.New(&d, writer.Options{StartTime: r.Start, Interval: r.Interval, Compression: c})
		if err != nil {
			b.Fatal(err)
		}
		if err := r.WriteTo(w); err != nil {
			b.Fatal(err)
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
		size = d.Size()
	}
	n := float64(r.Len()) * float64(b.N)
	b.ReportMetric(n/b.Elapsed().Seconds(), "samples/s")
	b.ReportMetric(float64(size)/float64(r.Len()), "bytes/sample")
}

// BenchmarkEncodeRaw encodes a 1 M-sample stream without compression.
func BenchmarkEncodeRaw(b *testing.B) { benchEncode(b, tachyon.CompressionNone) }

// BenchmarkEncodeZstd encodes the same stream with zstd level 5.
func BenchmarkEncodeZstd(b *testing.B) { benchEncode(b, tachyon.CompressionZstd) }

// BenchmarkWriteStackSteady measures one sample on the fast path once the
// writer is warm: it must not allocate.
func BenchmarkWriteStackSteady(b *testing.B) {
	r := recording()
	var d seekbuf.Discard
	w, err := writer.New(&d, writer.Options{StartTime: r.Start, Interval: r.Interval, Compression: tachyon.CompressionZstd})
	if err != nil {
		b.Fatal(err)
	}
	if err := r.WriteTo(w); err != nil { // warm up: threads, tables, buffers
		b.Fatal(err)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if err := w.WriteStack(r.IDs[i], 0, r.TS[r.Len()-1]+uint64(i), r.Status[i], r.Stack(i)); err != nil {
			b.Fatal(err)
		}
		if i++; i == r.Len() {
			i = 0
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "samples/s")
	w.Close()
}

// BenchmarkEncoderMemory reports the heap a zstd Writer holds while writing
// a 1 M-sample stream (the bound documented in the package comment).
func BenchmarkEncoderMemory(b *testing.B) {
	r := recording()
	dir := b.TempDir()
	for b.Loop() {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		w, err := writer.Create(filepath.Join(dir, "p.bin"), writer.Options{StartTime: r.Start, Interval: r.Interval, Compression: tachyon.CompressionZstd})
		if err != nil {
			b.Fatal(err)
		}
		if err := r.WriteTo(w); err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "heap-MiB")
		runtime.KeepAlive(w)
		w.Close()
		os.Remove(filepath.Join(dir, "p.bin"))
	}
}
