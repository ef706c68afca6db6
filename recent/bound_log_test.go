package recent

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gotachyon/profiler/tachyon"
)

// TestBoundTooSmallIsSaid keeps a window whose bound is below what its
// open chunk's writer alone is counted for: every chunk is dropped as it
// is finalized. That must be said (once), and a file asked of it must
// state an empty span that ends at the time asked at the latest, not
// one that starts after it.
func TestBoundTooSmallIsSaid(t *testing.T) {
	var mu sync.Mutex
	var logs []string
	w, err := New(Options{Duration: 10 * time.Second, MaxBytes: 1 << 20, StartTime: t0, Interval: step,
		Logf: func(format string, args ...any) {
			mu.Lock()
			logs = append(logs, fmt.Sprintf(format, args...))
			mu.Unlock()
		}})
	if err != nil {
		t.Fatal(err)
	}
	ts := writeParked(t, w, 10, 600) // 6 s at 100 Hz
	st := w.Stats()
	if st.Dropped == 0 || st.Chunks != 0 {
		t.Fatalf("want every chunk dropped for the bound: %+v", st)
	}
	mu.Lock()
	said := strings.Join(logs, "\n")
	n := len(logs)
	mu.Unlock()
	if n != 1 || !strings.Contains(said, "keeps no samples") {
		t.Errorf("want one log line saying the window keeps nothing, got %d:\n%s", n, said)
	}
	asked := us(ts - 2_000_000)
	sp, err := w.WriteFile(context.Background(), &seekBuf{}, asked.Add(-2*time.Second), asked)
	if err != nil {
		t.Fatal(err)
	}
	if sp.Samples != 0 || sp.From.After(sp.To) || sp.To.After(asked) {
		t.Errorf("span %v to %v (%d samples) of a file asked to end at %v: want an empty span ending there at the latest", sp.From, sp.To, sp.Samples, asked)
	}
	w.Close()
}

// TestLaggingWatermarkNoRollStorm writes 10 s of samples whose watermark
// lags them by 5 s, three of the window's chunks (as the trace backend's
// does after a burst of goroutines ended): the window must roll about
// once a chunk's period, not at every sample, and keep every sample.
func TestLaggingWatermarkNoRollStorm(t *testing.T) {
	w, err := New(Options{Duration: 10 * time.Second, StartTime: t0, Interval: step})
	if err != nil {
		t.Fatal(err)
	}
	fr := w.Frame(tachyon.Frame{File: "x.go", Func: "main.parked", Line: 1})
	var ths []*Thread
	for id := range uint64(10) {
		ths = append(ths, w.Thread(id+1))
	}
	const lag = 5_000_000
	ts := t0
	for range 1000 {
		for _, th := range ths {
			if err := th.Write(ts, tachyon.StatusOf(tachyon.Blocked, false), []uint32{fr}); err != nil {
				t.Fatal(err)
			}
		}
		if ts > t0+lag {
			w.Watermark(ts - lag)
		}
		ts += step
	}
	st := w.Stats()
	if st.Rolls > 20 {
		t.Errorf("%d chunks rolled for 10 s of samples in chunks of %v: want about one a chunk", st.Rolls, w.Duration()/DefaultChunks)
	}
	w.Close()
	var b seekBuf
	sp, err := w.WriteFile(context.Background(), &b, us(t0), us(ts))
	if err != nil {
		t.Fatal(err)
	}
	if sp.Samples != 10_000 {
		t.Errorf("%d samples in the window, want 10000", sp.Samples)
	}
}

// TestDefaultBoundHoldsSamplesAtScale keeps the default window (MaxBytes
// 0) of more goroutines than a bound of all its memory leaves room for a
// chunk beside their state: the default bounds the chunks alone, so the
// window keeps its samples and drops none for the bound.
func TestDefaultBoundHoldsSamplesAtScale(t *testing.T) {
	var logs []string
	w, err := New(Options{Duration: 2 * time.Second, StartTime: t0, Interval: step,
		Logf: func(format string, args ...any) { logs = append(logs, fmt.Sprintf(format, args...)) }})
	if err != nil {
		t.Fatal(err)
	}
	n := (DefaultMaxBytes-writerBytes)/threadBytes + 1_000 // their state alone takes the default's bytes
	writeParked(t, w, n, 60)                               // 0.6 s at 100 Hz, past the first chunk's period of 1/6 of the window
	st := w.Stats()
	if st.Chunks == 0 || st.Dropped != 0 || len(logs) != 0 {
		t.Errorf("%d goroutines under the default bound: %+v, logs %q; want chunks kept and none dropped", n, st, logs)
	}
	w.Close()
}

// writeParked writes ticks ticks of n parked goroutines from t0, a
// watermark every ten, and returns the time after the last.
func writeParked(t *testing.T, w *Window, n, ticks int) uint64 {
	t.Helper()
	fr := w.Frame(tachyon.Frame{File: "x.go", Func: "main.parked", Line: 1})
	ths := make([]*Thread, n)
	for i := range ths {
		ths[i] = w.Thread(uint64(i + 1))
	}
	ts := t0
	for tick := range ticks {
		for _, th := range ths {
			if err := th.Write(ts, tachyon.StatusOf(tachyon.Blocked, false), []uint32{fr}); err != nil {
				t.Fatal(err)
			}
		}
		if tick%10 == 9 {
			w.Watermark(ts + 1)
		}
		ts += step
	}
	return ts
}
