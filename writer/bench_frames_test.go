package writer_test

import (
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/gotachyon/profiler/internal/testing/seekbuf"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// BenchmarkParkedFrames compresses what BenchmarkParkedSettle's settle
// writes (10,000 parked goroutines' runs of 400 ticks, raw), a 512 KB
// record buffer at a time as Stop's frames are, under other zstd settings
// than the writer's: a lower and a higher level, and level 5 without the
// frames' content checksum. It says what those settings would save on the
// bytes most of a parked program's file is made of (bench/MEASUREMENTS.md).
func BenchmarkParkedFrames(b *testing.B) {
	raw := parkedRaw(b, 10000, 400)
	for _, c := range []struct {
		name  string
		level int
		crc   bool
	}{{"level=1", 1, true}, {"level=5", writer.ZstdLevel, true}, {"level=7", 7, true}, {"level=5/no-checksum", writer.ZstdLevel, false}} {
		b.Run(c.name, func(b *testing.B) {
			opts := append(writer.ZstdOptionsAt(c.level), zstd.WithEncoderCRC(c.crc), zstd.WithEncoderConcurrency(1))
			enc, err := zstd.NewWriter(nil, opts...)
			if err != nil {
				b.Fatal(err)
			}
			const frame = 512 << 10
			var out []byte
			n := 0
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				n = 0
				for off := 0; off < len(raw); off += frame {
					out = enc.EncodeAll(raw[off:min(off+frame, len(raw))], out[:0])
					n += len(out)
				}
			}
			b.ReportMetric(float64(n)/float64(len(raw)), "out/in")
		})
	}
}

// parkedRaw returns the bytes of an uncompressed file holding goroutines'
// parked runs of ticks samples each.
func parkedRaw(b *testing.B, goroutines, ticks int) []byte {
	b.Helper()
	var buf seekbuf.Buffer
	w := parkedWriter(b, &buf, tachyon.CompressionNone, goroutines, ticks, true)
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}
