package sampler

import (
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/gotrace"
)

// knownSource is a source that knows a goroutine once told to, as
// gotrace's reader knows one from its first event, and keeps the numbers
// given to the goroutines it knows. Its events are handed to the backend
// by the test.
type knownSource struct {
	known map[uint64]bool
	users map[uint64]uint32
}

func (s *knownSource) NextEvent() (*gotrace.Event, error) { return &gotrace.Event{}, nil }

func (s *knownSource) Stack(id uint64) []gotrace.Frame {
	if id == 0 {
		return nil
	}
	return []gotrace.Frame{{PC: 0x1000, Func: "main.work", File: "main.go", Line: 10}, {PC: 0x2000, Func: "main.main", File: "main.go", Line: 3}}
}

func (s *knownSource) Reason(uint32) string         { return "" }
func (s *knownSource) String(uint64) string         { return "" }
func (s *knownSource) Clock() (gotrace.Clock, bool) { return gotrace.Clock{}, false }

func (s *knownSource) SetUser(id uint64, v uint32) bool {
	if !s.known[id] {
		return false
	}
	s.users[id] = v
	return true
}

func (s *knownSource) User(id uint64) uint32 { return s.users[id] }

// TestNumberedLater: a goroutine met in a CPU sample before the source
// knows it is kept by id, numbered once the source knows it, found by its
// number after, and let go at its end: one record all along.
func TestNumberedLater(t *testing.T) {
	src := &knownSource{known: map[uint64]bool{}, users: map[uint64]uint32{}}
	tb := newTraceBackend(newEmitter(Config{Mode: Wall, Rate: 100}, newDropSink()), src, time.Now())
	const g = 7
	ms := gotrace.Time(time.Millisecond)
	tb.handle(&gotrace.Event{Kind: gotrace.Sync, Time: 1})
	tb.handle(&gotrace.Event{Kind: gotrace.Sample, Time: 5 * ms, G: g, Stack: 1})
	if tb.recs.live != 1 || len(tb.unattached) != 1 || src.users[g] != 0 {
		t.Fatalf("after the sample: %d live, %d kept by id, number %d; want 1, 1, 0", tb.recs.live, len(tb.unattached), src.users[g])
	}
	src.known[g] = true // the source meets it
	tb.handle(&gotrace.Event{Kind: gotrace.Transition, Time: 15 * ms, G: g, From: gotrace.GoUndetermined, To: gotrace.GoRunning})
	u := src.users[g]
	if tb.recs.live != 1 || len(tb.unattached) != 0 || u == 0 || tb.recs.at(u) == nil || tb.recs.at(u).id != g {
		t.Fatalf("after its first event: %d live, %d kept by id, number %d; want 1, 0, its record's", tb.recs.live, len(tb.unattached), u)
	}
	tb.handle(&gotrace.Event{Kind: gotrace.Transition, Time: 25 * ms, G: g, User: u, From: gotrace.GoRunning, To: gotrace.GoWaiting, Stack: 1})
	if tb.recs.live != 1 || tb.find(g) != tb.recs.at(u) {
		t.Fatalf("after a block: %d live, want 1, found by number", tb.recs.live)
	}
	tb.handle(&gotrace.Event{Kind: gotrace.Transition, Time: 35 * ms, G: g, User: u, From: gotrace.GoWaiting, To: gotrace.GoNotExist})
	if tb.recs.live != 0 || tb.recs.at(u) != nil || len(tb.recs.free) != 1 {
		t.Fatalf("after its end: %d live, number %d's record %v, %d free numbers", tb.recs.live, u, tb.recs.at(u), len(tb.recs.free))
	}
	// A CPU sample of it ordered after its end does not bring it back.
	tb.handle(&gotrace.Event{Kind: gotrace.Sample, Time: 36 * ms, G: g, Stack: 1})
	if tb.recs.live != 0 {
		t.Fatalf("a sample after its end made %d live", tb.recs.live)
	}
}

// TestNoNumbers: with a source that keeps no numbers (golang.org/x/exp/
// trace's), every goroutine is found by id.
func TestNoNumbers(t *testing.T) {
	src := &knownSource{known: map[uint64]bool{}, users: map[uint64]uint32{}} // knows none
	tb := newTraceBackend(newEmitter(Config{Mode: Wall, Rate: 100}, newDropSink()), src, time.Now())
	ms := gotrace.Time(time.Millisecond)
	tb.handle(&gotrace.Event{Kind: gotrace.Sync, Time: 1})
	for g := uint64(1); g <= 3; g++ {
		tb.handle(&gotrace.Event{Kind: gotrace.Transition, Time: gotrace.Time(g) * ms, G: g, From: gotrace.GoNotExist, To: gotrace.GoRunnable, Stack: 1})
	}
	for g := uint64(1); g <= 3; g++ {
		tb.handle(&gotrace.Event{Kind: gotrace.Transition, Time: gotrace.Time(10+g) * ms, G: g, From: gotrace.GoRunnable, To: gotrace.GoRunning})
	}
	if tb.recs.live != 3 || len(tb.unattached) != 3 {
		t.Fatalf("%d live, %d kept by id; want 3, 3", tb.recs.live, len(tb.unattached))
	}
	tb.handle(&gotrace.Event{Kind: gotrace.Transition, Time: 20 * ms, G: 2, From: gotrace.GoRunning, To: gotrace.GoNotExist})
	if tb.recs.live != 2 || len(tb.unattached) != 2 || tb.find(2) != nil || tb.find(3) == nil {
		t.Fatalf("after goroutine 2's end: %d live, %d kept by id", tb.recs.live, len(tb.unattached))
	}
}
