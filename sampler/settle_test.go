package sampler

import (
	"bytes"
	"sync"
	"testing"
	"time"
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
