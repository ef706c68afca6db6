package recent

import (
	"context"
	"reflect"
	"testing"
	"time"
)

// TestFinishingReadsTheSame: a window told Finishing midway, whose chunk
// writers then compress on several cores, holds the same samples as one
// that was not.
func TestFinishingReadsTheSame(t *testing.T) {
	run := func(finishing bool) []byte {
		w, err := New(Options{Duration: time.Minute, StartTime: t0, Interval: step})
		if err != nil {
			t.Fatal(err)
		}
		s := newSim(w, t0, step, 300, false)
		for i := range 2000 {
			s.spawn(i%10 == 0, 0)
		}
		for g := range 8 {
			if g == 4 && finishing {
				w.Finishing()
			}
			s.generation(gen)
		}
		if w.told != finishing {
			t.Fatalf("finishing %v: the open chunk's writer told %v", finishing, w.told)
		}
		w.Close()
		var out seekBuf
		if _, err := w.WriteFile(context.Background(), &out, us(t0), us(s.now)); err != nil {
			t.Fatal(err)
		}
		return out.bytes()
	}
	_, want := readAll(t, run(false))
	_, got := readAll(t, run(true))
	if len(want) == 0 || !reflect.DeepEqual(got, want) {
		t.Fatalf("told Finishing, the window holds %d samples, not the same as the %d of one that was not", len(got), len(want))
	}
}
