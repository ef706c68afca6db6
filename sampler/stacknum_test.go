package sampler

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/gotrace"
)

// TestStackNums: a stack keeps its number while it is held, a number is
// freed once no holder yields it at a sweep, a stack whose number was freed
// takes a new one, and the numbers in use stay near those held.
func TestStackNums(t *testing.T) {
	var ns stackNums
	if ns.num(nil) != 0 || ns.at(0) != nil {
		t.Fatal("nil is not number 0")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	stacks := make([]*stack, 5000)
	for i := range stacks {
		stacks[i] = &stack{key: uint64(i)}
	}
	held := map[uint32]*stack{} // by number
	for round := range 200 {
		for range 300 {
			s := stacks[rng.IntN(len(stacks))]
			n := ns.num(s)
			if ns.at(n) != s || ns.num(s) != n {
				t.Fatalf("round %d: stack %d numbered %d, which gives back %v", round, s.key, n, ns.at(n))
			}
			if o, ok := held[n]; ok && o != s {
				t.Fatalf("round %d: number %d held by stacks %d and %d", round, n, o.key, s.key)
			}
			held[n] = s
		}
		for n := range held { // drop about half
			if rng.IntN(2) == 0 {
				delete(held, n)
			}
		}
		if ns.full() || round%50 == 49 {
			ns.sweep(func(mark func(uint32)) {
				for n := range held {
					mark(n)
					mark(n) // twice counts once
				}
			})
			if ns.inUse() != len(held) {
				t.Fatalf("round %d: %d numbers in use after a sweep, %d held", round, ns.inUse(), len(held))
			}
		}
		for n, s := range held {
			if ns.at(n) != s {
				t.Fatalf("round %d: held number %d gives %v, want stack %d", round, n, ns.at(n), s.key)
			}
		}
	}
	if ns.inUse() > 2*minSweep+300 {
		t.Fatalf("%d numbers in use, more than a sweep's bound", ns.inUse())
	}
}

// TestSweepKeepsSamples: sweeping the stack numbers every 100 events,
// however few are in use, changes no sample of a busy service's trace: a
// record's stacks keep their numbers, and a stack whose number was freed
// takes a new one.
func TestSweepKeepsSamples(t *testing.T) {
	data := recordBusyTrace(t, 400*time.Millisecond)
	start := time.Now()
	run := func(sweep bool) ([]memSample, int) {
		src, err := newSource(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		defer closeSource(src)
		sink := newMemSink()
		tb := newTraceBackend(newEmitter(Config{Mode: Wall, Rate: 100}, sink), src, start)
		freed, n := 0, 0
		replay(t, src, func(int) {}, func(ev *gotrace.Event) {
			tb.handle(ev)
			if n++; sweep && n%100 == 0 {
				before := tb.nums.inUse()
				tb.sweepStacksNow()
				freed += before - tb.nums.inUse()
			}
		})
		tb.finish(false)
		return sink.all(), freed
	}
	want, _ := run(false)
	got, freed := run(true)
	if freed == 0 {
		t.Fatal("the sweeps freed no number: the test shows nothing")
	}
	if len(got) != len(want) {
		t.Fatalf("%d samples with sweeps, %d without", len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Fatalf("sample %d: %+v with sweeps, %+v without", i, got[i], want[i])
		}
	}
	t.Logf("%d samples; the sweeps freed %d numbers", len(want), freed)
}

// TestSweepMarksRecords: a sweep keeps the numbers of both stacks every
// live record holds, and frees the rest.
func TestSweepMarksRecords(t *testing.T) {
	tb := newTraceBackend(newEmitter(Config{Mode: Wall, Rate: 100}, newDropSink()), nil, time.Now())
	defer tb.releaseRecords()
	a, b, c, d := &stack{key: 1}, &stack{key: 2}, &stack{key: 3}, &stack{key: 4}
	g, ended := tb.recs.add(), tb.recs.add()
	tb.setStack(g, a)
	g.lastNo = tb.nums.num(b)
	tb.setStack(ended, d)
	tb.recs.remove(ended)
	tb.nums.num(c)
	tb.sweepStacksNow()
	if tb.stackOf(g) != a || tb.nums.at(g.lastNo) != b {
		t.Fatalf("after a sweep the record holds stacks %v and %v, want keys 1 and 2", tb.stackOf(g), tb.nums.at(g.lastNo))
	}
	if tb.nums.inUse() != 2 {
		t.Fatalf("%d numbers in use after a sweep, want the record's 2", tb.nums.inUse())
	}
}
