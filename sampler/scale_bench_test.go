package sampler

import (
	"bytes"
	"context"
	"flag"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/gotrace"
	"github.com/gotachyon/profiler/internal/offheap"
	"github.com/gotachyon/profiler/internal/testing/seekbuf"
	"github.com/gotachyon/profiler/internal/workload/benchload"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

var (
	parkedN    = flag.Int("parked", 10000, "BenchmarkTraceParked: parked goroutines in the recorded trace")
	parkedFile = flag.String("parked-file", "", "BenchmarkTraceParked: a trace file to read if it exists, else to save the recorded trace in (so that two builds read the same trace)")
)

// parkedTrace is a recorded trace of *parkedN goroutines parked
// benchload.ParkDepth frames deep, recorded once per process.
var parkedTrace struct {
	once sync.Once
	n    int
	data []byte
}

// recordParked records about seven generations of execution trace, with
// the CPU profiler alongside, while n goroutines are parked.
func recordParked(tb testing.TB, n int) []byte {
	parkedTrace.once.Do(func() {
		if *parkedFile != "" {
			if data, err := os.ReadFile(*parkedFile); err == nil {
				parkedTrace.n, parkedTrace.data = n, data
				return
			}
			defer func() {
				if err := os.WriteFile(*parkedFile, parkedTrace.data, 0o644); err != nil {
					tb.Fatal(err)
				}
			}()
		}
		release := benchload.Park(n)
		defer release()
		time.Sleep(100 * time.Millisecond)
		// A generation of many goroutines takes longer than a second (the
		// runtime's own report of them): about seven generations in all.
		d := 7200*time.Millisecond + time.Duration(n)*6*time.Microsecond
		parkedTrace.n, parkedTrace.data = n, traceFor(tb, d)
	})
	if parkedTrace.n != n {
		tb.Fatalf("recorded %d goroutines, want %d", parkedTrace.n, n)
	}
	return parkedTrace.data
}

// generations counts a recorded trace's generations (its Syncs but the
// last, which ends the trace).
func generations(tb testing.TB, data []byte) int {
	rd, err := gotrace.NewReader(bytes.NewReader(data))
	if err != nil {
		tb.Fatal(err)
	}
	defer rd.Close()
	var ev gotrace.Event
	n := 0
	for {
		if err := rd.Next(&ev); err == io.EOF {
			break
		} else if err != nil {
			tb.Fatal(err)
		}
		if ev.Kind == gotrace.Sync {
			n++
		}
	}
	return n - 1
}

// warmGens is how many generations BenchmarkTraceParked leaves untimed:
// the first reports every goroutine as new, and the sampler writes each
// goroutine's first sample (its handle made) over the next four.
const warmGens = 5

// BenchmarkTraceParked reads a recorded trace of -parked goroutines
// (10,000) that do nothing, about seven generations long, alone (read) and
// through the wall-mode state machine at 100 Hz into a discarding sink
// (fold), and into a Tachyon writer with zstd (fold-file: the whole of
// the profiler's own work). The runtime reports every goroutine's status at each
// generation's start: ns/g-gen is the cost of one such report of a
// goroutine that did not change, read (and folded; fold-watermark into a
// sink that takes watermarks, as the default profile's segments do),
// timed from the sixth
// generation on (cpu-ns/g-gen the process's CPU time in the same parts,
// less noisy on a shared machine), and heap-B/g the heap the reader (and the fold) hold per
// goroutine at the trace's end, offheap-B/g what they hold off the heap
// (package offheap: the reader's records). Run it at 100,000 and 1,000,000 with
//
//	go test ./sampler -run '^$' -bench TraceParked -parked 100000
func BenchmarkTraceParked(b *testing.B) {
	n := *parkedN
	data := recordParked(b, n)
	gens := generations(b, data) - warmGens
	if gens < 1 {
		b.Fatalf("%d generations recorded", gens+warmGens)
	}
	b.Run("read", func(b *testing.B) {
		benchParked(b, data, n, gens, func(src source) func(*gotrace.Event) { return func(*gotrace.Event) {} })
	})
	b.Run("fold", func(b *testing.B) {
		benchParked(b, data, n, gens, func(src source) func(*gotrace.Event) {
			tb := newTraceBackend(newEmitter(Config{Mode: Wall, Rate: 100}, newDropSink()), src, time.Now())
			return tb.handle
		})
	})
	b.Run("fold-file", func(b *testing.B) {
		benchParked(b, data, n, gens, func(src source) func(*gotrace.Event) {
			w, err := writer.New(&seekbuf.Discard{}, writer.Options{Compression: tachyon.CompressionZstd})
			if err != nil {
				b.Fatal(err)
			}
			sink := writerSink{w}
			tb := newTraceBackend(newEmitter(Config{Mode: Wall, Rate: 100}, sink), src, time.Now())
			return tb.handle
		})
	})
	b.Run("fold-watermark", func(b *testing.B) {
		benchParked(b, data, n, gens, func(src source) func(*gotrace.Event) {
			tb := newTraceBackend(newEmitter(Config{Mode: Wall, Rate: 100}, watermarkSink{newDropSink()}), src, time.Now())
			return tb.handle
		})
	})
	b.Run("end", func(b *testing.B) { benchParkedEnd(b, data, n, gens+warmGens) })
}

// benchParkedEnd times what a Stop does after the runtime's own stop,
// per goroutine (ns/g, cpu-ns/g): the last generation's parse, every
// goroutine's last ticks, and the writer's Close (each thread's last
// record, the file's end) into a writer with zstd. Every goroutine's
// ticks before the last generation are written first, untimed, as
// Stop's early settle writes them while the runtime stops.
func benchParkedEnd(b *testing.B, data []byte, n, gens int) {
	var cpu time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		src, err := newSource(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		w, err := writer.New(&seekbuf.Discard{}, writer.Options{Compression: tachyon.CompressionZstd})
		if err != nil {
			b.Fatal(err)
		}
		tb := newTraceBackend(newEmitter(Config{Mode: Wall, Rate: 100}, writerSink{w}), src, time.Now())
		replay(b, src, func(gen int) {
			if gen == gens {
				for bk := range settleEvery {
					tb.settleBucket(bk, false)
				}
				w.Finishing()
				// As Stop does once the runtime's trace is whole in
				// the pipe: the last generation's end settles no share,
				// since finish writes every goroutine's ticks.
				tb.handedOver.Store(time.Now().UnixNano())
				runtime.GC()
				b.StartTimer()
				cpu -= processCPU()
				pprof.SetGoroutineLabels(timed)
			}
		}, tb.handle)
		tb.finish(false)
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		closeSource(src)
		cpu += processCPU()
		pprof.SetGoroutineLabels(context.Background())
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/g")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/float64(n), "cpu-ns/g")
	b.ReportMetric(0, "ns/op")
}

// writerSink is the Sink of a Tachyon writer, as package profiler makes
// it: a goroutine is a thread of interpreter 0, numbered (Streams).
type writerSink struct{ w *writer.Writer }

func (s writerSink) Frame(f tachyon.Frame) uint32  { return s.w.Frame(f) }
func (s writerSink) Goroutine(id uint64) Goroutine { return s.w.NewThread(id, 0) }
func (s writerSink) Stream(id uint64) uint32       { return uint32(s.w.NewThreadNo(id, 0)) }
func (s writerSink) WriteStream(n uint32, ts uint64, st tachyon.Status, stack []uint32) error {
	return s.w.WriteNo(writer.ThreadNo(n), ts, st, stack)
}
func (s writerSink) RepeatStream(n uint32, ts, step uint64, k int, st tachyon.Status) error {
	return s.w.RepeatEveryNo(writer.ThreadNo(n), ts, step, k, st)
}
func (s writerSink) FlushStream(n uint32) { s.w.FlushNo(writer.ThreadNo(n)) }
func (s writerSink) RepeatFlushStream(n uint32, ts, step uint64, k int, st tachyon.Status) error {
	return s.w.RepeatFlushNo(writer.ThreadNo(n), ts, step, k, st)
}
func (s writerSink) ForgetStream(n uint32) { s.w.ForgetNo(writer.ThreadNo(n)) }

// watermarkSink is a Sink that takes watermarks, as a segment writer does,
// and throws them away.
type watermarkSink struct{ *memSink }

func (watermarkSink) Watermark(uint64) {}

// timed labels the timed parts of BenchmarkTraceParked, for its CPU
// profile: go tool pprof -tagfocus part=timed.
var timed = pprof.WithLabels(context.Background(), pprof.Labels("part", "timed"))

// benchParked times, per iteration, reading data from generation warmGens+1
// on, each event passed to the handler newHandler returns.
func benchParked(b *testing.B, data []byte, n, gens int, newHandler func(source) func(*gotrace.Event)) {
	b.ReportAllocs()
	var heap, off float64
	var cpu time.Duration // the process's CPU in the timed parts
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		h0, off0 := liveHeap(), offheap.InUse()
		src, err := newSource(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		handle := newHandler(src)
		replay(b, src, func(gen int) {
			if gen == warmGens+1 {
				b.StartTimer()
				cpu -= processCPU()
				pprof.SetGoroutineLabels(timed)
			}
		}, handle)
		b.StopTimer()
		cpu += processCPU()
		pprof.SetGoroutineLabels(context.Background())
		heap = (float64(liveHeap()) - float64(h0)) / float64(n)
		off = float64(offheap.InUse()-off0) / float64(n)
		runtime.KeepAlive(handle)
		closeSource(src)
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n*gens), "ns/g-gen")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/float64(n*gens), "cpu-ns/g-gen")
	b.ReportMetric(heap, "heap-B/g")
	b.ReportMetric(off, "offheap-B/g")
}

// closeSource gives back what src keeps off the Go heap, as the trace
// backend's loop does when it ends.
func closeSource(src source) {
	if c, ok := src.(io.Closer); ok {
		c.Close()
	}
}

// processCPU returns the process's user and system CPU time: on a shared
// machine, less noisy than the wall time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// liveHeap returns the heap in use after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
