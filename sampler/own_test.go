package sampler

import (
	"strings"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/goid"
	"github.com/gotachyon/profiler/internal/own"
	"github.com/gotachyon/profiler/internal/seekbuf"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// ownParked and ownEntered are where TestOwnAfterFirstSight's goroutine
// waits, the program's and then the profiler's.
func ownParked(c chan struct{})  { <-c }
func ownEntered(c chan struct{}) { <-c }

// TestOwnAfterFirstSight: a goroutine the trace backend met before it
// became the profiler's (own.Enter, as an httpprof handler calls it on a
// connection's goroutine) has no sample written while it is, and the
// Stats count what the file holds.
func TestOwnAfterFirstSight(t *testing.T) {
	var out seekbuf.Buffer
	w, err := writer.New(&out, writer.Options{StartTime: uint64(time.Now().UnixMicro()), Interval: 10_000})
	if err != nil {
		t.Fatal(err)
	}
	ids, enter, done := make(chan uint64), make(chan struct{}), make(chan struct{})
	go func() {
		ids <- goid.Current()
		ownParked(enter)
		defer own.Enter()()
		ids <- 0
		ownEntered(done)
	}()
	id := <-ids
	s, err := Start(Config{Backend: Trace, Rate: 100}, w)
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
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := reader.NewFileBytes(out.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if st.Samples != uint64(f.Header.SampleCount) || st.Goroutines != int(f.Header.ThreadCount) {
		t.Errorf("Stats: %d samples of %d goroutines; the file %d of %d", st.Samples, st.Goroutines, f.Header.SampleCount, f.Header.ThreadCount)
	}
	it := f.Samples()
	entered := 0
	for it.Next() {
		sm := it.Sample()
		for _, i := range sm.Stack {
			if sm.ThreadID == id && strings.HasSuffix(f.Frame(i).Func, ".ownEntered") {
				entered++
				break
			}
		}
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	if entered > 0 {
		t.Errorf("%d samples of goroutine %d in ownEntered, where it was the profiler's", entered, id)
	}
}

// TestOwnSinkRepeatsLost: a thread whose stack was left out while it was
// the profiler's, and that is the program's again, has its first repeat
// written with that stack; the samples left out are counted.
func TestOwnSinkRepeatsLost(t *testing.T) {
	var out seekbuf.Buffer
	w, err := writer.New(&out, writer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	o, sink := newOwnSink(w)
	o.em = newEmitter(Config{}, sink)
	stack := []uint32{w.Frame(tachyon.Frame{Func: "f"})}
	leave := own.Enter()
	mine := sink.Thread(goid.Current(), 0)
	if err := sink.WriteThreadStack(mine, 10, 0, stack); err != nil {
		t.Fatal(err)
	}
	if err := sink.RepeatEvery(mine, 20, 10, 3, 0); err != nil {
		t.Fatal(err)
	}
	leave()
	if o.hidden != 4 || len(o.uncounted) != 1 {
		t.Fatalf("%d samples left out, %d goroutines uncounted; want 4, 1", o.hidden, len(o.uncounted))
	}
	// A goroutine that is the program's again (simulated: its grace has
	// not passed), with the stack it had while it was not.
	theirs := sink.Thread(1<<62, 0)
	o.lost[theirs] = stack
	if err := sink.RepeatEvery(theirs, 30, 10, 3, 0); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := reader.NewFileBytes(out.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	var got []uint64
	it := f.Samples()
	for it.Next() {
		sm := it.Sample()
		if sm.ThreadID != 1<<62 || len(sm.Stack) != 1 || f.Frame(sm.Stack[0]).Func != "f" {
			t.Errorf("sample %+v", sm)
		}
		got = append(got, sm.Timestamp)
	}
	if err := it.Err(); err != nil || len(got) != 3 || got[0] != 30 || got[2] != 50 {
		t.Errorf("samples at %v (%v), want 30, 40, 50", got, err)
	}
}

// BenchmarkOwnSink measures what leaving the profiler's goroutines out
// adds to a write of the program's goroutine: the sink alone, and through
// ownSink, with a few ids in own's set.
func BenchmarkOwnSink(b *testing.B) {
	for range 8 {
		stop := make(chan struct{})
		defer close(stop)
		own.Go(func() { <-stop })
	}
	for _, name := range []string{"writer", "ownSink"} {
		b.Run(name, func(b *testing.B) {
			var out seekbuf.Buffer
			w, err := writer.New(&out, writer.Options{Compression: tachyon.CompressionNone})
			if err != nil {
				b.Fatal(err)
			}
			var sink Sink = w
			if name == "ownSink" {
				var o *ownSink
				o, sink = newOwnSink(w)
				o.em = newEmitter(Config{}, sink)
			}
			th := sink.Thread(1<<62, 0)
			if err := sink.WriteThreadStack(th, 1, 0, []uint32{w.Frame(tachyon.Frame{Func: "f"})}); err != nil {
				b.Fatal(err)
			}
			ts := uint64(1)
			for b.Loop() {
				ts += 10
				if err := sink.RepeatEvery(th, ts, 10, 1, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
