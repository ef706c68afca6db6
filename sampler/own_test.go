package sampler

import (
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/goid"
	"github.com/gotachyon/profiler/internal/gotrace"
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

// TestOwnRepeatsLost: the samples of a goroutine while it is the
// profiler's are left out and counted, a first sample included, and a
// goroutine whose stack was left out so, and that is the program's again,
// has its next sample written with that stack.
func TestOwnRepeatsLost(t *testing.T) {
	mem := newMemSink()
	em := newEmitter(Config{}, mem)
	em.hideOwn = true
	s := &stack{frames: []uint32{mem.Frame(tachyon.Frame{Func: "f"})}}
	leave := own.Enter()
	mine := &track{id: goid.Current()}
	em.write(mine, span{ts: 10, step: 10, n: 1}, 0, s)
	em.write(mine, span{ts: 20, step: 10, n: 3}, 0, s)
	leave()
	if em.hidden != 4 || em.goroutines != 0 || em.samples != 0 || len(mem.all()) != 0 {
		t.Fatalf("%d samples left out, %d written, %d goroutines counted; want 4, 0, 0", em.hidden, em.samples, em.goroutines)
	}
	// A goroutine that is the program's again (simulated: its grace has
	// not passed), with the stack it had while it was not.
	theirs := &track{id: 1 << 62} // its stack was left out: none written yet
	em.write(theirs, span{ts: 30, step: 10, n: 3}, 0, s)
	var got []uint64
	for _, sm := range mem.all() {
		if sm.gid != 1<<62 || len(sm.stack) != 1 || sm.stack[0].Func != "f" {
			t.Errorf("sample %v", sm)
		}
		got = append(got, sm.ts)
	}
	if len(got) != 3 || got[0] != 30 || got[2] != 50 || em.goroutines != 1 {
		t.Errorf("samples at %v, %d goroutines counted; want 30, 40, 50 and 1", got, em.goroutines)
	}
}

// TestOwnHidesCPU: the Observer is not told of the on-CPU samples of a
// write left out, and is told of the others.
func TestOwnHidesCPU(t *testing.T) {
	obs := new(cpuSeen)
	mem := newMemSink()
	em := newEmitter(Config{Mode: CPU, Observer: obs}, mem)
	em.hideOwn = true
	s := &stack{frames: []uint32{mem.Frame(tachyon.Frame{Func: "f"})}, leafPC: 0x1234}
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

// TestOwnByTime: the samples of a goroutine that was the profiler's for a
// while and left are judged by their time, not by when they are written
// (the trace is read late, a parked goroutine's ticks later still): those
// up to its leaving (plus own.Margin) are left out, the rest are written,
// and the Observer is told only of those; a run that straddles the leaving
// is split there.
func TestOwnByTime(t *testing.T) {
	obs := new(cpuSeen)
	mem := newMemSink()
	em := newEmitter(Config{Mode: CPU, Observer: obs}, mem)
	em.hideOwn = true
	s := &stack{frames: []uint32{mem.Frame(tachyon.Frame{Func: "f"})}, leafPC: 0x1234}
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
	if em.hidden != uint64(n-len(got)) {
		t.Errorf("%d samples counted as left out, want %d", em.hidden, n-len(got))
	}
	if obs.count() != len(got) || obs.at[[2]uint64{id, first}] != 1 || obs.at[[2]uint64{id, first - step}] != 0 {
		t.Errorf("the Observer was told of %d samples, want the %d written from %d", obs.count(), len(got), first)
	}
}

// ownStackSource is a knownSource whose stack 2 is the profiler's work.
type ownStackSource struct{ knownSource }

func (s *ownStackSource) Stack(id uint64) []gotrace.Frame {
	if id == 2 {
		return []gotrace.Frame{{PC: 0x3000, Func: "profiler.upload", File: "up.go", Line: 5}, {PC: 0x2000, Func: "main.main", File: "main.go", Line: 3}}
	}
	return s.knownSource.Stack(id)
}

// TestOwnCPUByItsTime: in wall mode, the CPU samples a goroutine had
// while it was the profiler's are left out by their own time, not by the
// time of the running tick placement pays them to. Here the goroutine ran
// between ticks while it was the profiler's, and ran through ticks only
// after it left: the nearest running ticks of its CPU samples then lie
// past its leaving plus own.Margin, where the emitter's check by the
// tick's time passes them. CI once found the profiler's stack so written
// as net/http's dial goroutine's.
func TestOwnCPUByItsTime(t *testing.T) {
	g := 1<<40 + uint64(time.Now().UnixNano()) // no goroutine of this process, nor of an earlier run
	src := &ownStackSource{knownSource{known: map[uint64]bool{g: true}, users: map[uint64]uint32{}}}
	mem := newMemSink()
	em := newEmitter(Config{Mode: Wall, Rate: 100}, mem)
	em.hideOwn = true
	start := time.Now().Add(-time.Second) // trace time 1
	tb := newTraceBackend(em, src, start)
	ms := gotrace.Time(time.Millisecond)
	tb.handle(&gotrace.Event{Kind: gotrace.Sync, Time: 1})
	tb.handle(&gotrace.Event{Kind: gotrace.Transition, Time: 1 * ms, G: g, From: gotrace.GoUndetermined, To: gotrace.GoWaiting, Stack: 1})
	// Met as the program's, it is the profiler's from before trace time
	// 900 ms until about 1,000 ms; it runs through ticks from 5 s.
	own.Claim(g)
	own.Release(g)
	after := uint64(time.Now().Add(own.Margin).UnixMicro())
	u := src.users[g]
	for at := 900 * ms; at < 990*ms; at += 10 * ms {
		tb.handle(&gotrace.Event{Kind: gotrace.Sample, Time: at, G: g, Stack: 2})
	}
	tb.handle(&gotrace.Event{Kind: gotrace.Transition, Time: 5000 * ms, G: g, User: u, From: gotrace.GoWaiting, To: gotrace.GoRunning, Stack: 1})
	tb.handle(&gotrace.Event{Kind: gotrace.Transition, Time: 5300 * ms, G: g, User: u, From: gotrace.GoRunning, To: gotrace.GoWaiting, Stack: 1})
	tb.handle(&gotrace.Event{Kind: gotrace.Sync, Time: 5500 * ms})
	tb.finish(false)

	if after >= uint64(start.Add(5*time.Second).UnixMicro()) {
		t.Fatalf("the goroutine left at %d µs, after its running ticks began", after)
	}
	ran := 0
	for _, sm := range mem.all() {
		if sm.ts <= after-uint64(own.Margin.Microseconds()) {
			t.Errorf("a sample at %d µs, before the goroutine left (%d)", sm.ts, after)
		}
		for _, f := range sm.stack {
			if f.Func == "profiler.upload" {
				t.Fatalf("a sample at %d µs has the profiler's stack; its leaving plus the margin was at %d", sm.ts, after)
			}
		}
		if sm.ts >= uint64(start.Add(5000*time.Millisecond).UnixMicro()) && sm.ts < uint64(start.Add(5300*time.Millisecond).UnixMicro()) {
			ran++
		}
	}
	if ran != 30 {
		t.Errorf("%d samples written of its 30 running ticks", ran)
	}
}

// BenchmarkOwnHide measures what leaving the profiler's goroutines out
// adds to a write of the program's goroutine: the emitter into a sink that
// keeps nothing, without and with it, with a few ids in own's set.
func BenchmarkOwnHide(b *testing.B) {
	for range 8 {
		stop := make(chan struct{})
		defer close(stop)
		own.Go(func() { <-stop })
	}
	for _, hide := range []bool{false, true} {
		b.Run(map[bool]string{false: "sink", true: "hideOwn"}[hide], func(b *testing.B) {
			mem := newDropSink()
			em := newEmitter(Config{}, mem)
			em.hideOwn = hide
			s := &stack{frames: []uint32{mem.Frame(tachyon.Frame{Func: "f"})}}
			tr := &track{id: 1 << 62}
			ts := uint64(1)
			em.write(tr, span{ts: ts, step: 10, n: 1}, 0, s)
			for b.Loop() {
				ts += 10
				em.write(tr, span{ts: ts, step: 10, n: 1}, 0, s)
			}
		})
	}
}
