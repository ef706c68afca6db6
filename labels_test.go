package profiler

import (
	"context"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"runtime/trace"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/goid"
	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/sampler"
	"github.com/gotachyon/profiler/tachyon"
)

// labelSample is one sample's goroutine, time and labels ("k=v,...",
// outermost first).
type labelSample struct {
	g      uint64
	ts     uint64
	labels string
}

// readLabels reads every sample of a profile with its labels, and checks
// that label frames come only as the outermost run of a stack.
func readLabels(t *testing.T, path string) []labelSample {
	t.Helper()
	f, err := reader.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	it := f.Samples()
	defer it.Close()
	var out []labelSample
	var fr []tachyon.Frame
	for it.Next() {
		fr = it.Frames(fr[:0])
		code := tachyon.SplitLabels(len(fr), func(i int) bool { return tachyon.IsLabel(fr[i]) })
		if slices.ContainsFunc(fr[:code], tachyon.IsLabel) {
			t.Fatalf("a label frame among code frames: %v", fr)
		}
		var ls []string
		for i := len(fr) - 1; i >= code; i-- {
			l, _ := tachyon.LabelOf(fr[i])
			if l.Key == tachyon.LabelCreatedBy {
				continue // the sampler's own label, TestCreationSites checks it
			}
			ls = append(ls, l.String())
		}
		if len(ls) > 0 && code > 0 && fr[code-1].Func == tachyon.RuntimeRoot {
			t.Errorf("a runtime goroutine's sample has labels %v", ls)
		}
		out = append(out, labelSample{it.Sample().ThreadID, it.Sample().Timestamp, strings.Join(ls, ",")})
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// sequence returns goroutine g's label sets in time order, each once per
// stretch.
func sequence(samples []labelSample, g uint64) []string {
	var mine []labelSample
	for _, s := range samples {
		if s.g == g {
			mine = append(mine, s)
		}
	}
	sort.SliceStable(mine, func(i, j int) bool { return mine[i].ts < mine[j].ts })
	var seq []string
	for _, s := range mine {
		if len(seq) == 0 || seq[len(seq)-1] != s.labels {
			seq = append(seq, s.labels)
		}
	}
	return seq
}

// parkLabelled parks until stop; its goroutine's labels are checked.
//
//go:noinline
func parkLabelled(stop chan struct{}) { <-stop }

// TestDoNestedRestores nests Do three deep, pausing at each level on the
// way in and out: the goroutine's samples show each level's labels in
// order and the outer ones again as each Do returns, as runtime/pprof's
// own goroutine profile does for goroutines started at each level, which
// inherit them, and whose every sample carries them.
func TestDoNestedRestores(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.bin")
	p := Start(WithPath(path), quiet, WithBackend(sampler.Trace))
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
	if p.Backend() != sampler.Trace {
		t.Skipf("backend %v", p.Backend())
	}
	stop := make(chan struct{})
	var kids sync.WaitGroup
	type kid struct {
		id   uint64
		want string
	}
	var mu sync.Mutex
	var started []kid
	pause := func(ctx context.Context, want string) {
		ids := make(chan uint64)
		kids.Add(1)
		go func() {
			defer kids.Done()
			ids <- goid.Current()
			parkLabelled(stop)
		}()
		mu.Lock()
		started = append(started, kid{<-ids, want})
		mu.Unlock()
		time.Sleep(60 * time.Millisecond)
	}
	var worker uint64
	done := make(chan struct{})
	go func() {
		defer close(done)
		worker = goid.Current()
		ctx := context.Background()
		pause(ctx, "")
		Do(ctx, pprof.Labels("l1", "a"), func(ctx context.Context) {
			pause(ctx, "l1=a")
			Do(ctx, pprof.Labels("l2", "b"), func(ctx context.Context) {
				pause(ctx, "l1=a,l2=b")
				Do(ctx, pprof.Labels("l3", "c", "l1", "z"), func(ctx context.Context) {
					pause(ctx, "l1=z,l2=b,l3=c")
				})
				pause(ctx, "l1=a,l2=b")
			})
			pause(ctx, "l1=a")
		})
		pause(ctx, "")
	}()
	<-done
	// runtime/pprof's view: the goroutines started at each level carry
	// its labels.
	var gp strings.Builder
	if err := pprof.Lookup("goroutine").WriteTo(&gp, 1); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`labels: {"l1":"a"}`, `labels: {"l1":"a", "l2":"b"}`, `labels: {"l1":"z", "l2":"b", "l3":"c"}`} {
		if !strings.Contains(gp.String(), want) {
			t.Errorf("runtime/pprof's goroutine profile has no goroutine with %s", want)
		}
	}
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	close(stop)
	kids.Wait()
	samples := readLabels(t, path)
	want := []string{"", "l1=a", "l1=a,l2=b", "l1=z,l2=b,l3=c", "l1=a,l2=b", "l1=a", ""}
	if got := sequence(samples, worker); !slices.Equal(got, want) {
		t.Errorf("the worker's labels over time: %q, want %q", got, want)
	}
	for _, k := range started {
		if got := sequence(samples, k.id); !slices.Equal(got, []string{k.want}) {
			t.Errorf("g%d, started under %q: labels %q", k.id, k.want, got)
		}
	}
}

// burnUntil keeps the CPU busy until d has passed.
//
//go:noinline
func burnUntil(d time.Duration) {
	x := 0
	for t0 := time.Now(); time.Since(t0) < d; {
		for i := range 1000 {
			x += i * i
		}
	}
	_ = x
}

// TestTraceRegionsExact runs a program that uses runtime/trace tasks and
// regions and nothing of the profiler's: each region's samples total its
// own measured duration to one tick per region, asleep or on CPU, nested
// or not, and the task's its span. The file passes the reference
// validator, and tachyon dump reads it with its label frames.
func TestTraceRegionsExact(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.bin")
	const hz = 100
	tick := time.Second / hz
	p := Start(WithPath(path), quiet, WithBackend(sampler.Trace), WithRate(hz))
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
	if p.Backend() != sampler.Trace {
		t.Skipf("backend %v", p.Backend())
	}
	measured := map[string]time.Duration{}
	count := map[string]int{}
	var worker uint64
	done := make(chan struct{})
	go func() {
		defer close(done)
		worker = goid.Current()
		t0 := time.Now()
		ctx, task := trace.NewTask(context.Background(), "batch")
		for i := range 6 {
			d := time.Duration(50+30*i) * time.Millisecond // 50 to 200 ms
			r0 := time.Now()
			trace.WithRegion(ctx, "sleep", func() { time.Sleep(d) })
			measured["sleep"] += time.Since(r0)
			count["sleep"]++
			r0 = time.Now()
			trace.WithRegion(ctx, "compute", func() { burnUntil(d) })
			measured["compute"] += time.Since(r0)
			count["compute"]++
			// outer holds inner: outer is the region only outside inner.
			o0 := time.Now()
			outer := trace.StartRegion(ctx, "outer")
			time.Sleep(d / 2)
			i0 := time.Now()
			inner := trace.StartRegion(ctx, "inner")
			time.Sleep(d)
			inner.End()
			in := time.Since(i0)
			time.Sleep(d / 2)
			outer.End()
			measured["inner"] += in
			measured["outer"] += time.Since(o0) - in
			count["inner"]++
			count["outer"] += 2
		}
		task.End()
		measured["task"] = time.Since(t0)
		count["task"] = 1
		time.Sleep(50 * time.Millisecond)
	}()
	<-done
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, s := range readLabels(t, path) {
		if s.g != worker {
			continue
		}
		for _, l := range strings.Split(s.labels, ",") {
			got[l]++
		}
	}
	for _, c := range []struct{ label, key string }{
		{"region=sleep", "sleep"}, {"region=compute", "compute"}, {"region=outer", "outer"}, {"region=inner", "inner"}, {"task=batch", "task"},
	} {
		sampled := time.Duration(got[c.label]) * tick
		bound := time.Duration(count[c.key]) * tick
		if diff := sampled - measured[c.key]; diff < -bound || diff > bound {
			t.Errorf("%s: %v sampled, %v measured, beyond ±%v", c.label, sampled, measured[c.key], bound)
		} else {
			t.Logf("%s: %v sampled, %v measured (±%v)", c.label, sampled, measured[c.key], bound)
		}
	}
	if n := got[""]; n == 0 {
		t.Errorf("no sample without labels after the task: %v", got)
	}

	proftest.Validate(t, path)
	ref := testutil.Shared(t, "tools", "tachyon_ref.py")
	py := testutil.Tool(t, "python3")
	testutil.Tool(t, "zstd")
	if out, err := exec.Command(py, ref, "validate", path).CombinedOutput(); err != nil || strings.Contains(string(out), "WARN") {
		t.Errorf("reference validator: %v\n%s", err, out)
	}
	bin := filepath.Join(t.TempDir(), "tachyon")
	if out, err := exec.Command(testutil.Tool(t, "go"), "build", "-o", bin, "./cmd/tachyon").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "dump", "--max-bytes", "0", path).Output()
	if err != nil {
		t.Fatalf("tachyon dump: %v", err)
	}
	if !strings.Contains(string(out), `"<labels>"`) || !strings.Contains(string(out), "region=inner") {
		t.Errorf("tachyon dump shows no label frame:\n%.2000s", out)
	}
}

// BenchmarkDo measures profiler.Do with a two-label set around an empty
// function, with no profile running and while a wall profile reads the
// trace (each call then writes two label events).
func BenchmarkDo(b *testing.B) {
	set := pprof.Labels("route", "/api/items/{id}", "method", "GET")
	f := func(context.Context) {}
	b.Run("idle", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			Do(context.Background(), set, f)
		}
	})
	b.Run("profiling", func(b *testing.B) {
		p := Start(WithPath(filepath.Join(b.TempDir(), "p.bin")), quiet, WithBackend(sampler.Trace))
		if err := p.Err(); err != nil {
			b.Fatal(err)
		}
		defer p.Stop()
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			Do(context.Background(), set, f)
		}
	})
}
