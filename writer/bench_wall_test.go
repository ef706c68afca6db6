package writer_test

import (
	"testing"

	"github.com/gotachyon/profiler/internal/testing/seekbuf"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// BenchmarkWallTick models the wall-mode sampler: every tick writes one
// sample per goroutine, round robin over 10,000 goroutines whose stacks
// (depth 20) rarely change. It is the writer's cost per sample at the
// sampler's highest volume.
func BenchmarkWallTick(b *testing.B) {
	const goroutines = 10000
	var d seekbuf.Discard
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

// BenchmarkParkedSettle models the trace backend's settle of parked
// goroutines: every goroutine's ticks since its last settle (four
// generations of 100 ticks) written as one run of repeats, goroutine after
// goroutine, raw and through zstd. The format holds a (delta, status) pair
// per sample, so this is the cost per sample of a parked goroutine; the
// difference between the two is what compressing those pairs costs. The
// numbered cases write through numbers, as the sampler does: each run and
// its flush in two calls (RepeatEveryNo, FlushNo), and in one
// (RepeatFlushNo).
func BenchmarkParkedSettle(b *testing.B) {
	const goroutines, ticks, step = 10000, 400, 10000
	for _, c := range []struct {
		name  string
		comp  tachyon.Compression
		begin func(b *testing.B, w *writer.Writer, goroutines int) settleFunc
	}{
		{"raw", tachyon.CompressionNone, settleHandles},
		{"zstd", tachyon.CompressionZstd, settleHandles},
		{"zstd/numbered/apart", tachyon.CompressionZstd, settleNumbered(false)},
		{"zstd/numbered/together", tachyon.CompressionZstd, settleNumbered(true)},
	} {
		b.Run(c.name, func(b *testing.B) {
			var d seekbuf.Discard
			w, err := writer.New(&d, writer.Options{Compression: c.comp})
			if err != nil {
				b.Fatal(err)
			}
			settle := c.begin(b, w, goroutines)
			ts := uint64(step)
			b.ReportAllocs()
			for b.Loop() {
				if w.Stats().Samples > 1<<31 {
					// A new file before the header's sample count is full.
					b.StopTimer()
					w.Close()
					if w, err = writer.New(&d, writer.Options{Compression: c.comp}); err != nil {
						b.Fatal(err)
					}
					settle, ts = c.begin(b, w, goroutines), step
					b.StartTimer()
				}
				if err := settle(ts, step, ticks); err != nil {
					b.Fatal(err)
				}
				ts += ticks * step
			}
			samples := float64(b.N) * goroutines * ticks
			b.ReportMetric(b.Elapsed().Seconds()*1e9/samples, "ns/sample")
			b.ReportMetric(float64(d.Size())/samples, "out-B/sample")
			b.ReportMetric(0, "ns/op")
			w.Close()
		})
	}
}

// A settleFunc writes every parked thread's run of ticks samples from ts,
// step apart, and ends it.
type settleFunc func(ts, step uint64, ticks int) error

// settleHandles starts parked threads in w (parkedThreads), and returns
// their settle through handles.
func settleHandles(b *testing.B, w *writer.Writer, goroutines int) settleFunc {
	hs := parkedThreads(b, w, goroutines)
	return func(ts, step uint64, ticks int) error {
		for _, h := range hs {
			if err := h.RepeatEvery(ts, step, ticks, 0); err != nil {
				return err
			}
			h.Flush()
		}
		return nil
	}
}

// settleNumbered returns what settleHandles is for numbered threads: each
// run and its flush in two calls, or in one if together.
func settleNumbered(together bool) func(b *testing.B, w *writer.Writer, goroutines int) settleFunc {
	return func(b *testing.B, w *writer.Writer, goroutines int) settleFunc {
		stack := parkedStack(w)
		ns := make([]writer.ThreadNo, goroutines)
		for g := range ns {
			ns[g] = w.NewThreadNo(uint64(g)*7+1000, 0)
			if err := w.WriteNo(ns[g], 0, 0, stack); err != nil {
				b.Fatal(err)
			}
		}
		return func(ts, step uint64, ticks int) error {
			for _, n := range ns {
				if together {
					if err := w.RepeatFlushNo(n, ts, step, ticks, 0); err != nil {
						return err
					}
					continue
				}
				if err := w.RepeatEveryNo(n, ts, step, ticks, 0); err != nil {
					return err
				}
				w.FlushNo(n)
			}
			return nil
		}
	}
}

// parkedStack interns a parked goroutine's frames in w, and returns them.
func parkedStack(w *writer.Writer) []uint32 {
	return []uint32{w.Frame(tachyon.Frame{File: "chan.go", Func: "runtime.gopark", Line: 1}), w.Frame(tachyon.Frame{File: "main.go", Func: "main.wait", Line: 2})}
}

// parkedThreads starts goroutines threads in w, each with one sample of
// the same parked stack at time 0.
func parkedThreads(b *testing.B, w *writer.Writer, goroutines int) []*writer.Thread {
	b.Helper()
	stack := parkedStack(w)
	hs := make([]*writer.Thread, goroutines)
	for g := range hs {
		hs[g] = w.Thread(uint64(g)*7+1000, 0)
		if err := hs[g].Write(0, 0, stack); err != nil {
			b.Fatal(err)
		}
	}
	return hs
}
