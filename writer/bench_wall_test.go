package writer_test

import (
	"testing"

	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// BenchmarkWallTick models the wall-mode sampler: every tick writes one
// sample per goroutine, round robin over 10,000 goroutines whose stacks
// (depth 20) rarely change. It is the writer's cost per sample at the
// sampler's highest volume.
func BenchmarkWallTick(b *testing.B) {
	const goroutines = 10000
	var d discard
	w, err := writer.New(&d, writer.Options{Compression: tachyon.CompressionZstd})
	if err != nil {
		b.Fatal(err)
	}
	stacks := make([][]uint32, goroutines)
	for g := range stacks {
		for j := range 20 {
			stacks[g] = append(stacks[g], w.Frame(tachyon.Frame{File: "f.go", Func: "fn", Line: int32((g%50)*20 + j)}))
		}
	}
	ts := uint64(0)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		g := i % goroutines
		if g == 0 {
			ts += 10000
		}
		st := stacks[g]
		if i%97 == 0 { // an occasional change of the innermost frame
			st[0] ^= 1
		}
		if err := w.WriteStack(uint64(g)*7+1000, 0, ts, tachyon.StatusOnCPU, st); err != nil {
			b.Fatal(err)
		}
		i++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "samples/s")
	w.Close()
}
