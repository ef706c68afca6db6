package recent

import (
	"context"
	"testing"
	"time"

	"github.com/gotachyon/profiler/sampler"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// TestSharedStacksExact: goroutines of one stack, through chunk rolls,
// one of them moving to another stack and one ending, share two stacks,
// which go once every goroutine has ended, and read back from the window
// as the primary file has them.
func TestSharedStacksExact(t *testing.T) {
	var pbuf seekBuf
	pw, err := writer.New(&pbuf, writer.Options{StartTime: t0, Interval: step})
	if err != nil {
		t.Fatal(err)
	}
	w, err := New(Options{Duration: time.Minute, Chunks: 60, StartTime: t0, Interval: step})
	if err != nil {
		t.Fatal(err)
	}
	tee := Tee(primarySink{pw}, w)
	var s1, s2 []uint32
	for i := range 6 {
		s1 = append(s1, tee.Frame(tachyonFrame("park"+string(rune('a'+i)))))
		s2 = append(s2, tee.Frame(tachyonFrame("run"+string(rune('a'+i)))))
	}
	blocked, running := tachyon.StatusOf(tachyon.Blocked, false), tachyon.StatusOf(tachyon.Running, false)
	handles := make([]sampler.Goroutine, 51)
	ts := t0
	for id := 1; id <= 50; id++ {
		handles[id] = tee.Goroutine(uint64(id))
		if err := handles[id].Write(ts, blocked, s1); err != nil {
			t.Fatal(err)
		}
	}
	// Five seconds, a second a chunk: every goroutine's first sample in
	// a chunk is written with its full stack, from the shared copy.
	const ticks = 100
	for second := range 5 {
		for id, h := range handles {
			if h == nil {
				continue
			}
			st := blocked
			switch {
			case second == 2 && id == 7:
				if err := h.Write(ts+step, running, s2); err != nil {
					t.Fatal(err)
				}
			case second == 3 && id == 9:
				h.Forget()
				handles[id] = nil
				continue
			}
			if id == 7 && second >= 2 {
				st = running
			}
			if err := h.RepeatEvery(ts+2*step, step, ticks-2, st); err != nil {
				t.Fatal(err)
			}
			h.Flush()
		}
		ts += ticks * step
		w.Watermark(ts)
	}
	if w.stacks.Shared() != 2 || w.stacks.Frames() != 12 {
		t.Fatalf("48 goroutines of one stack and one of another: the window holds %d frames of %d stacks", w.stacks.Frames(), w.stacks.Shared())
	}
	for _, h := range handles {
		if h != nil {
			h.Forget()
		}
	}
	if w.stacks.Shared() != 0 || w.stacks.Frames() != 0 {
		t.Fatalf("every goroutine ended: the window holds %d frames of %d stacks", w.stacks.Frames(), w.stacks.Shared())
	}
	w.Close()
	if err := pw.Close(); err != nil {
		t.Fatal(err)
	}
	if st := w.Stats(); st.Rolls < 5 {
		t.Fatalf("%d chunks rolled, want 5", st.Rolls)
	}
	var out seekBuf
	if _, err := w.WriteFile(context.Background(), &out, us(t0), us(ts+1)); err != nil {
		t.Fatal(err)
	}
	sameSamples(t, pbuf.bytes(), out.bytes())
}
