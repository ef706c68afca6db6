package report

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/export/collapsed"
	"github.com/gotachyon/profiler/internal/hostile"
	"github.com/gotachyon/profiler/internal/proftest"
	"github.com/gotachyon/profiler/internal/testutil"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// profiles returns the valid public vectors and the demo profiles, if any.
func profiles(t *testing.T) []string {
	dir := testutil.Vectors(t, "tachyon")
	paths, err := filepath.Glob(filepath.Join(dir, "*.bin"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no vectors in %s: %v", dir, err)
	}
	demo, _ := filepath.Glob(filepath.Join(testutil.RepoRoot(), "testdata", "demo", "*.bin"))
	return append(paths, demo...)
}

// TestAggregateVectors checks the aggregates of every public vector (and
// demo profile) against independent computations from the raw samples: the
// tree's leaves against package collapsed, function totals against a
// per-sample count, states and lanes against the sample counts.
func TestAggregateVectors(t *testing.T) {
	for _, path := range profiles(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			f := proftest.Open(t, path)
			p, err := Aggregate(f, Options{Goroutines: 3, Buckets: 50})
			if err != nil {
				t.Fatal(err)
			}
			checkProfile(t, f, p)
		})
	}
}

func checkProfile(t *testing.T, f *reader.File, p *Profile) {
	t.Helper()
	if p.Samples != uint64(f.Header.SampleCount) {
		t.Errorf("samples = %d, header says %d", p.Samples, f.Header.SampleCount)
	}
	if p.Goroutines != int(f.Header.ThreadCount) {
		t.Errorf("goroutines = %d, header says %d threads", p.Goroutines, f.Header.ThreadCount)
	}
	if p.Nodes[0].Total != p.Samples {
		t.Errorf("root total = %d, want %d", p.Nodes[0].Total, p.Samples)
	}
	var states uint64
	for _, n := range p.States {
		states += n
	}
	if states != p.Samples {
		t.Errorf("state counts sum to %d, want %d", states, p.Samples)
	}

	// Tree consistency: totals are self plus the children's totals.
	sum := make([]uint64, len(p.Nodes))
	var self uint64
	for i := len(p.Nodes) - 1; i >= 0; i-- {
		n := p.Nodes[i]
		self += n.Self
		if n.Total != n.Self+sum[i] {
			t.Fatalf("node %d: total %d != self %d + children %d", i, n.Total, n.Self, sum[i])
		}
		if i > 0 {
			if n.Parent < 0 || int(n.Parent) >= i {
				t.Fatalf("node %d: parent %d does not precede it", i, n.Parent)
			}
			sum[n.Parent] += n.Total
		}
	}
	if self != p.Samples {
		t.Errorf("self counts sum to %d, want %d", self, p.Samples)
	}

	// Leaves against package collapsed: same stacks, same counts.
	want, err := collapsed.Lines(f, collapsed.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]uint64{}
	for i := 1; i < len(p.Nodes); i++ {
		if p.Nodes[i].Self == 0 {
			continue
		}
		var parts []string
		for n := int32(i); n > 0; n = p.Nodes[n].Parent {
			fr := p.Frames[p.Nodes[n].Frame]
			parts = append(parts, fmt.Sprintf("%s:%s:%d", fr.File, fr.Func, fr.Line))
		}
		for l, r := 0, len(parts)-1; l < r; l, r = l+1, r-1 {
			parts[l], parts[r] = parts[r], parts[l]
		}
		got[strings.Join(parts, ";")] += p.Nodes[i].Self
	}
	if len(got) != len(want) {
		t.Errorf("%d distinct stacks in the tree, collapsed has %d", len(got), len(want))
	}
	for _, l := range want {
		if got[l.Stack] != l.Count {
			t.Errorf("stack %.80q: tree has %d samples, collapsed %d", l.Stack, got[l.Stack], l.Count)
			break
		}
	}

	// Functions against a direct count over the samples.
	type key struct{ fn, file string }
	wantSelf, wantTotal := map[key]uint64{}, map[key]uint64{}
	it := f.Samples()
	defer it.Close()
	var frames []tachyon.Frame
	for it.Next() {
		frames = it.Frames(frames[:0])
		seen := map[key]bool{}
		for i, fr := range frames {
			k := key{fr.Func, fr.File}
			if i == 0 {
				wantSelf[k]++
			}
			if !seen[k] {
				seen[k] = true
				wantTotal[k]++
			}
		}
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	if len(p.Functions) != len(wantTotal) {
		t.Errorf("%d functions, want %d", len(p.Functions), len(wantTotal))
	}
	for i, fn := range p.Functions {
		k := key{fn.Func, fn.File}
		if fn.Self != wantSelf[k] || fn.Total != wantTotal[k] {
			t.Errorf("%s (%s): self/total %d/%d, want %d/%d", fn.Func, fn.File, fn.Self, fn.Total, wantSelf[k], wantTotal[k])
			break
		}
		if i > 0 && p.Functions[i-1].Total < fn.Total {
			t.Errorf("functions not sorted by total at %d", i)
		}
	}

	// Lanes: the busiest goroutines, state counts adding up.
	if want := min(p.Goroutines, p.Options.Goroutines); len(p.Lanes) != want {
		t.Errorf("%d lanes, want %d", len(p.Lanes), want)
	}
	for i, l := range p.Lanes {
		var n uint64
		for _, c := range l.States {
			n += c
		}
		if n != l.Samples || (i > 0 && p.Lanes[i-1].Samples < l.Samples) {
			t.Errorf("lane %d (g%d): %d samples, states sum %d, or not sorted", i, l.Goroutine, l.Samples, n)
		}
		if len(l.Timeline) != p.Options.Buckets || strings.Trim(l.Timeline, ".01234") != "" {
			t.Errorf("lane %d: bad timeline %q", i, l.Timeline)
		}
		if l.Samples > 0 && strings.Trim(l.Timeline, ".") == "" {
			t.Errorf("lane %d has %d samples but an empty timeline", i, l.Samples)
		}
	}
}

// frame returns a frame of the synthetic profiles.
func frame(fn string, line int32) tachyon.Frame {
	return tachyon.Frame{File: "/src/app/" + strings.ToLower(fn[:1]) + ".go", Func: "main." + fn, Line: line}
}

// writeProfile writes samples of goroutine states to a temporary file: g1
// runs work() for the first half and then blocks on a channel with a wait
// frame; g2 is runnable throughout; g3 is in a syscall.
func writeProfile(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "states.bin")
	w, err := writer.Create(path, writer.Options{StartTime: 1_000_000, Interval: 1000})
	if err != nil {
		t.Fatal(err)
	}
	mainF, work := frame("main", 10), frame("work", 20)
	recv := tachyon.Frame{Func: "[chan receive]"}
	chanrecv := tachyon.Frame{File: "/go/src/runtime/chan.go", Func: "runtime.chanrecv1", Line: 442}
	running := tachyon.StatusOnCPU | tachyon.StatusHasGIL
	for i := range 100 {
		ts := uint64(1_000_000 + i*1000)
		s := &writer.Sample{ThreadID: 1, Timestamp: ts, Status: running, Frames: []tachyon.Frame{work, mainF}}
		if i >= 50 {
			s.Status, s.Frames = 0, []tachyon.Frame{recv, chanrecv, frame("consume", 30), mainF}
		}
		must(t, w.WriteSample(s))
		must(t, w.WriteSample(&writer.Sample{ThreadID: 2, Timestamp: ts, Status: tachyon.StatusGILRequested, Frames: []tachyon.Frame{frame("spin", 5), mainF}}))
		if i%2 == 0 {
			must(t, w.WriteSample(&writer.Sample{ThreadID: 3, Timestamp: ts, Status: tachyon.StatusOnCPU | tachyon.StatusUnknown, Frames: []tachyon.Frame{frame("read", 7)}}))
		}
	}
	must(t, w.Close())
	return path
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestAggregateStates checks lanes, timelines, top functions and the wait
// frame on a profile whose goroutine states are known.
func TestAggregateStates(t *testing.T) {
	f := proftest.Open(t, writeProfile(t))
	p, err := Aggregate(f, Options{Buckets: 10})
	if err != nil {
		t.Fatal(err)
	}
	checkProfile(t, f, p)
	want := []struct {
		g        uint64
		top      string
		timeline string
	}{
		{1, "main.work", "0000022222"}, // the wait frame and runtime.* are skipped for the top function…
		{2, "main.spin", "1111111111"},
		{3, "main.read", "3333333333"},
	}
	if len(p.Lanes) != len(want) {
		t.Fatalf("%d lanes, want %d", len(p.Lanes), len(want))
	}
	for i, w := range want {
		l := p.Lanes[i]
		if l.Goroutine != w.g || l.Timeline != w.timeline || l.Root != "main.main" && w.g != 3 {
			t.Errorf("lane %d = g%d %q root %q, want g%d %q", i, l.Goroutine, l.Timeline, l.Root, w.g, w.timeline)
		}
		if w.g != 1 && l.Top != w.top {
			t.Errorf("lane g%d top = %q, want %q", l.Goroutine, l.Top, w.top)
		}
	}
	if top := p.Lanes[0].Top; top != "main.work" && top != "main.consume" { // …50 samples each
		t.Errorf("g1 top = %q, want main.work or main.consume", top)
	}
	if got := p.States; got != [tachyon.NumStates]uint64{50, 100, 50, 50, 0} {
		t.Errorf("states = %v, want running 50, runnable 100, blocked 50, syscall 50", got)
	}
	var wait *Function
	for i := range p.Functions {
		if p.Functions[i].Func == "[chan receive]" {
			wait = &p.Functions[i]
		}
	}
	if wait == nil || wait.Self != 50 || wait.Total != 50 {
		t.Errorf("wait frame [chan receive] = %+v, want 50 self samples", wait)
	}
}

// TestAggregateRejectsCorrupt checks that a malformed file yields a format
// error, never a panic or a report.
func TestAggregateRejectsCorrupt(t *testing.T) {
	dir := testutil.Vectors(t, "tachyon", "corrupt")
	paths, _ := filepath.Glob(filepath.Join(dir, "*.bin"))
	if len(paths) == 0 {
		t.Fatalf("no corrupt vectors in %s", dir)
	}
	rejected := 0
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := reader.NewFileBytes(data)
		if err != nil {
			rejected++
			continue // the reader refused it before any sample
		}
		var buf bytes.Buffer
		if err := Write(&buf, f, Options{}); err != nil {
			if !errors.Is(err, reader.ErrFormat) {
				t.Errorf("%s: error %v does not wrap reader.ErrFormat", filepath.Base(path), err)
			}
			if buf.Len() != 0 {
				t.Errorf("%s: %d bytes written despite the error", filepath.Base(path), buf.Len())
			}
			rejected++
		}
	}
	if rejected == 0 {
		t.Errorf("none of %d corrupt vectors was rejected", len(paths))
	}
}

// TestAggregateManyGoroutines: a file of more goroutines than Aggregate
// keeps timelines for while it reads is read twice; the aggregates are
// those of one pass, lanes for the busiest.
func TestAggregateManyGoroutines(t *testing.T) {
	f, err := reader.NewFileBytes(hostile.ManyThreads(maxDetail + 10))
	if err != nil {
		t.Fatal(err)
	}
	p, err := Aggregate(f, Options{Goroutines: 3, Buckets: 50})
	if err != nil {
		t.Fatal(err)
	}
	checkProfile(t, f, p)
	if len(p.Lanes) != 3 || p.Lanes[0].Goroutine != 1 {
		t.Fatalf("%d lanes, the first of goroutine %d; want 3, the first of goroutine 1", len(p.Lanes), p.Lanes[0].Goroutine)
	}
}
