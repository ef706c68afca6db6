package sampler

import (
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/goid"
	"github.com/gotachyon/profiler/internal/own"
	"github.com/gotachyon/profiler/tachyon"
)

// ownParked and ownEntered are where TestOwnAfterFirstSight's goroutine
// waits, the program's and then the profiler's.
func ownParked(c chan struct{})  { <-c }
func ownEntered(c chan struct{}) { <-c }

// TestOwnAfterFirstSight: a goroutine the trace backend met before it
// became the profiler's (own.Enter, as an httpprof handler calls it on a
// connection's goroutine) has no sample written while it is, and the
// Stats count what the sink holds.
func TestOwnAfterFirstSight(t *testing.T) {
	sink := newMemSink()
	ids, enter, done := make(chan uint64), make(chan struct{}), make(chan struct{})
	go func() {
		ids <- goid.Current()
		ownParked(enter)
		defer own.Enter()()
		ids <- 0
		ownEntered(done)
	}()
	id := <-ids
	s, err := Start(Config{Backend: Trace, Rate: 100}, sink)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	close(enter)
	<-ids
	time.Sleep(2 * time.Second)
	st, err := s.Stop()
	close(done)
	if err != nil {
		t.Fatal(err)
	}
	if st.Backend != Trace {
		t.Skipf("backend %v", st.Backend)
	}
	samples := sink.all()
	gs := map[uint64]bool{}
	entered := 0
	for _, sm := range samples {
		gs[sm.gid] = true
		if sm.gid == id && sm.hasFunc(".ownEntered") {
			entered++
		}
	}
	if st.Samples != uint64(len(samples)) || st.Goroutines != len(gs) {
		t.Errorf("Stats: %d samples of %d goroutines; the sink %d of %d", st.Samples, st.Goroutines, len(samples), len(gs))
	}
	if entered > 0 {
		t.Errorf("%d samples of goroutine %d in ownEntered, where it was the profiler's", entered, id)
	}
}

// TestOwnSinkRepeatsLost: a thread whose stack was left out while it was
// the profiler's, and that is the program's again, has its first repeat
// written with that stack; the samples left out are counted.
func TestOwnSinkRepeatsLost(t *testing.T) {
	mem := newMemSink()
	o, sink := newOwnSink(mem)
	o.em = newEmitter(Config{}, sink)
	stack := []uint32{mem.Frame(tachyon.Frame{Func: "f"})}
	leave := own.Enter()
	mine := sink.Goroutine(goid.Current())
	if err := mine.Write(10, 0, stack); err != nil {
		t.Fatal(err)
	}
	if err := mine.RepeatEvery(20, 10, 3, 0); err != nil {
		t.Fatal(err)
	}
	leave()
	if o.hidden != 4 || len(o.uncounted) != 1 {
		t.Fatalf("%d samples left out, %d goroutines uncounted; want 4, 1", o.hidden, len(o.uncounted))
	}
	// A goroutine that is the program's again (simulated: its grace has
	// not passed), with the stack it had while it was not.
	theirs := sink.Goroutine(1 << 62)
	theirs.(*ownGoroutine).lost = stack
	if err := theirs.RepeatEvery(30, 10, 3, 0); err != nil {
		t.Fatal(err)
	}
	var got []uint64
	for _, sm := range mem.all() {
		if sm.gid != 1<<62 || len(sm.stack) != 1 || sm.stack[0].Func != "f" {
			t.Errorf("sample %v", sm)
		}
		got = append(got, sm.ts)
	}
	if len(got) != 3 || got[0] != 30 || got[2] != 50 {
		t.Errorf("samples at %v, want 30, 40, 50", got)
	}
}

// TestOwnSinkHidesCPU: the Observer is not told of the on-CPU samples of
// a write left out, and is told of the others.
func TestOwnSinkHidesCPU(t *testing.T) {
	obs := new(cpuSeen)
	o, sink := newOwnSink(newMemSink())
	em := newEmitter(Config{Mode: CPU, Observer: obs}, sink)
	o.em, em.own = em, o
	s := &stack{frames: []uint32{sink.Frame(tachyon.Frame{Func: "f"})}, leafPC: 0x1234}
	leave := own.Enter()
	mine := &track{id: goid.Current()}
	em.write(mine, span{ts: 10, step: 10, n: 2}, tachyon.StatusOnCPU, s)
	leave()
	theirs := &track{id: 1 << 62}
	em.write(theirs, span{ts: 10, step: 10, n: 2}, tachyon.StatusOnCPU, s)
	if obs.count() != 2 || obs.at[[2]uint64{1 << 62, 10}] != 1 || obs.at[[2]uint64{1 << 62, 20}] != 1 {
		t.Fatalf("the Observer was told of %v, want g%d at 10 and 20", obs.at, uint64(1<<62))
	}
}

// TestOwnSinkByTime: the samples of a goroutine that was the profiler's
// for a while and left are judged by their time, not by when they are
// written (the trace is read late, a parked goroutine's ticks later still):
// those up to its leaving (plus own.Margin) are left out, the rest are
// written, and the Observer is told only of those; a run that straddles
// the leaving is split there.
func TestOwnSinkByTime(t *testing.T) {
	obs := new(cpuSeen)
	mem := newMemSink()
	o, sink := newOwnSink(mem)
	em := newEmitter(Config{Mode: CPU, Observer: obs}, sink)
	o.em, em.own = em, o
	s := &stack{frames: []uint32{sink.Frame(tachyon.Frame{Func: "f"})}, leafPC: 0x1234}
	ids := make(chan uint64)
	var before, after uint64
	leaving, left := make(chan struct{}), make(chan struct{})
	go func() {
		leave := own.Enter()
		ids <- goid.Current()
		<-leaving
		before = uint64(time.Now().UnixMicro())
		leave()
		after = uint64(time.Now().UnixMicro())
		close(left)
	}()
	id := <-ids
	close(leaving)
	<-left
	const step = 10_000 // µs
	start := before - 1_000_000
	n := int((after+uint64(own.Margin.Microseconds())-start)/step) + 50
	em.write(&track{id: id}, span{ts: start, step: step, n: n}, tachyon.StatusOnCPU, s)
	var got []uint64
	for _, sm := range mem.all() {
		got = append(got, sm.ts)
	}
	if len(got) == 0 || len(got) >= n {
		t.Fatalf("%d of %d samples written, want those after the leaving only", len(got), n)
	}
	first, last := got[0], got[len(got)-1]
	margin := uint64(own.Margin.Microseconds())
	if first <= before+margin || first > after+margin+step || last != start+uint64(n-1)*step || len(got) != int((last-first)/step)+1 {
		t.Errorf("written %d samples %d..%d µs; the goroutine left within %d..%d, margin %d", len(got), first, last, before, after, margin)
	}
	if o.hidden != uint64(n-len(got)) {
		t.Errorf("%d samples counted as left out, want %d", o.hidden, n-len(got))
	}
	if obs.count() != len(got) || obs.at[[2]uint64{id, first}] != 1 || obs.at[[2]uint64{id, first - step}] != 0 {
		t.Errorf("the Observer was told of %d samples, want the %d written from %d", obs.count(), len(got), first)
	}
}

// BenchmarkOwnSink measures what leaving the profiler's goroutines out
// adds to a write of the program's goroutine: a sink that keeps nothing,
// alone and through ownSink, with a few ids in own's set.
func BenchmarkOwnSink(b *testing.B) {
	for range 8 {
		stop := make(chan struct{})
		defer close(stop)
		own.Go(func() { <-stop })
	}
	for _, name := range []string{"sink", "ownSink"} {
		b.Run(name, func(b *testing.B) {
			mem := newDropSink()
			var sink Sink = mem
			if name == "ownSink" {
				var o *ownSink
				o, sink = newOwnSink(mem)
				o.em = newEmitter(Config{}, sink)
			}
			g := sink.Goroutine(1 << 62)
			if err := g.Write(1, 0, []uint32{mem.Frame(tachyon.Frame{Func: "f"})}); err != nil {
				b.Fatal(err)
			}
			ts := uint64(1)
			for b.Loop() {
				ts += 10
				if err := g.RepeatEvery(ts, 10, 1, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
