package sampler

import (
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/goid"
	"github.com/gotachyon/profiler/internal/own"
	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/tachyon"
)

const dumpText = `goroutine 1 [running]:
main.main()
	/src/main.go:10 +0x1d

goroutine 7 [chan receive, 3 minutes, locked to thread]:
main.(*T).wait(0xc000010000, {0x1, 0x2})
	/src/t.go:42 +0x2b
main.Gen[...](...)
	/src/gen.go:7
created by main.main in goroutine 1
	/src/main.go:9 +0x45

goroutine 8 [select (no cases)]:
main.forever()
	/src/f.go:3 +0x10
...additional frames elided...
main.root()
	/src/f.go:1 +0x1

goroutine 9 [runnable]:
main.work()
	/src/w.go:5 +0x1

goroutine 10 [semacquire (scan) labels:{"a":"b"}]:
main.lock()
	/src/l.go:2 +0x1

goroutine 11 [chan send (nil chan)]:
main.deferred()
	/src/p.go:20 +0x1
panic({0x4a, 0x5b})
	/usr/lib/go/src/runtime/panic.go:783 +0x132
main.boom()
	/src/p.go:25 +0x1

goroutine 12 [idle]:
main.x()
	/src/x.go:1 +0x1

goroutine 13 [syscall]:
syscall.Syscall()
	/src/s.go:1 +0x1
main.read()
	/src/r.go:2 +0x1

goroutine 14 [running]:
	goroutine running on other thread; stack unavailable

goroutine 15 [sleep]:
time.Sleep(0x3b9aca00)
	/usr/lib/go/src/runtime/time.go:363 +0x10
main.tru`

func TestSnapshotParse(t *testing.T) {
	sink := newMemSink()
	st := newEmitter(Config{Mode: Wall, Rate: 100}, sink)
	sb := newSnapshot(st)
	sb.self = 1 // the caller's own goroutine is left out
	sb.parse([]byte(dumpText), tick(1234))
	var got []string
	for _, s := range sink.all() {
		if s.ts != 1234 {
			t.Fatalf("timestamp %d", s.ts)
		}
		var b strings.Builder
		b.WriteString(s.String())
		for _, f := range s.stack {
			if f.File != "" {
				b.WriteString(" @" + f.File[strings.LastIndexByte(f.File, '/')+1:] + ":" + itoa(int(f.Line)))
			}
		}
		got = append(got, b.String())
	}
	want := []string{
		"g7 status=0x0: [chan receive] main.(*T).wait main.Gen[...] created_by=main.main main.go:9 @t.go:42 @gen.go:7 @<labels>:0",
		"g8 status=0x0: [select (no cases)] main.forever [frames elided] main.root @f.go:3 @f.go:1",
		"g9 status=0x8: main.work @w.go:5",
		"g10 status=0x0: [semacquire] main.lock @l.go:2",
		"g11 status=0x10: [chan send] main.deferred panic main.boom @p.go:20 @panic.go:783 @p.go:25",
		"g12 status=0x4: main.x @x.go:1",
		"g13 status=0xc: main.read @r.go:2", // syscall.Syscall left out, as the trace does
		"g15 status=0x0: [sleep] time.Sleep @time.go:363",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if st.goroutines != len(want) || st.ticks != 1 {
		t.Fatalf("distinct %d ticks %d", st.goroutines, st.ticks)
	}
	// A second dump interns nothing new.
	frames := len(sink.frames)
	sb.parse([]byte(dumpText), tick(1235))
	if len(sink.frames) != frames {
		t.Fatalf("frames grew from %d to %d on a repeated dump", frames, len(sink.frames))
	}
}

// TestSnapshotForgets: a goroutine missing from the next dump has ended;
// the backend forgets it (and tells the sink), so its state is bounded by
// the live goroutines.
func TestSnapshotForgets(t *testing.T) {
	sink := newMemSink()
	sb := newSnapshot(newEmitter(Config{Mode: Wall, Rate: 100}, sink))
	sb.parse([]byte(dumpText), tick(1))
	if len(sb.gs) != 9 {
		t.Fatalf("%d goroutines kept after the first dump, want 9", len(sb.gs))
	}
	sb.parse([]byte("goroutine 7 [chan receive]:\nmain.wait()\n\t/src/t.go:42 +0x2b\n"), tick(2))
	if len(sb.gs) != 1 || sb.gs[7] == nil {
		t.Fatalf("kept %v after a dump of g7 alone", slices.Collect(maps.Keys(sb.gs)))
	}
	if forgotten := sink.forgotten(); forgotten != 8 {
		t.Fatalf("the sink was told of %d ended goroutines, want 8", forgotten)
	}
}

// TestSnapshotKeepsOwnWhile: a goroutine that is the profiler's for a
// while is left out of the dumps of that while, not forgotten: the sink is
// asked for its handle once, and its samples go on after.
func TestSnapshotKeepsOwnWhile(t *testing.T) {
	sink := newMemSink()
	em := newEmitter(Config{Mode: Wall, Rate: 100}, sink)
	em.hideOwn = true
	sb := newSnapshot(em)
	id := 1<<40 + uint64(time.Now().UnixNano()) // no goroutine of this process, nor of an earlier run
	dump := []byte("goroutine " + strconv.FormatUint(id, 10) + " [chan receive]:\nmain.wait()\n\t/src/t.go:42 +0x2b\n")
	now := func() uint64 { return uint64(time.Now().UnixMicro()) }
	sb.parse(dump, tick(now()))
	own.Claim(id)
	sb.parse(dump, tick(now()))
	own.Release(id)
	time.Sleep(own.Margin + 10*time.Millisecond)
	sb.parse(dump, tick(now()))
	if len(sink.gs) != 1 || sink.forgotten() != 0 {
		t.Fatalf("the sink gave %d handles and was told of %d ended goroutines, want 1 and 0", len(sink.gs), sink.forgotten())
	}
	if n := len(sink.all()); n != 2 {
		t.Errorf("%d samples written, want 2: the dumps before and after the while", n)
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// TestSnapshotParseGarbage: malformed dumps yield no panic.
func TestSnapshotParseGarbage(t *testing.T) {
	for _, in := range []string{"", "goroutine", "goroutine x [", "goroutine 5 [", "goroutine 5 ]x[:\n\t:\n(\n\t/a:b +", "\n\n\t\t(((", strings.Repeat("f(\n\tx:1\n", 1000)} {
		sink := newMemSink()
		sb := newSnapshot(newEmitter(Config{Rate: 100}, sink))
		sb.parse([]byte(in), tick(1))
	}
}

// TestPanickingGoroutine: a goroutine blocked in a deferred call during a
// panic carries HasException in both backends.
func TestPanickingGoroutine(t *testing.T) {
	for _, b := range []Backend{Trace, Snapshot} {
		testutil.Retry(t, 150*time.Millisecond, 3, func(d time.Duration) error {
			sink := newMemSink()
			s, err := Start(Config{Backend: b}, sink)
			if err != nil {
				t.Fatal(err)
			}
			release := make(chan struct{})
			idc := make(chan uint64)
			done := make(chan struct{})
			go func() {
				defer close(done)
				defer func() { recover() }()
				defer func() { <-release }()
				idc <- goid.Current()
				panic("boom")
			}()
			id := <-idc
			time.Sleep(d)
			s.Stop()
			close(release)
			<-done
			for _, x := range sink.of(id) {
				if x.status == tachyon.StatusHasException && x.hasFunc("panic") && x.stack[0].Func == "[chan receive]" {
					return nil
				}
			}
			return fmt.Errorf("%v: no panicking sample for g%d: %v", b, id, sink.of(id))
		})
	}
}

// BenchmarkSnapshotParse parses a real runtime.Stack dump of 1000 blocked
// goroutines into a sink that discards.
func BenchmarkSnapshotParse(b *testing.B) {
	const n = 1000
	stop := make(chan struct{})
	for i := 0; i < n; i++ {
		go func() { blockChan2(stop, i%7) }()
	}
	defer close(stop)
	time.Sleep(50 * time.Millisecond)
	buf := make([]byte, 8<<20)
	dump := buf[:runtime.Stack(buf, true)]
	st := newEmitter(Config{Rate: 100}, newDropSink())
	sb := newSnapshot(st)
	sb.parse(dump, tick(1)) // warm the caches
	b.SetBytes(int64(len(dump)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sb.parse(dump, tick(uint64(i)))
	}
	b.ReportMetric(float64(st.samples)/b.Elapsed().Seconds(), "samples/s")
}

//go:noinline
func blockChan2(stop chan struct{}, depth int) {
	if depth > 0 {
		blockChan2(stop, depth-1)
		return
	}
	<-stop
}

// TestSnapshotPauseBound: with more goroutines than one dump may stop the
// world for (MaxSnapshotPause), the snapshot backend takes no dump and
// Stats.Refused says why; with few, it dumps.
func TestSnapshotPauseBound(t *testing.T) {
	n := int(MaxSnapshotPause/pausePerG) + 2000
	st := snapshotParked(t, n, newMemSink())
	if st.Samples != 0 || !strings.Contains(st.Refused, "would stop the world") {
		t.Fatalf("%d goroutines: %d samples, Refused %q; want none and a reason", n, st.Samples, st.Refused)
	}
}

// TestSnapshotCutDumpUnused: a dump that fills the buffer's bound is cut
// short and not used: the goroutines past the cut would miss the instant
// and be taken for ended. No sample is written, no handle asked for, no
// instant counted, and Stats.Refused says why.
func TestSnapshotCutDumpUnused(t *testing.T) {
	defer func(b int) { snapMaxBuf = b }(snapMaxBuf)
	snapMaxBuf = snapInitialBuf
	sink := newMemSink()
	st := snapshotParked(t, 1000, sink) // about 200 bytes of dump each
	if st.Samples != 0 || st.Ticks != 0 || len(sink.gs) != 0 || !strings.Contains(st.Refused, "did not fit in 64 KB") {
		t.Fatalf("%d samples, %d instants, %d handles, Refused %q; want none and a reason", st.Samples, st.Ticks, len(sink.gs), st.Refused)
	}
}

// snapshotParked runs the snapshot backend into sink for 200 ms while n
// more goroutines are parked, and returns its Stats.
func snapshotParked(t *testing.T, n int, sink Sink) Stats {
	t.Helper()
	stop := make(chan struct{})
	defer close(stop)
	for range n {
		go func() { <-stop }()
	}
	s, err := Start(Config{Mode: Wall, Rate: 100, Backend: Snapshot}, sink)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	st, err := s.Stop()
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// tick is the one sampling instant at ts (µs since the epoch), as a dump
// taken one period after the one before stands for.
func tick(ts uint64) span { return span{ts: ts, n: 1} }
