package pprof

import (
	"io"
	"testing"

	"github.com/gotachyon/profiler/internal/proftest"
	"github.com/gotachyon/profiler/internal/seekbuf"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// BenchmarkWrite1M converts 1 M samples to a gzipped pprof profile.
func BenchmarkWrite1M(b *testing.B) {
	benchWrite(b, proftest.MillionSamples(b))
}

// BenchmarkWriteParked1M converts 1 M samples of a wall profile's shape:
// 1,000 goroutines over 1,000 ticks, 990 of them parked throughout, so
// that the file is mostly REPEAT runs and the export's work follows its
// records, not its samples.
func BenchmarkWriteParked1M(b *testing.B) {
	benchWrite(b, parkedProfile(b, 1000, 1000))
}

// benchWrite converts f to a gzipped pprof profile in each round and
// reports the samples converted per second.
func benchWrite(b *testing.B, f *reader.File) {
	n := float64(f.Header.SampleCount)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := Write(io.Discard, f, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(n*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
}

// parkedProfile returns, in memory, a profile of goroutines over ticks
// (10 ms apart): the first 10 goroutines alternate between two running
// stacks, the others stay parked in a channel receive.
func parkedProfile(tb testing.TB, goroutines, ticks int) *reader.File {
	tb.Helper()
	var out seekbuf.Buffer
	w, err := writer.New(&out, writer.Options{StartTime: 0, Interval: 10_000})
	if err != nil {
		tb.Fatal(err)
	}
	frame := func(fr tachyon.Frame) uint32 { return w.Frame(fr) }
	busy := [2][]uint32{{frame(fWork), frame(fMain)}, {frame(fWork2), frame(fMain)}}
	parked := []uint32{frame(fWait), frame(fPop), frame(fMain)}
	for tick := range ticks {
		for g := range goroutines {
			stack, status := parked, tachyon.Status(0)
			if g < 10 {
				stack, status = busy[(tick+g)%2], running
			}
			if err := w.WriteStack(uint64(g+1), 0, uint64(tick)*10_000, status, stack); err != nil {
				tb.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	f, err := reader.NewFileBytes(out.Bytes())
	if err != nil {
		tb.Fatal(err)
	}
	return f
}
