package zstdrun

import (
	"io"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// BenchmarkParked encodes parked goroutines' records, 10,000 of 400 ticks
// each (12 MB of content) and 100,000 of 50: with this package, and, for
// comparison, the same content expanded and streamed through
// klauspost/compress at level 5 with a 128 KiB window, as the writer's
// other frames are.
func BenchmarkParked(b *testing.B) {
	b.Run("400", func(b *testing.B) { benchParked(b, 10000, 400) })
	// Stop's last runs: half a second's ticks of each goroutine.
	b.Run("50", func(b *testing.B) { benchParked(b, 100000, 50) })
}

func benchParked(b *testing.B, records, ticks int) {
	units := parkedUnits(records, ticks)
	var size int
	for _, u := range units {
		size += len(u.lit) + len(u.pat)*u.n
	}
	samples := float64(len(units) * ticks)
	b.Run("zstdrun", func(b *testing.B) {
		e := New()
		b.SetBytes(int64(size))
		b.ReportAllocs()
		for b.Loop() {
			e.Reset(io.Discard)
			for _, u := range units {
				e.Add(u.lit, u.pat, u.n)
			}
			if err := e.Close(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/samples, "ns/sample")
	})
	b.Run("klauspost", func(b *testing.B) {
		zw, err := zstd.NewWriter(io.Discard, zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(5)),
			zstd.WithLowerEncoderMem(true), zstd.WithWindowSize(128<<10), zstd.WithEncoderConcurrency(1))
		if err != nil {
			b.Fatal(err)
		}
		buf := make([]byte, 0, 512<<10)
		b.SetBytes(int64(size))
		b.ReportAllocs()
		for b.Loop() {
			zw.Reset(io.Discard)
			for _, u := range units {
				if len(buf)+len(u.lit)+len(u.pat)*u.n > cap(buf) {
					zw.Write(buf)
					buf = buf[:0]
				}
				buf = append(buf, u.lit...)
				for range u.n {
					buf = append(buf, u.pat...)
				}
			}
			zw.Write(buf)
			buf = buf[:0]
			if err := zw.Close(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/samples, "ns/sample")
	})
}
