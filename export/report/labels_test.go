package report

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// Label keys and values of the labelled profile.
const (
	keyRoute  = "http.route"
	keyMethod = "http.method"
	routeCPU  = "/cpu"
	routeSlow = "/slow"
)

// lphase is ticks samples of a goroutine of the labelled profile in one
// state, stack and label set.
type lphase struct {
	ticks  int
	state  tachyon.State
	wait   string   // for blocked: the wait reason frame's reason, "" for none
	noCPU  bool     // runnable under [no CPU sample] (holding a P)
	code   []string // functions, innermost first
	labels []tachyon.Label
}

// labelledTicks and labelledInterval shape the labelled profile.
const (
	labelledStart    = 5_000_000
	labelledTicks    = 300
	labelledInterval = 1000
)

// labelledSpec returns the goroutines of the labelled profile, as phases:
// samples in every state, blocked ones under a wait reason (and one
// without), runnable ones under [no CPU sample], labels of routes and
// methods, of a runtime/trace task and region, a goroutine whose labels
// change while its stack does not, one without labels and a runtime
// system goroutine (rooted at [runtime], without labels).
func labelledSpec() [][]lphase {
	get := []tachyon.Label{{Key: keyRoute, Value: routeCPU}, {Key: keyMethod, Value: "GET"}}
	post := []tachyon.Label{{Key: keyRoute, Value: routeCPU}, {Key: keyMethod, Value: "POST"}}
	slow := []tachyon.Label{{Key: keyRoute, Value: routeSlow}, {Key: keyMethod, Value: "GET"}}
	task := []tachyon.Label{{Key: tachyon.LabelTask, Value: "job"}, {Key: tachyon.LabelRegion, Value: "step"}}
	serve := []string{"net/http.HandlerFunc.ServeHTTP", "net/http.(*conn).serve"}
	cpu := append([]string{"app.hash", "app.cpuHandler"}, serve...)
	wait := append([]string{"app.fetch", "app.slowHandler"}, serve...)
	return [][]lphase{
		{{200, tachyon.Running, "", false, cpu, get}, {50, tachyon.Runnable, "", true, cpu, get}, {50, tachyon.Syscall, "", false, append([]string{"syscall.Syscall"}, cpu...), get}},
		{{20, tachyon.Running, "", false, wait, slow}, {200, tachyon.Blocked, "chan receive", false, wait, slow}, {80, tachyon.Blocked, "select", false, wait, slow}},
		{{100, tachyon.Runnable, "", false, cpu, post}, {150, tachyon.Blocked, "IO wait", false, cpu, post}, {50, tachyon.Unknown, "", false, cpu, post}},
		{{150, tachyon.Running, "", false, []string{"app.step", "app.job"}, task}, {100, tachyon.Blocked, "sleep", false, []string{"time.Sleep", "app.job"}, task}, {50, tachyon.Blocked, "", false, []string{"app.job"}, task}},
		{{300, tachyon.Blocked, "select", false, []string{"app.idle", "main.main"}, nil}},
		{{60, tachyon.Running, "", false, []string{"runtime.gcDrain", "runtime.gcBgMarkWorker", tachyon.RuntimeRoot}, nil},
			{240, tachyon.Blocked, "GC worker (idle)", false, []string{"runtime.gcBgMarkWorker", tachyon.RuntimeRoot}, nil}},
		{{150, tachyon.Blocked, "chan receive", false, wait, get}, {150, tachyon.Blocked, "chan receive", false, wait, slow}},
	}
}

// labelledSamples returns the samples of spec, with their label frames or,
// unless labels, without.
func labelledSamples(spec [][]lphase, labels bool) []writer.Sample {
	var out []writer.Sample
	for g, phases := range spec {
		tick := 0
		for _, ph := range phases {
			var frames []tachyon.Frame
			switch {
			case ph.wait != "" && ph.state == tachyon.Blocked:
				frames = append(frames, tachyon.WaitFrame(ph.wait))
			case ph.noCPU:
				frames = append(frames, tachyon.Frame{Func: tachyon.NoCPUSample})
			}
			for i, fn := range ph.code {
				if fn == tachyon.RuntimeRoot {
					frames = append(frames, tachyon.Frame{Func: fn})
					continue
				}
				frames = append(frames, tachyon.Frame{File: "/src/" + fn + ".go", Func: fn, Line: int32(10 + i)})
			}
			if labels {
				frames = append(frames, tachyon.LabelFrames(slices.Clone(ph.labels))...)
			}
			status := tachyon.StatusOf(ph.state, false)
			if ph.noCPU {
				status = tachyon.StatusHasGIL
			}
			for range ph.ticks {
				out = append(out, writer.Sample{ThreadID: uint64(g + 1), Timestamp: uint64(labelledStart + tick*labelledInterval),
					Status: status, Frames: frames})
				tick++
			}
		}
	}
	return out
}

// labelledFile writes the labelled profile (or, unless labels, the same
// without label frames) and returns its path.
func labelledFile(tb testing.TB, labels bool) string {
	tb.Helper()
	return proftest.WriteSamples(tb, writer.Options{StartTime: labelledStart, Interval: labelledInterval},
		labelledSamples(labelledSpec(), labels))
}

// wantByLabel counts, from the spec, the samples of each value of key in
// the slices lo to hi of p (without the runtime goroutine's, as the views
// unless Options.Runtime), as ByLabel rows keyed by value ("" for None).
func wantByLabel(p *Profile, key string, lo, hi int) map[string]LabelRow {
	out := map[string]LabelRow{}
	for _, phases := range labelledSpec() {
		tick := 0
		for _, ph := range phases {
			rt := ph.code[len(ph.code)-1] == tachyon.RuntimeRoot
			v, none := "", true
			for _, l := range ph.labels {
				if l.Key == key {
					v, none = l.Value, false
				}
			}
			for range ph.ticks {
				t := uint64(labelledStart + tick*labelledInterval)
				tick++
				s := int((t - p.Origin) / p.SliceWidth)
				if s < lo || s >= hi || (rt && !p.Options.Runtime) {
					continue
				}
				r := out[v]
				r.Value, r.None = v, none
				if r.Waits == nil {
					r.Waits = map[string]uint64{}
				}
				r.Samples++
				r.Classes[ClassOf(ph.state)]++
				if ph.state == tachyon.Blocked {
					r.Waits[ph.wait]++
				}
				out[v] = r
			}
		}
	}
	return out
}

// checkByLabel checks p.ByLabel(key, lo, hi) against wantByLabel.
func checkByLabel(t *testing.T, p *Profile, key string, lo, hi int) {
	t.Helper()
	want := wantByLabel(p, key, lo, hi)
	got := p.ByLabel(key, lo, hi)
	if len(got) != len(want) {
		t.Errorf("ByLabel(%q, %d, %d): %d rows, want %d: %+v", key, lo, hi, len(got), len(want), got)
	}
	for i, r := range got {
		if i > 0 && !r.None && got[i-1].Samples < r.Samples {
			t.Errorf("ByLabel(%q): row %d (%d samples) after a lighter one", key, i, r.Samples)
		}
		w := want[r.Value]
		if r.Other || r.None != w.None || r.Samples != w.Samples || r.Classes != w.Classes || !maps.Equal(r.Waits, w.Waits) {
			t.Errorf("ByLabel(%q, %d, %d) %q: %+v, want %+v", key, lo, hi, r.Value, r, w)
		}
	}
}

// TestByLabel checks the samples per label value and state of the
// labelled profile against a count from its spec: whole, in time ranges,
// with the runtime goroutines shown and hidden.
func TestByLabel(t *testing.T) {
	path := labelledFile(t, true)
	for _, opt := range []Options{{}, {Runtime: true}, {Slices: 7}} {
		p, err := Aggregate(proftest.Open(t, path), opt)
		if err != nil {
			t.Fatal(err)
		}
		if !p.Labelled() || len(p.LabelSets) != 5 {
			t.Fatalf("label sets %+v, want the empty set and 4", p.LabelSets)
		}
		if keys := p.LabelKeys(); !slices.Equal(keys, []string{keyMethod, keyRoute, "region", "task"}) {
			t.Errorf("keys %q", keys)
		}
		for _, key := range []string{keyRoute, keyMethod, tachyon.LabelRegion, "absent"} {
			checkByLabel(t, p, key, 0, p.Slices)
			for _, r := range [][2]int{{0, 1}, {p.Slices / 3, p.Slices / 2}, {p.Slices - 1, p.Slices}} {
				checkByLabel(t, p, key, r[0], r[1])
			}
		}
		// The whole table is the samples shown.
		var n uint64
		for _, r := range p.ByLabel(keyRoute, 0, p.Slices) {
			n += r.Samples
		}
		if n != p.ViewSamples(ViewAll) {
			t.Errorf("Runtime %v: table holds %d samples, the views %d", opt.Runtime, n, p.ViewSamples(ViewAll))
		}
	}
}

// TestLabelsChangeNoGrouping aggregates the labelled profile and the same
// samples without label frames: everything but the cells' label sets is
// equal.
func TestLabelsChangeNoGrouping(t *testing.T) {
	for _, opt := range []Options{{}, {Runtime: true}} {
		with, err := Aggregate(proftest.Open(t, labelledFile(t, true)), opt)
		if err != nil {
			t.Fatal(err)
		}
		without, err := Aggregate(proftest.Open(t, labelledFile(t, false)), opt)
		if err != nil {
			t.Fatal(err)
		}
		if without.Labelled() {
			t.Fatal("the file without label frames has labels")
		}
		for i := range with.Nodes {
			if fr := with.Nodes[i].Frame; fr >= 0 && with.Frame(fr).File == tachyon.LabelFile {
				t.Fatalf("node %d is a label frame", i)
			}
		}
		// The frame tables differ (label frames come in between), so
		// nodes and cells are compared by their stacks.
		if a, b := treeOf(with), treeOf(without); !maps.Equal(a, b) {
			t.Errorf("Runtime %v: trees differ:\n%v\n%v", opt.Runtime, a, b)
		}
		for _, p := range []*Profile{with, without} {
			p.Frames, p.Names, p.Nodes, p.Cells, p.LabelSets = nil, nil, nil, nil, nil
		}
		if !reflect.DeepEqual(with, without) {
			t.Errorf("Runtime %v: profiles differ:\n%+v\n%+v", opt.Runtime, with, without)
		}
		if len(with.Groups) != 4 || with.Groups[len(with.Groups)-1].Runtime == opt.Runtime {
			t.Errorf("Runtime %v: %d groups, want 4, the last the runtime's unless Runtime", opt.Runtime, len(with.Groups))
		}
	}
}

// TestLabelSetsBounded writes more distinct label sets than MaxLabelSets:
// the first ones seen are told apart, the rest count in the Other set.
func TestLabelSetsBounded(t *testing.T) {
	const n = MaxLabelSets + 50
	var samples []writer.Sample
	for g := range n {
		frames := append([]tachyon.Frame{{File: "/src/a.go", Func: "app.work", Line: 3}},
			tachyon.LabelFrames([]tachyon.Label{{Key: "id", Value: fmt.Sprint(g)}})...)
		for k := range 3 {
			samples = append(samples, writer.Sample{ThreadID: uint64(g + 1), Timestamp: uint64(1_000_000 + (k*n+g)*10),
				Status: tachyon.StatusOnCPU, Frames: frames})
		}
	}
	path := proftest.WriteSamples(t, writer.Options{StartTime: 1_000_000, Interval: 1000}, samples)
	p, err := Aggregate(proftest.Open(t, path), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.LabelSets) != MaxLabelSets+1 || !p.LabelSets[MaxLabelSets].Other {
		t.Fatalf("%d label sets, the last %+v", len(p.LabelSets), p.LabelSets[len(p.LabelSets)-1])
	}
	rows := p.ByLabel("id", 0, p.Slices)
	if len(rows) != MaxLabelSets {
		t.Fatalf("%d rows, want %d values and Other", len(rows), MaxLabelSets-1)
	}
	last := rows[len(rows)-1]
	if !last.Other || last.Samples != 3*(n-MaxLabelSets+1) || last.Classes[OnCPU] != last.Samples {
		t.Errorf("Other row %+v, want %d samples", last, 3*(n-MaxLabelSets+1))
	}
	for _, r := range rows[:len(rows)-1] {
		if r.Samples != 3 || r.None || r.Other {
			t.Errorf("row %+v, want 3 samples", r)
		}
	}
	if len(p.Groups) != 1 || p.Groups[0].Goroutines != n {
		t.Errorf("groups %+v, want one of every goroutine", p.Groups)
	}
}

// treeOf returns p's call tree as text: per node, its stack and its
// self, total and cells, summed over the label sets.
func treeOf(p *Profile) map[string]string {
	path := func(n int32) string {
		var s string
		for ; n > 0; n = p.Nodes[n].Parent {
			fr := p.Frame(p.Nodes[n].Frame)
			s = fmt.Sprintf("%s:%d;%s", fr.Func, fr.Line, s)
		}
		return s
	}
	cells := map[string]map[[2]int]uint64{}
	for _, c := range p.Cells {
		k := path(c.Node)
		if cells[k] == nil {
			cells[k] = map[[2]int]uint64{}
		}
		cells[k][[2]int{int(c.Class), int(c.Slice)}] += c.N
	}
	out := map[string]string{}
	for i, n := range p.Nodes {
		k := path(int32(i))
		out[k] = fmt.Sprint(n.Self, n.Total, cells[k])
	}
	return out
}
