package sampler

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/tachyon"
)

// TestLabelValuesBounded: a label per request (a request id) interns a
// frame per value in the sink's tables, which last as long as the
// profile, and a segment writer's and a recent window's as long as the
// process: the audit's soak grew by about 415 B a request without end.
// Past maxKeyValues values of one key, its further values share one
// frame; other keys keep theirs, and the log says so once.
func TestLabelValuesBounded(t *testing.T) {
	sink := newMemSink()
	var logs []string
	em := newEmitter(Config{Mode: Wall, Rate: 100, Log: func(m string) { logs = append(logs, m) }}, sink)
	frame := func(k, v string) uint32 {
		i, ok := em.labelFrame(tachyon.LabelFrame(tachyon.Label{Key: k, Value: v}))
		if !ok {
			t.Fatalf("%s=%s left out", k, v)
		}
		return i
	}
	n := maxKeyValues + 2000
	for i := range n {
		frame("req", strconv.Itoa(i))
	}
	over := frame("req", "again")
	if f := sink.frames[over]; f.Func != "req="+tachyon.LabelValuesOver {
		t.Errorf("a value past the bound is %q, want req=%s", f.Func, tachyon.LabelValuesOver)
	}
	if i := frame("req", "17"); sink.frames[i].Func != "req=17" {
		t.Errorf("a value admitted before the bound is %q after it", sink.frames[i].Func)
	}
	if i := frame("route", "/api"); sink.frames[i].Func != "route=/api" {
		t.Errorf("another key's value is %q", sink.frames[i].Func)
	}
	reqs := 0
	for _, f := range sink.frames {
		if strings.HasPrefix(f.Func, "req=") {
			reqs++
		}
	}
	if reqs != maxKeyValues+1 {
		t.Errorf("%d req frames for %d values, want %d", reqs, n, maxKeyValues+1)
	}
	if em.labelBound.over != 1 || len(logs) != 1 || !strings.Contains(logs[0], `"req"`) {
		t.Errorf("%d keys over, log %q: want req's, once", em.labelBound.over, logs)
	}
	for i := range maxLabelKeys - 2 { // req and route are two
		frame("k"+strconv.Itoa(i), "v")
	}
	if _, ok := em.labelFrame(tachyon.LabelFrame(tachyon.Label{Key: "one-too-many", Value: "v"})); ok {
		t.Errorf("a key past %d kept", maxLabelKeys)
	}
}

// TestLabelValuesBoundedLive: goroutines parked under a request id each,
// more than one key may keep (a bound lowered for the test), are sampled under their own value up to the
// bound and under tachyon.LabelValuesOver past it, their time kept, and
// Stats says so.
func TestLabelValuesBoundedLive(t *testing.T) {
	defer func(n int) { maxKeyValues = n }(maxKeyValues)
	maxKeyValues = 300
	n := maxKeyValues + 100
	sink := newMemSink()
	s, err := Start(Config{Mode: Wall, Rate: 100, Backend: Trace}, sink)
	if err != nil {
		t.Fatal(err)
	}
	var ready, done sync.WaitGroup
	quit := make(chan struct{})
	ready.Add(n)
	done.Add(n)
	for i := range n {
		go func() {
			defer done.Done()
			setLabels(context.Background(), "req", strconv.Itoa(i))
			ready.Done()
			<-quit
		}()
	}
	ready.Wait()
	// The sampler parses the trace of n goroutines' creation and labels,
	// and writes their ticks, a while after: seconds on a loaded machine,
	// and more than Stop's bounded parse of the last generation
	// (Stats.Unparsed) gets through. Stopped 300ms after, with the race
	// detector beside busy processes, it had sampled 4956 to 9354 of them,
	// and never reached the bound.
	if !testutil.WaitFor(2*time.Minute, func() bool { return sink.goroutines() >= n }) {
		t.Logf("%d goroutines written after 2m, want %d", sink.goroutines(), n)
	}
	st, err := s.Stop()
	close(quit)
	done.Wait()
	if err != nil {
		t.Fatal(err)
	}
	values, overSamples := map[string]bool{}, 0
	for _, smp := range sink.all() {
		for _, f := range smp.stack {
			if l, ok := tachyon.LabelOf(f); ok && l.Key == "req" {
				values[l.Value] = true
				if l.Value == tachyon.LabelValuesOver {
					overSamples++
				}
			}
		}
	}
	if len(values) > maxKeyValues+1 || overSamples == 0 || st.LabelsOver != 1 {
		t.Errorf("%d req values sampled, %d samples over the bound, LabelsOver %d: want at most %d, some, 1",
			len(values), overSamples, st.LabelsOver, maxKeyValues+1)
	}
}
