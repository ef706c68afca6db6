package sampler

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"runtime/trace"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	xtrace "golang.org/x/exp/trace"

	"github.com/gotachyon/profiler/internal/gotrace"

	"github.com/gotachyon/profiler/internal/goid"
	"github.com/gotachyon/profiler/internal/tracelabel"
	"github.com/gotachyon/profiler/tachyon"
)

// labelsOf returns the labels of a sample's stack as "k=v" strings,
// outermost first, but its creation site (createdOf), and the number of
// code frames.
func labelsOf(stack []tachyon.Frame) (labels []string, code int) {
	code = tachyon.SplitLabels(len(stack), func(i int) bool { return tachyon.IsLabel(stack[i]) })
	for i := len(stack) - 1; i >= code; i-- {
		l, _ := tachyon.LabelOf(stack[i])
		if l.Key != tachyon.LabelCreatedBy {
			labels = append(labels, l.String())
		}
	}
	return labels, code
}

// createdOf returns the creation-site label of a sample's stack, "" if
// none.
func createdOf(stack []tachyon.Frame) string {
	for i := len(stack) - 1; i >= 0; i-- {
		l, ok := tachyon.LabelOf(stack[i])
		if !ok {
			break
		}
		if l.Key == tachyon.LabelCreatedBy {
			return l.Value
		}
	}
	return ""
}

// setLabels writes a label log as profiler.SetGoroutineLabels does.
func setLabels(ctx context.Context, kv ...string) {
	var msg []byte
	for i := 0; i+1 < len(kv); i += 2 {
		msg = tracelabel.Append(msg, kv[i], kv[i+1])
	}
	trace.Log(ctx, tracelabel.Category, string(msg))
}

// labelRun is what labelWorker did, by its own measure.
type labelRun struct {
	worker, child, inner, deep uint64 // goroutine ids
	regions                    []time.Duration
}

//go:noinline
func labelChild(ch chan struct{}) { <-ch }

// labelWorker sets pprof labels, starts a child (which inherits them),
// then spends regions of 50 to 90 ms asleep in a task, one of them
// starting goroutines (which inherit the pprof labels but not the
// region), each followed by a region of 20 ms on CPU, and clears its
// labels.
func labelWorker(run *labelRun, stop chan struct{}, wg *sync.WaitGroup) {
	defer wg.Done()
	ctx := context.Background()
	run.worker = goid.Current()
	setLabels(ctx, "tenant", "a", "route", "/x")
	ids := make(chan uint64)
	go func() { ids <- goid.Current(); labelChild(stop) }()
	run.child = <-ids
	tctx, task := trace.NewTask(ctx, "job")
	for i := range 5 {
		t0 := time.Now()
		trace.WithRegion(tctx, "wait", func() {
			if i == 2 {
				go func() { ids <- goid.Current(); labelChild(stop) }()
				run.inner = <-ids
				go func() { ids <- goid.Current(); deepPark(400, stop) }()
				run.deep = <-ids
			}
			time.Sleep(time.Duration(50+10*i) * time.Millisecond)
		})
		run.regions = append(run.regions, time.Since(t0))
		trace.WithRegion(tctx, "burn", func() {
			x := uint64(0)
			for t1 := time.Now(); time.Since(t1) < 20*time.Millisecond; {
				x += spinWork(i)
			}
			atomic.AddUint64(&spinSink, x)
		})
	}
	task.End()
	setLabels(ctx)
	time.Sleep(100 * time.Millisecond)
}

// TestLabelsFromTrace checks the labels of a goroutine's samples in both
// modes: pprof labels from label logs, inherited by the goroutines it
// creates; the region and task of runtime/trace annotations, not
// inherited, with as many ticks in the region as it lasted (one tick
// either side per region); label frames kept outermost on a stack cut to
// the depth bound; none on the runtime's goroutines.
func TestLabelsFromTrace(t *testing.T) {
	if tracelabel.Enabled() {
		t.Fatal("label events asked for before the sampler runs")
	}
	sink := newMemSink()
	s, err := Start(Config{Mode: Wall, Rate: 100, Backend: Trace}, sink)
	if err != nil {
		t.Fatal(err)
	}
	if !tracelabel.Enabled() {
		t.Fatal("the trace backend runs without asking for label events")
	}
	time.Sleep(20 * time.Millisecond)
	var run labelRun
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go labelWorker(&run, stop, &wg)
	wg.Wait()
	time.Sleep(30 * time.Millisecond)
	st, err := s.Stop()
	close(stop)
	if err != nil {
		t.Fatal(err)
	}
	if st.Backend != Trace {
		t.Fatalf("backend %v", st.Backend)
	}
	if tracelabel.Enabled() {
		t.Fatal("label events still asked for after Stop")
	}
	byLabels := map[uint64]map[string]int{}
	for _, smp := range sink.all() {
		ls, code := labelsOf(smp.stack)
		key := strings.Join(ls, ",")
		if byLabels[smp.gid] == nil {
			byLabels[smp.gid] = map[string]int{}
		}
		byLabels[smp.gid][key]++
		if len(ls) > 0 && slices.ContainsFunc(smp.stack[:code], func(f tachyon.Frame) bool { return f.Func == tachyon.RuntimeRoot }) {
			t.Errorf("a runtime goroutine's sample has labels %v", ls)
		}
		if len(smp.stack) > maxDepth {
			t.Errorf("g%d: a stack of %d frames", smp.gid, len(smp.stack))
		}
	}
	const inRegion = "region=wait,route=/x,task=job,tenant=a"
	w := byLabels[run.worker]
	var want time.Duration
	for _, d := range run.regions {
		want += d
	}
	tick := 10 * time.Millisecond
	got := time.Duration(w[inRegion]) * tick
	if diff := got - want; diff < -time.Duration(len(run.regions))*tick || diff > time.Duration(len(run.regions))*tick {
		t.Errorf("worker: %v in the region, it measured %v (regions %v); its samples by labels: %v", got, want, run.regions, w)
	}
	for k := range w {
		if k != inRegion && k != "region=burn,route=/x,task=job,tenant=a" && k != "route=/x,task=job,tenant=a" && k != "route=/x,tenant=a" && k != "" {
			t.Errorf("worker: samples with labels %q", k)
		}
	}
	if w["region=burn,route=/x,task=job,tenant=a"] == 0 || w[""] == 0 {
		t.Errorf("worker: no samples in the CPU-bound regions, or after clearing: %v", w)
	}
	for _, id := range []uint64{run.child, run.inner, run.deep} {
		for k, n := range byLabels[id] {
			if k != "route=/x,tenant=a" {
				t.Errorf("g%d (created by the worker): %d samples with labels %q, want route=/x,tenant=a", id, n, k)
			}
		}
		if len(byLabels[id]) == 0 {
			t.Errorf("g%d: no samples", id)
		}
	}
	t.Logf("worker %v; regions %v (%v), sampled %v", w, run.regions, want, got)
}

// TestLabelsSameFromXTrace checks that the x/exp/trace source gives the
// same samples, labels included, as gotrace on a trace with labels,
// goroutine by goroutine (see byGoroutine).
func TestLabelsSameFromXTrace(t *testing.T) {
	var run labelRun
	stop := make(chan struct{})
	defer close(stop)
	var wg sync.WaitGroup
	wg.Add(1)
	go labelWorker(&run, stop, &wg)
	data := traceFor(t, 300*time.Millisecond)
	wg.Wait()
	for _, mode := range []Mode{Wall, CPU} {
		var out [2][]memSample
		for i := range out {
			src, err := newSource(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			defer closeSource(src)
			if i == 1 {
				x, err := xreader(data)
				if err != nil {
					t.Fatal(err)
				}
				src = x
			}
			sink := newMemSink()
			em := newEmitter(Config{Mode: mode, Rate: 100}, sink)
			tb := newTraceBackend(em, src, time.Unix(0, 0))
			if err := tb.consume(); err != nil {
				t.Fatal(err)
			}
			out[i] = byGoroutine(sink.all())
		}
		labelled := 0
		for _, smp := range out[0] {
			if ls, _ := labelsOf(smp.stack); len(ls) > 0 {
				labelled++
			}
		}
		if labelled == 0 {
			t.Errorf("%v: no labelled samples", mode)
		}
		if !reflect.DeepEqual(out[0], out[1]) {
			t.Errorf("%v: gotrace gives %d samples, x/exp/trace %d, not the same", mode, len(out[0]), len(out[1]))
		}
		t.Logf("%v: %d samples, %d labelled", mode, len(out[0]), labelled)
	}
}

// TestSnapshotsCarryNoLabels: the snapshot backend does not read the trace
// and asks for no label events.
func TestSnapshotsCarryNoLabels(t *testing.T) {
	sink := newMemSink()
	s, err := Start(Config{Mode: Wall, Rate: 100, Backend: Snapshot}, sink)
	if err != nil {
		t.Fatal(err)
	}
	if tracelabel.Enabled() {
		t.Error("the snapshot backend asks for label events")
	}
	time.Sleep(50 * time.Millisecond)
	if _, err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	for _, smp := range sink.all() {
		if ls, _ := labelsOf(smp.stack); len(ls) > 0 {
			t.Fatalf("a snapshot sample with labels %v", ls)
		}
	}
}

// xreader reads a trace with golang.org/x/exp/trace, as the backend does
// for versions gotrace does not know.
func xreader(data []byte) (source, error) {
	rd, err := xtrace.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	return newXSource(rd), nil
}

// recordLabelledTrace records d of execution trace in which n goroutines,
// started once it runs, set pprof labels (one of four sets), begin a
// task and a region and park.
func recordLabelledTrace(tb testing.TB, n int, d time.Duration) []byte {
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		time.Sleep(20 * time.Millisecond)
		for i := range n {
			go func() {
				ctx := context.Background()
				setLabels(ctx, "route", fmt.Sprintf("/r%d", i%4), "method", "GET")
				tctx, task := trace.NewTask(ctx, "request")
				defer task.End()
				trace.WithRegion(tctx, "wait", func() { blockChan2(stop, i%7) })
			}()
		}
	}()
	return traceFor(tb, d)
}

// BenchmarkTraceTickLabelled is BenchmarkTraceTick over 1,000 parked
// goroutines that carry labels (pprof labels, a task and a region): a
// labelled goroutine's unchanged ticks cost what an unlabelled one's do.
// It must not allocate.
func BenchmarkTraceTickLabelled(b *testing.B) {
	data := recordLabelledTrace(b, 1000, 200*time.Millisecond)
	rd, err := newSource(bytes.NewReader(data))
	if err != nil {
		b.Fatal(err)
	}
	defer closeSource(rd)
	st := newEmitter(Config{Mode: Wall, Rate: 100}, newDropSink())
	tb := newTraceBackend(st, rd, time.Now())
	if err := tb.consume(); err != nil {
		b.Fatal(err)
	}
	labelled := 0
	for g := range tb.lives {
		if tb.recs.labelsOf(g) != nil {
			labelled++
		}
	}
	if labelled < 1000 {
		b.Fatalf("%d labelled goroutines, want 1000", labelled)
	}
	n0 := st.samples
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tb.advance(tb.ticks.first + gotrace.Time(tb.ticks.n)*tb.ticks.step())
		if i%100 == 99 {
			tb.settleShare()
		}
	}
	for range settleEvery {
		tb.settleShare()
	}
	n := st.samples - n0
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "samples/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/sample")
}

// BenchmarkLabelChange changes a parked goroutine's region at every tick
// (a region begun, a tick, the region ended, a tick) and writes its
// ticks: the cost of a label change and of the ticks either side. It
// must not allocate.
func BenchmarkLabelChange(b *testing.B) {
	data := recordLabelledTrace(b, 10, 100*time.Millisecond)
	rd, err := newSource(bytes.NewReader(data))
	if err != nil {
		b.Fatal(err)
	}
	defer closeSource(rd)
	st := newEmitter(Config{Mode: Wall, Rate: 100}, newDropSink())
	tb := newTraceBackend(st, rd, time.Now())
	if err := tb.consume(); err != nil {
		b.Fatal(err)
	}
	var g *tgor
	for lg := range tb.lives {
		if x := tb.busyOf(lg); x != nil && len(x.regions) > 0 {
			g = lg
		}
	}
	if g == nil {
		b.Fatal("no goroutine in a region")
	}
	inner := regionRec{typ: "inner"}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tb.advance(tb.ticks.first + gotrace.Time(tb.ticks.n)*tb.ticks.step())
		x := tb.busyOf(g)
		if i%2 == 0 {
			x.regions = append(x.regions, inner)
		} else {
			x.regions = x.regions[:len(x.regions)-1]
		}
		tb.relabel(g, nil)
		if i%100 == 99 {
			tb.settle(g)
		}
	}
}

// TestAutoAsksForLabelsWhileTracing: under Auto, label events are asked
// for while the trace backend runs, not while snapshots do, and not after
// Stop.
func TestAutoAsksForLabelsWhileTracing(t *testing.T) {
	s, err := Start(Config{Mode: Wall, Rate: 100, Backend: Auto}, newDropSink())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	if s.Backend() != Trace {
		t.Skipf("Auto runs %v", s.Backend())
	}
	for _, b := range []Backend{Snapshot, Trace} {
		switchAuto(s, b)
		if got := tracelabel.Enabled(); got != (b == Trace) {
			t.Errorf("%v running: label events asked for = %v", b, got)
		}
	}
	if _, err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if tracelabel.Enabled() {
		t.Error("label events asked for after Stop")
	}
}

// TestLabelsHandedOver: under Auto, a trace backend that follows another
// (a resync, or a move between trace slots as the goroutines grow past
// frMaxGoroutines) keeps the pprof labels of the goroutines the previous
// one knew: a goroutine labelled once, then parked, is not unlabelled
// for the rest of the profile by a trace it never logs its labels in.
func TestLabelsHandedOver(t *testing.T) {
	sink := newMemSink()
	s, err := Start(Config{Mode: Wall, Rate: 100, Backend: Auto}, sink)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	if s.Backend() != Trace {
		t.Skipf("Auto runs %v", s.Backend())
	}
	stop := make(chan struct{})
	ids := make(chan uint64)
	go func() {
		setLabels(context.Background(), "role", "parked")
		ids <- goid.Current()
		<-stop
	}()
	id := <-ids
	defer close(stop)
	time.Sleep(50 * time.Millisecond)
	// Each send waits until the supervisor takes it, so the second
	// returns once the first switch, trace to trace, is done.
	for range 3 {
		within(stepLimit, "switch to the trace again", func() { s.auto.force <- Trace })
	}
	time.Sleep(100 * time.Millisecond)
	st, err := s.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if st.Backend != Trace || len(st.Switches) < 3 {
		t.Fatalf("backend %v, switches %+v; want the trace three times again", st.Backend, st.Switches)
	}
	if slices.ContainsFunc(st.Switches, func(sw Switch) bool { return sw.To != Trace }) {
		// Snapshots carry no labels, nor hand any over.
		t.Skipf("Auto moved to snapshots on its own: %+v", st.Switches)
	}
	smps := sink.of(id)
	if len(smps) == 0 {
		t.Fatal("no samples of the parked goroutine")
	}
	var unlabelled int
	for _, smp := range smps {
		if ls, _ := labelsOf(smp.stack); !slices.Equal(ls, []string{"role=parked"}) {
			unlabelled++
		}
	}
	last, _ := labelsOf(smps[len(smps)-1].stack)
	if !slices.Equal(last, []string{"role=parked"}) || unlabelled > len(smps)/4 {
		t.Fatalf("%d of %d samples without role=parked, the last with %v, after switches %+v", unlabelled, len(smps), last, st.Switches)
	}
}
