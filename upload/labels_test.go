package upload_test

import (
	"context"
	"maps"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/upload"
	"github.com/gotachyon/profiler/upload/otlp"
	"github.com/gotachyon/profiler/upload/pyroscope"
	"github.com/gotachyon/profiler/writer"
)

// Label sets of the labelled profiles: two routes of a service, a trace
// task, and none.
var (
	routeCPU  = []tachyon.Label{{Key: "http.route", Value: "/api/cpu"}, {Key: "http.method", Value: "GET"}}
	routeSlow = []tachyon.Label{{Key: "http.route", Value: "/api/slow/{id}"}, {Key: "http.method", Value: "POST"}}
	inTask    = []tachyon.Label{{Key: tachyon.LabelTask, Value: "import"}}
)

// labelStores are the receivers with how each store names a label: OTLP
// as it is, Pyroscope as a Prometheus label name.
var labelStores = []struct {
	name string
	key  func(string) string
}{
	{"pyroscope", func(k string) string { return strings.ReplaceAll(k, ".", "_") }},
	{"otlp", func(k string) string { return k }},
}

// writeLabelledSegment writes a wall profile of 40 goroutines over 200
// ticks: some in each route, running or runnable, in a syscall, or
// blocked (the slow route in a select), some in a task, some unlabelled;
// a goroutine's labels change from tick to tick as requests come and go.
func writeLabelledSegment(t *testing.T, path string) string {
	t.Helper()
	const start, interval = 1_700_000_000_000_000, 10_000
	w, err := writer.Create(path, writer.Options{StartTime: start, Interval: interval, Compression: tachyon.CompressionZstd})
	if err != nil {
		t.Fatal(err)
	}
	for tick := range 200 {
		for g := range 40 {
			s := goroutineSample(1, g, tick)
			s.Timestamp = start + uint64(tick)*interval
			var ls []tachyon.Label
			switch (g + tick/25) % 4 {
			case 0:
				ls = routeCPU
			case 1:
				ls = routeSlow
				if s.Status == 0 { // blocked: in the downstream call
					s.Frames = []tachyon.Frame{{Func: "[select]"}, {File: "/src/app/slow.go", Func: "main.downstream", Line: 7}}
				}
			case 2:
				ls = inTask
			}
			s.Frames = append(s.Frames, tachyon.LabelFrames(append([]tachyon.Label(nil), ls...))...)
			if err := w.WriteSample(&s); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestLabelSeries pushes a segment with label frames: each store gets the
// program's labels as sample labels (OTLP attributes) beside state and
// wait_reason, with exact totals per label set and state; Pyroscope's
// distributor makes a series of each label set, beside the service's own
// labels.
func TestLabelSeries(t *testing.T) {
	path := writeLabelledSegment(t, filepath.Join(t.TempDir(), "labelled.bin"))
	for i, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			key := labelStores[i].key
			r := st.new(t)
			r.up()
			u := newUploader(t, st.url(r.addr), upload.Config{})
			u.Segment(path, true)
			got := r.received()
			if len(got) != 1 {
				t.Fatalf("received %d profiles, want 1", len(got))
			}
			want := fileTotalsNamed(t, path, key)
			if !maps.Equal(got[0].totals, want) {
				t.Errorf("totals by label set and state\n got %v\nwant %v", got[0].totals, want)
			}
			for _, k := range []string{"http.route", "http.method", "task"} {
				if !got[0].labelKeys[key(k)] {
					t.Errorf("no sample label %q: %v", key(k), got[0].labelKeys)
				}
			}
			if st.name == "pyroscope" {
				checkSplit(t, got[0], want, st.series("checkout"), key)
			}
		})
	}
}

// checkSplit checks the series Pyroscope's distributor makes of a push:
// each has the push's labels, and the samples of each route, summed over
// its series, are the route's.
func checkSplit(t *testing.T, rec received, want totals, push map[string]string, key func(string) string) {
	t.Helper()
	route := key("http.route") + "="
	byRoute := func(tot totals, sep string) map[string]value {
		out := map[string]value{}
		for ls, v := range tot {
			for kv := range strings.SplitSeq(ls.set, " ") {
				if strings.HasPrefix(kv, route) {
					old := out[kv]
					out[kv] = value{old.samples + v.samples, old.wall + v.wall, old.onCPU + v.onCPU}
				}
			}
		}
		return out
	}
	if got, w := byRoute(rec.split, " "), byRoute(want, " "); len(w) != 2 || !maps.Equal(got, w) {
		t.Errorf("Pyroscope series by route\n got %v\nwant %v", got, w)
	}
	for ls := range rec.split {
		for k, v := range push {
			if !strings.Contains(" "+ls.set+" ", " "+k+"="+v+" ") {
				t.Errorf("series %q without the push's label %s=%s", ls.set, k, v)
			}
		}
	}
}

// labelledProfile returns a wall profile whose samples carry pprof labels
// as export/pprof writes them: state, wait_reason and the program's.
func labelledProfile() *profile.Profile {
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "wall", Unit: "nanoseconds"}, {Type: "on_cpu", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "wall", Unit: "nanoseconds"},
		Period:     10_000_000,
	}
	fn := &profile.Function{ID: 1, Name: "main.handler", Filename: "/src/app/main.go"}
	loc := &profile.Location{ID: 1, Line: []profile.Line{{Function: fn, Line: 12}}}
	p.Function, p.Location = []*profile.Function{fn}, []*profile.Location{loc}
	add := func(n int64, state, reason string, ls []tachyon.Label) {
		label := map[string][]string{"state": {state}}
		if reason != "" {
			label["wait_reason"] = []string{reason}
		}
		for _, l := range ls {
			label[l.Key] = []string{l.Value}
		}
		onCPU := int64(0)
		if state == "running" {
			onCPU = n * p.Period
		}
		p.Sample = append(p.Sample, &profile.Sample{Location: []*profile.Location{loc}, Value: []int64{n, n * p.Period, onCPU}, Label: label})
	}
	add(120, "running", "", routeCPU)
	add(7, "runnable", "", routeCPU)
	add(3, "running", "", routeSlow)
	add(95, "blocked", "select", routeSlow)
	add(11, "syscall", "", inTask)
	add(40, "blocked", "chan receive", nil)
	return p
}

// profileTotals returns p's totals by label set and state, with the label
// names as key gives them.
func profileTotals(p *profile.Profile, key func(string) string) totals {
	tot := totals{}
	for _, s := range p.Sample {
		kv := map[string]string{}
		for k, vs := range s.Label {
			if k != "state" && k != "wait_reason" {
				kv[key(k)] = vs[0]
			}
		}
		ls := labels{state: first(s.Label["state"]), reason: first(s.Label["wait_reason"]), set: labelSet(kv)}
		tot.add(ls, value{s.Value[0], s.Value[1], s.Value[2]})
	}
	return tot
}

// TestLabelSeriesTransport pushes a pprof profile with program labels
// through each store's client, as the uploader does after export/pprof:
// the receivers get exact totals per label set and state.
func TestLabelSeriesTransport(t *testing.T) {
	type client interface {
		Encode(*profile.Profile) ([]byte, error)
		Send(context.Context, []byte) error
		Close() error
	}
	for i, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			key := labelStores[i].key
			r := st.new(t)
			r.up()
			var c client
			var err error
			if st.name == "pyroscope" {
				c, err = pyroscope.New(st.url(r.addr), "checkout", map[string]string{"env": "test"})
			} else {
				c, err = otlp.New(st.url(r.addr), "checkout", map[string]string{"env": "test"})
			}
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			p := labelledProfile()
			want := profileTotals(p, key)
			payload, err := c.Encode(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Send(context.Background(), payload); err != nil {
				t.Fatal(err)
			}
			got := r.received()
			if len(got) != 1 {
				t.Fatalf("received %d profiles, want 1", len(got))
			}
			if !maps.Equal(got[0].totals, want) {
				t.Errorf("totals by label set and state\n got %v\nwant %v", got[0].totals, want)
			}
			if st.name == "pyroscope" {
				checkSplit(t, got[0], want, st.series("checkout"), key)
			}
		})
	}
}
