package recent

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/gotachyon/profiler/sampler"
)

// indexed is a window as a sampler.Sink whose handles come from
// Window.Thread, kept by id.
type indexed struct{ *Window }

func (w indexed) Goroutine(id uint64) sampler.Goroutine { return w.Thread(id) }

// TestNewThread: a window given handles by NewThread (as a sampler's
// Goroutine) keeps none by id, and writes and counts the same as one whose
// handles Thread keeps; Thread gives one handle an id.
func TestNewThread(t *testing.T) {
	var files [2][]byte
	var open [2]int64
	for i, sink := range []func(*Window) sampler.Sink{
		func(w *Window) sampler.Sink { return w },
		func(w *Window) sampler.Sink { return indexed{w} },
	} {
		w, err := New(Options{Duration: time.Minute, StartTime: t0, Interval: step})
		if err != nil {
			t.Fatal(err)
		}
		s := newSim(sink(w), t0, step, 300, false)
		for range 40 {
			s.spawn(false, 0)
		}
		for g := range 30 {
			for range 10 {
				s.spawn(g%2 == 0, 37) // they end within the generation
			}
			s.generation(gen)
		}
		open[i] = w.Stats().Bytes
		if i == 0 && len(w.threads) != 0 {
			t.Errorf("NewThread's handles: %d kept by id, want none", len(w.threads))
		}
		if i == 1 && len(w.threads) != w.live {
			t.Errorf("Thread's handles: %d kept by id, want the %d live", len(w.threads), w.live)
		}
		w.Close()
		if w.live != 40 || w.ownLen == 0 {
			t.Errorf("%d threads live, %d frames of theirs; want the 40 parked ones and their frames", w.live, w.ownLen)
		}
		var out seekBuf
		if _, err := w.WriteFile(context.Background(), &out, us(t0), us(s.now)); err != nil {
			t.Fatal(err)
		}
		files[i] = out.bytes()
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Errorf("the windows' files differ: %d and %d bytes", len(files[0]), len(files[1]))
	}
	if open[0] != open[1] {
		t.Errorf("the windows count %d and %d bytes", open[0], open[1])
	}
	w, err := New(Options{StartTime: t0, Interval: step})
	if err != nil {
		t.Fatal(err)
	}
	if a, b := w.Thread(3), w.Thread(3); a != b || w.live != 1 {
		t.Errorf("Thread(3) twice: %p and %p, %d live; want one handle", a, b, w.live)
	}
}
