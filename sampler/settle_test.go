package sampler

import (
	"bytes"
	"sync"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/testing/seekbuf"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// TestSettleRunsMatchSamples replays one trace (parked goroutines, a
// spinner and goroutines that sleep, wake and exit) into a sink, which gets
// runs of unchanged ticks through RepeatEvery. The sink must hold as many
// samples as the emitter counted, and every goroutine's samples must sit
// exactly on the tick grid, one per tick, with no gap between its first
// and last.
func TestSettleRunsMatchSamples(t *testing.T) {
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // churn: short-lived goroutines sleeping 1-30 ms
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(7 * time.Millisecond):
			}
			wg.Add(1)
			go func() { defer wg.Done(); time.Sleep(time.Duration(1+i%30) * time.Millisecond) }()
		}
	}()
	data := recordTrace(t, 200, 300*time.Millisecond)
	close(stop)
	wg.Wait()

	rd, err := newSource(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	sink := newMemSink()
	em := newEmitter(Config{Mode: Wall, Rate: 100}, sink)
	if err := newTraceBackend(em, rd, time.Unix(1e9, 0)).consume(); err != nil {
		t.Fatal(err)
	}
	byG := map[uint64][]uint64{}
	samples := sink.all()
	for _, s := range samples {
		byG[s.gid] = append(byG[s.gid], s.ts)
	}
	if uint64(len(samples)) != em.samples || len(byG) != em.goroutines {
		t.Fatalf("the sink holds %d samples of %d goroutines, the emitter counted %d of %d", len(samples), len(byG), em.samples, em.goroutines)
	}
	if ids := sink.twice(); len(ids) > 0 {
		t.Fatalf("the sink gave out two handles or more for goroutines %v", ids)
	}
	if len(byG) < 200 || em.ticks < 20 {
		t.Fatalf("only %d goroutines and %d ticks", len(byG), em.ticks)
	}
	for g, ts := range byG {
		for i := 1; i < len(ts); i++ {
			if ts[i]-ts[i-1] != 10000 {
				t.Fatalf("g%d: samples at %d then %d µs, want one per 10 ms tick", g, ts[i-1], ts[i])
			}
		}
	}
}

// TestSettleRunFlusher replays one trace (parked goroutines and one that
// wakes every 5 ms) into two writers, through a sink that is a RunFlusher
// and through the same sink without: the files are byte for byte the same,
// and the settles gave the first one the parked goroutines' runs in one
// call.
func TestSettleRunFlusher(t *testing.T) {
	data := recordParkedWaking(t, 300, 1500*time.Millisecond)
	replay := func(sink func(*writer.Writer) Sink) []byte {
		t.Helper()
		rd, err := newSource(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		var out seekbuf.Buffer
		w, err := writer.New(&out, writer.Options{StartTime: 1e15, Compression: tachyon.CompressionZstd})
		if err != nil {
			t.Fatal(err)
		}
		if err := newTraceBackend(newEmitter(Config{Mode: Wall, Rate: 100}, sink(w)), rd, time.Unix(1e9, 0)).consume(); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return out.Bytes()
	}
	var fused int
	together := replay(func(w *writer.Writer) Sink { return countedFlusher{writerSink{w}, &fused} })
	apart := replay(func(w *writer.Writer) Sink { return streamsOnly{writerSink{w}} })
	if !bytes.Equal(together, apart) {
		t.Fatalf("the files differ: %d bytes through a RunFlusher, %d without", len(together), len(apart))
	}
	if fused < 300/settleEvery {
		t.Fatalf("%d runs given with their flush, want a settle's share of the parked goroutines at least", fused)
	}
}

// countedFlusher is a writerSink that counts its RepeatFlushStream calls.
type countedFlusher struct {
	writerSink
	n *int
}

func (s countedFlusher) RepeatFlushStream(n uint32, ts, step uint64, k int, st tachyon.Status) error {
	*s.n++
	return s.writerSink.RepeatFlushStream(n, ts, step, k, st)
}

// streamsOnly is a Sink that implements Streams, and not RunFlusher.
type streamsOnly struct{ s writerSink }

func (s streamsOnly) Frame(f tachyon.Frame) uint32  { return s.s.Frame(f) }
func (s streamsOnly) Goroutine(id uint64) Goroutine { return s.s.Goroutine(id) }
func (s streamsOnly) Stream(id uint64) uint32       { return s.s.Stream(id) }
func (s streamsOnly) WriteStream(n uint32, ts uint64, st tachyon.Status, stack []uint32) error {
	return s.s.WriteStream(n, ts, st, stack)
}
func (s streamsOnly) RepeatStream(n uint32, ts, step uint64, k int, st tachyon.Status) error {
	return s.s.RepeatStream(n, ts, step, k, st)
}
func (s streamsOnly) FlushStream(n uint32)  { s.s.FlushStream(n) }
func (s streamsOnly) ForgetStream(n uint32) { s.s.ForgetStream(n) }
