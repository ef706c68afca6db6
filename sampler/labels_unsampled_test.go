package sampler

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gotachyon/profiler/tachyon"
)

// TestUnsampledLabelSetsLeaveNoFrames: a label set enters the sink's frame
// table, which lasts as long as the profile, only when a sample carries
// it. A label per request (a span id) changed 5,000 times between two
// ticks leaves the frames of the few sets sampled, not one per request:
// before, every set's frames were interned as the trace told of it, and a
// service's heap grew with its requests (about 220 B a request).
func TestUnsampledLabelSetsLeaveNoFrames(t *testing.T) {
	sink := newMemSink()
	s, err := Start(Config{Mode: Wall, Rate: 100, Backend: Trace}, sink)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	ctx := context.Background()
	const n = 5000
	done := make(chan struct{})
	go func() {
		for i := range n {
			setLabels(ctx, "span", strconv.Itoa(i))
		}
		setLabels(ctx)
		close(done)
	}()
	<-done
	time.Sleep(50 * time.Millisecond)
	if _, err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	sampled := map[string]bool{}
	for _, smp := range sink.all() {
		for _, f := range smp.stack {
			if l, ok := tachyon.LabelOf(f); ok && l.Key == "span" {
				sampled[l.Value] = true
			}
		}
	}
	interned := 0
	sink.mu.Lock()
	for _, f := range sink.frames {
		if tachyon.IsLabel(f) && strings.HasPrefix(f.Func, "span=") {
			interned++
		}
	}
	sink.mu.Unlock()
	if interned > len(sampled) {
		t.Errorf("%d span label frames in the sink for %d sets, %d of them sampled: want no more than the sampled", interned, n, len(sampled))
	}
	t.Logf("%d span label frames interned, %d sampled, of %d sets", interned, len(sampled), n)
}
