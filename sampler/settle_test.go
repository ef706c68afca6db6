package sampler

import (
	"bytes"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/seekbuf"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// TestSettleRunsMatchSamples replays one trace (parked goroutines, a
// spinner and goroutines that sleep, wake and exit) twice: into a plain Sink,
// which gets every tick one sample at a time, and into a writer, which gets
// runs of unchanged ticks through RepeatEvery. Both must hold the same
// samples, and every goroutine's samples must sit exactly on the tick grid,
// one per tick, with no gap between its first and last.
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

	replay := func(sink Sink) *emitter {
		rd, err := newSource(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		st := newEmitter(Config{Mode: Wall, Rate: 100}, sink)
		if err := newTraceBackend(st, rd, time.Unix(1e9, 0)).consume(); err != nil {
			t.Fatal(err)
		}
		return st
	}
	mem := newMemSink()
	stMem := replay(mem)
	var want []string
	for _, s := range mem.all() {
		want = append(want, fmt.Sprintf("%d %d %d %v", s.gid, s.ts, s.status, s.stack))
	}

	var file seekbuf.Buffer
	w, err := writer.New(&file, writer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	stW := replay(w)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if stW.samples != stMem.samples || stW.ticks != stMem.ticks || stW.goroutines != stMem.goroutines {
		t.Fatalf("writer: %d samples %d ticks %d goroutines; plain sink: %d %d %d",
			stW.samples, stW.ticks, stW.goroutines, stMem.samples, stMem.ticks, stMem.goroutines)
	}
	f, err := reader.NewFileBytes(file.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	byG := map[uint64][]uint64{}
	it := f.Samples()
	defer it.Close()
	for it.Next() {
		s := it.Sample()
		var fr []tachyon.Frame
		for _, x := range it.Frames(nil) {
			fr = append(fr, tachyon.Frame{File: x.File, Func: x.Func, Line: x.Line})
		}
		got = append(got, fmt.Sprintf("%d %d %d %v", s.ThreadID, s.Timestamp, s.Status, fr))
		byG[s.ThreadID] = append(byG[s.ThreadID], s.Timestamp)
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("writer holds %d samples, plain sink %d; first difference at %d", len(got), len(want), firstDiff(got, want))
	}
	if len(byG) < 200 || stW.ticks < 20 {
		t.Fatalf("only %d goroutines and %d ticks", len(byG), stW.ticks)
	}
	for g, ts := range byG {
		for i := 1; i < len(ts); i++ {
			if ts[i]-ts[i-1] != 10000 {
				t.Fatalf("g%d: samples at %d then %d µs, want one per 10 ms tick", g, ts[i-1], ts[i])
			}
		}
	}
}

func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
