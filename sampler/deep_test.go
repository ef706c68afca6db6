package sampler

import (
	"testing"
	"time"
)

//go:noinline
func deepPark(depth int, ch chan struct{}) {
	if depth > 0 {
		deepPark(depth-1, ch)
		return
	}
	<-ch
}

// TestDeepStacksMarked parks a goroutine 1,000 frames deep: the trace cuts
// its stack before the root, which must end in "[truncated]"; runtime.Stack
// leaves out its middle, which must show "[frames elided]".
func TestDeepStacksMarked(t *testing.T) {
	ch := make(chan struct{})
	defer close(ch)
	go deepPark(1000, ch)
	time.Sleep(50 * time.Millisecond)
	for _, c := range []struct {
		backend Backend
		marker  string
		atRoot  bool
	}{
		{Trace, truncatedFrame, true},
		{Snapshot, elidedFrame, false},
	} {
		sink := newMemSink()
		s, err := Start(Config{Mode: Wall, Rate: 100, Backend: c.backend}, sink)
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(300 * time.Millisecond)
		if _, err := s.Stop(); err != nil {
			t.Fatal(err)
		}
		found, deep := false, 0
		for _, smp := range sink.all() {
			if !smp.hasFunc("sampler.deepPark") || len(smp.stack) < 60 {
				continue
			}
			deep++
			for i, f := range smp.stack {
				if f.Func == c.marker && (!c.atRoot || i == len(smp.stack)-1) {
					found = true
				}
			}
			if !found {
				t.Errorf("%v: a deep stack of %d frames without %s: %v", c.backend, len(smp.stack), c.marker, smp)
			}
			break
		}
		if deep == 0 {
			t.Errorf("%v: no deep stack sampled", c.backend)
		}
		t.Logf("%v: marked %v", c.backend, found)
	}
}
