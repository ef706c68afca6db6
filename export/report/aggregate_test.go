package report

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/export/collapsed"
	"github.com/gotachyon/profiler/internal/testing/hostile"
	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/internal/testing/testutil"
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
	var states, shown uint64
	for s, n := range p.States {
		states += n
		shown += p.Shown[s]
	}
	if states != p.Samples {
		t.Errorf("state counts sum to %d, want %d", states, p.Samples)
	}
	if p.Nodes[0].Total != shown || shown != p.ViewSamples(ViewAll) {
		t.Errorf("root total = %d, want the %d samples shown (view all: %d)", p.Nodes[0].Total, shown, p.ViewSamples(ViewAll))
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
	if self != shown {
		t.Errorf("self counts sum to %d, want %d", self, shown)
	}

	// Leaves against package collapsed: same stacks, same counts, but for
	// the runtime's goroutines, out of the tree unless Options.Runtime.
	want, err := collapsed.Lines(f, collapsed.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !p.Options.Runtime {
		want = slices.DeleteFunc(want, func(l collapsed.Line) bool { return strings.HasPrefix(l.Stack, ":"+tachyon.RuntimeRoot+":0;") })
	}
	got := map[string]uint64{}
	for i := 1; i < len(p.Nodes); i++ {
		if p.Nodes[i].Self == 0 {
			continue
		}
		var parts []string
		for n := int32(i); n > 0; n = p.Nodes[n].Parent {
			fr := p.Frame(p.Nodes[n].Frame)
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
		if len(frames) > 0 && tachyon.IsRuntimeRoot(frames[len(frames)-1]) && !p.Options.Runtime {
			continue
		}
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

	checkCells(t, p)
	checkGroups(t, p)
}

// checkCells checks that the cells of each node add up to its Self, and
// those of each class to the samples of its states.
func checkCells(t *testing.T, p *Profile) {
	t.Helper()
	self := make([]uint64, len(p.Nodes))
	var classes [NumClasses]uint64
	for i, c := range p.Cells {
		if int(c.Slice) >= p.Slices || c.N == 0 || (i > 0 && p.Cells[i-1].Node > c.Node) {
			t.Fatalf("cell %d = %+v of %d slices, or out of order", i, c, p.Slices)
		}
		self[c.Node] += c.N
		classes[c.Class] += c.N
	}
	for i, n := range p.Nodes {
		if self[i] != n.Self {
			t.Fatalf("node %d: cells hold %d samples, self %d", i, self[i], n.Self)
		}
	}
	var want [NumClasses]uint64
	for s, n := range p.Shown {
		want[ClassOf(tachyon.State(s))] += n
	}
	if classes != want {
		t.Errorf("cells per class %v, states say %v", classes, want)
	}
	if p.Samples > 0 && (p.Slices < 1 || p.Slices > p.Options.Slices || p.Buckets != p.Options.Buckets) {
		t.Errorf("%d slices (at most %d), %d buckets", p.Slices, p.Options.Slices, p.Buckets)
	}
	if p.Samples > 0 && (p.Origin > p.First || p.Origin+uint64(p.Slices)*p.SliceWidth < p.End-p.Interval) {
		t.Errorf("slices [%d, +%d×%d) miss samples [%d, %d)", p.Origin, p.Slices, p.SliceWidth, p.First, p.End)
	}
}

// checkGroups checks the groups' and lanes' counts and order: groups
// hold every goroutine, are ranked by busy samples, and their cells and
// lanes add up.
func checkGroups(t *testing.T, p *Profile) {
	t.Helper()
	members := 0
	for i, g := range p.Groups {
		var n, cells uint64
		for _, c := range g.States {
			n += c
		}
		for _, c := range g.Cells {
			cells += c
		}
		if n != g.Samples || cells != g.Samples || g.Busy != busy(&g.States) {
			t.Errorf("group %d (%s in %s): %d samples, states sum %d, cells %d, busy %d", i, g.Entry, g.Where, g.Samples, n, cells, g.Busy)
		}
		if i > 0 && p.Groups[i-1].Busy < g.Busy && !g.Runtime || i > 0 && p.Groups[i-1].Runtime {
			t.Errorf("group %d busier than group %d, or after the runtime group", i, i-1)
		}
		members += g.Goroutines
		for k, li := range g.Lanes {
			l := p.Lanes[li]
			if l.Group != i || (k > 0 && p.Lanes[g.Lanes[k-1]].Busy < l.Busy) {
				t.Errorf("group %d lane %d: goroutine %d of group %d, busy %d, out of order", i, k, l.Goroutine, l.Group, l.Busy)
			}
		}
		for s, m := range g.Mix {
			if (m != "") != (g.States[s] > 0) || m != "" && len(m) != p.Buckets {
				t.Errorf("group %d: mix of %v is %d bytes with %d samples", i, tachyon.State(s), len(m), g.States[s])
			}
		}
	}
	if len(p.Groups) == p.GroupCount && members != p.Goroutines {
		t.Errorf("groups hold %d goroutines, want %d", members, p.Goroutines)
	}
	if want := min(p.Goroutines, p.Options.Goroutines); len(p.Groups) == p.GroupCount && len(p.Lanes) != want {
		t.Errorf("%d lanes, want %d", len(p.Lanes), want)
	}
	for i, l := range p.Lanes {
		var n uint64
		for _, c := range l.States {
			n += c
		}
		if n != l.Samples || l.Busy != busy(&l.States) {
			t.Errorf("lane %d (g%d): %d samples, states sum %d", i, l.Goroutine, l.Samples, n)
		}
		if len(l.Timeline) != p.Buckets || strings.Trim(l.Timeline, ".01234") != "" {
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
// frame; g2 is runnable throughout; g3 is in a syscall every other tick,
// in the encoding of files written before tachyon.StatusOf dropped the
// OnCPU flag from it.
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
	// Busiest first: g2 (100 runnable), then g1 (50 running), both of
	// main.main's group, then g3 (50 in a syscall: not busy); g1's
	// timeline is half running, half blocked.
	want := []struct {
		g        uint64
		entry    string
		timeline string
		group    int
	}{
		{2, "main.main", "1111111111", 0},
		{1, "main.main", "0000022222", 0},
		{3, "main.read", "3333333333", 1},
	}
	if len(p.Lanes) != len(want) || len(p.Groups) != 2 {
		t.Fatalf("%d lanes, %d groups, want %d and 2", len(p.Lanes), len(p.Groups), len(want))
	}
	for i, w := range want {
		l := p.Lanes[i]
		if l.Goroutine != w.g || l.Timeline != w.timeline || l.Entry != w.entry || l.Group != w.group {
			t.Errorf("lane %d = g%d %q entry %q group %d, want g%d %q %q group %d", i, l.Goroutine, l.Timeline, l.Entry, l.Group, w.g, w.timeline, w.entry, w.group)
		}
	}
	if g := p.Groups[0]; g.Where != "main.spin" {
		t.Errorf("main.main's group is in %q, want main.spin (g2's 100 samples)", g.Where)
	}
	if got := p.States; got != [tachyon.NumStates]uint64{50, 100, 50, 50, 0} {
		t.Errorf("states = %v, want running 50, runnable 100, blocked 50, syscall 50", got)
	}
	// On CPU is running alone; off CPU is blocked and in a syscall.
	for v, want := range map[View]uint64{ViewOnCPU: 50, ViewWaiting: 100, ViewOffCPU: 100, ViewAll: 250} {
		if got := p.ViewSamples(v); got != want {
			t.Errorf("view %v: %d samples, want %d", v, got, want)
		}
	}
	if p.OnCPU() != 50 || p.Lanes[2].Busy != 0 {
		t.Errorf("on CPU %d, g3 busy %d; want 50 and 0", p.OnCPU(), p.Lanes[2].Busy)
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
	if len(p.Groups) != 1 || p.Groups[0].Goroutines != maxDetail+10 {
		t.Fatalf("groups %+v, want one of %d goroutines", p.Groups, maxDetail+10)
	}
	if len(p.Lanes) != 3 || p.Lanes[0].Goroutine != 1 {
		t.Fatalf("%d lanes, the first of goroutine %d; want 3, the first of goroutine 1", len(p.Lanes), p.Lanes[0].Goroutine)
	}
}
