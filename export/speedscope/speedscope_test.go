package speedscope

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	"github.com/gotachyon/profiler/tachyon"
)

type file struct {
	Schema string `json:"$schema"`
	Name   string `json:"name"`
	Shared struct {
		Frames []struct {
			Name string `json:"name"`
			File string `json:"file"`
			Line int32  `json:"line"`
		} `json:"frames"`
	} `json:"shared"`
	Profiles []struct {
		Type       string   `json:"type"`
		Name       string   `json:"name"`
		Unit       string   `json:"unit"`
		StartValue uint64   `json:"startValue"`
		EndValue   uint64   `json:"endValue"`
		Samples    [][]int  `json:"samples"`
		Weights    []uint64 `json:"weights"`
	} `json:"profiles"`
}

func export(t *testing.T, ss []sample, interval uint64, o Options) file {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, writeProfile(t, interval, ss), o); err != nil {
		t.Fatal(err)
	}
	var f file
	if err := json.Unmarshal(b.Bytes(), &f); err != nil {
		t.Fatalf("%v\n%s", err, b.Bytes())
	}
	return f
}

var (
	fMain = tachyon.Frame{File: "/app/main.go", Func: "main.main", Line: 12}
	fWork = tachyon.Frame{File: "/app/work.go", Func: "main.work", Line: 30}
	fPop  = tachyon.Frame{File: "/app/q.go", Func: "main.(*Queue).Pop", Line: 5}
	fWait = tachyon.Frame{Func: "[chan receive]"}
)

const running = tachyon.StatusOnCPU | tachyon.StatusHasGIL

// threeGoroutines: goroutine 3 runs 3 times then blocks once, goroutine 5
// is blocked 5 times, goroutine 4 runs twice.
func threeGoroutines() []sample {
	work := []tachyon.Frame{fWork, fMain}
	wait := []tachyon.Frame{fWait, fPop, fMain}
	var ss []sample
	for i := range uint64(5) {
		ts := 1200 + 100*i
		ss = append(ss, sample{5, ts, 0, wait})
		switch {
		case i < 3:
			ss = append(ss, sample{3, ts, running, work})
		case i == 3:
			ss = append(ss, sample{3, ts, 0, wait})
		}
		if i >= 3 {
			ss = append(ss, sample{4, ts, running, []tachyon.Frame{fMain}})
		}
	}
	return ss
}

func TestWrite(t *testing.T) {
	f := export(t, threeGoroutines(), 100, Options{Name: "demo"})
	if f.Schema != Schema || f.Name != "demo" {
		t.Errorf("schema %q name %q", f.Schema, f.Name)
	}
	names := func(i int) string { return f.Shared.Frames[i].Name }
	type prof struct {
		name       string
		start, end uint64
		samples    []string
		weights    []uint64
	}
	var got []prof
	for _, p := range f.Profiles {
		if p.Type != "sampled" || p.Unit != "microseconds" {
			t.Errorf("profile %q: type %q unit %q", p.Name, p.Type, p.Unit)
		}
		var stacks []string
		for _, s := range p.Samples {
			text := ""
			for j, fi := range s {
				if j > 0 {
					text += ";"
				}
				text += names(fi)
			}
			stacks = append(stacks, text)
		}
		got = append(got, prof{p.Name, p.StartValue, p.EndValue, stacks, p.Weights})
	}
	want := []prof{
		{"goroutine 3", 200, 600, []string{"main.main;main.work", "main.main;main.(*Queue).Pop;[chan receive]"}, []uint64{300, 100}},
		{"goroutine 4", 500, 700, []string{"main.main"}, []uint64{200}},
		{"goroutine 5", 200, 700, []string{"main.main;main.(*Queue).Pop;[chan receive]"}, []uint64{500}},
	}
	if !slices.EqualFunc(got, want, func(a, b prof) bool {
		return a.name == b.name && a.start == b.start && a.end == b.end && slices.Equal(a.samples, b.samples) && slices.Equal(a.weights, b.weights)
	}) {
		t.Errorf("profiles\n got %+v\nwant %+v", got, want)
	}
	if fr := f.Shared.Frames[0]; fr.File == "" && fr.Name != "[chan receive]" {
		t.Errorf("frame 0 %+v has no file", fr)
	}
}

func TestWriteTop(t *testing.T) {
	f := export(t, threeGoroutines(), 100, Options{Top: 1})
	if len(f.Profiles) != 2 || f.Profiles[0].Name != "goroutine 3" || f.Profiles[1].Name != "other goroutines (2)" {
		t.Fatalf("profiles %+v", f.Profiles)
	}
	other := f.Profiles[1]
	if other.StartValue != 0 || other.EndValue != 700 || !slices.Equal(other.Weights, []uint64{200, 500}) {
		t.Errorf("merged profile %+v", other)
	}
	// A single leftover goroutine keeps a profile of its own.
	if f := export(t, threeGoroutines(), 100, Options{Top: 2}); len(f.Profiles) != 3 || f.Profiles[2].Name != "goroutine 5" {
		t.Errorf("top 2: %+v", f.Profiles)
	}
	if f := export(t, threeGoroutines(), 100, Options{Top: -1}); len(f.Profiles) != 3 {
		t.Errorf("top -1: %d profiles", len(f.Profiles))
	}
	// Without an interval, weights count samples.
	f = export(t, threeGoroutines(), 0, Options{})
	if p := f.Profiles[2]; p.Unit != "none" || !slices.Equal(p.Weights, []uint64{5}) {
		t.Errorf("interval 0: %+v", p)
	}
	// A file without samples has one empty profile: speedscope opens a
	// file without profiles on its welcome page, as if none were given.
	if f := export(t, nil, 100, Options{}); len(f.Profiles) != 1 || f.Profiles[0].Name != EmptyProfile || len(f.Profiles[0].Weights) != 0 {
		t.Errorf("empty: %+v", f.Profiles)
	}
}

// TestBusiestFirst: speedscope opens on the first profile, so the
// profiles come busiest first. On a loaded machine a wall profile's
// working goroutines may have no sample on a CPU at all, only runnable
// ones; they still come before os/signal.loop, parked in a system call
// all along with the most samples, and the runtime's GC worker, running,
// comes after the program's goroutines.
func TestBusiestFirst(t *testing.T) {
	loop := []tachyon.Frame{{File: "/go/src/runtime/sigqueue.go", Func: "os/signal.signal_recv", Line: 152},
		{File: "/go/src/os/signal/signal_unix.go", Func: "os/signal.loop", Line: 23}}
	gc := []tachyon.Frame{{File: "/go/src/runtime/mgc.go", Func: "runtime.gcDrain", Line: 1200}, {Func: tachyon.RuntimeRoot}}
	serve := []tachyon.Frame{fWork, {File: "/app/serve.go", Func: "main.serve", Line: 9}}
	var ss []sample
	for tick := range 100 {
		ts := uint64(1000 + tick*100)
		ss = append(ss, sample{5, ts, tachyon.StatusOf(tachyon.Syscall, false), loop})
		if tick < 20 {
			ss = append(ss, sample{7, ts, running, gc})
		}
		if tick%10 == 0 { // a request goroutine: 10 runnable samples
			ss = append(ss, sample{40, ts, tachyon.StatusOf(tachyon.Runnable, false), serve})
		}
		if tick%20 == 0 { // another: 5 runnable, 5 blocked
			ss = append(ss, sample{41, ts, tachyon.StatusOf(tachyon.Runnable, false), serve},
				sample{41, ts + 50, tachyon.StatusOf(tachyon.Blocked, false), append([]tachyon.Frame{fWait}, serve...)})
		}
	}
	f := export(t, ss, 100, Options{Top: -1})
	var names []string
	for _, p := range f.Profiles {
		names = append(names, p.Name)
	}
	if want := []string{"goroutine 40", "goroutine 41", "goroutine 5", "goroutine 7"}; !slices.Equal(names, want) {
		t.Errorf("profiles %q, want %q", names, want)
	}
}
