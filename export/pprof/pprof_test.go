package pprof

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/gotachyon/profiler/internal/proftest"
	"github.com/gotachyon/profiler/tachyon"
)

func roundTrip(t *testing.T, path string, o Options) *profile.Profile {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, proftest.Open(t, path), o); err != nil {
		t.Fatal(err)
	}
	p, err := profile.Parse(&b)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.CheckValid(); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestConvertGoProfile(t *testing.T) {
	p := roundTrip(t, writeProfile(t, goSamples()), Options{})
	if got := p.SampleType[0].Type + "/" + p.SampleType[0].Unit + " " + p.SampleType[1].Type + "/" + p.SampleType[1].Unit; got != "samples/count wall/nanoseconds" {
		t.Errorf("sample types %s", got)
	}
	if p.Period != 100_000 || p.PeriodType.Type != "wall" || p.TimeNanos != 1_000_000 || p.DurationNanos != 600_000 {
		t.Errorf("period %d %v time %d duration %d", p.Period, p.PeriodType, p.TimeNanos, p.DurationNanos)
	}
	type row struct {
		stack, gid, state, reason string
		n, ns                     int64
	}
	var got []row
	for _, s := range p.Sample {
		var stack []string
		for _, l := range slices.Backward(s.Location) {
			if len(l.Line) != 1 {
				t.Fatalf("location %d has %d lines", l.ID, len(l.Line))
			}
			ln := l.Line[0]
			stack = append(stack, ln.Function.Filename+":"+ln.Function.Name+":"+strconv.FormatInt(ln.Line, 10))
		}
		reason := strings.Join(s.Label[LabelWaitReason], ",")
		got = append(got, row{strings.Join(stack, ";"), strings.Join(s.Label[LabelGoroutine], ","), strings.Join(s.Label[LabelState], ","), reason, s.Value[0], s.Value[1]})
	}
	want := []row{
		{"/app/main.go:main.main:12;/app/work.go:main.work:30", "7", "running", "", 4, 400_000},
		{"/app/main.go:main.main:12;/app/q.go:main.(*Queue).Pop:5", "9", "blocked", "chan receive", 4, 400_000},
		{"/app/main.go:main.main:12;/app/work.go:main.work:31", "11", "runnable", "", 4, 400_000},
		{"/app/main.go:main.main:12;/app/work.go:main.work:31", "7", "syscall", "", 1, 100_000},
		{"", "13", "blocked", "", 1, 100_000},
	}
	if !slices.Equal(got, want) {
		t.Errorf("samples\n got %+v\nwant %+v", got, want)
	}
	// main.work at two lines: one function, two locations; the wait-reason
	// frame is gone.
	if len(p.Function) != 3 || len(p.Location) != 4 {
		t.Errorf("%d functions, %d locations; want 3, 4", len(p.Function), len(p.Location))
	}
	for _, fn := range p.Function {
		if strings.HasPrefix(fn.Name, "[") {
			t.Errorf("wait-reason frame %q kept as a function", fn.Name)
		}
	}
	if p := roundTrip(t, writeProfile(t, goSamples()), Options{Type: CPU}); p.SampleType[1].Type != "cpu" {
		t.Errorf("forced cpu: %v", p.SampleType[1])
	}
}

func TestConvertTypeAuto(t *testing.T) {
	cpuOnly := []sample{
		{1, 1000, running, []tachyon.Frame{fWork, fMain}},
		{2, 1000, syscall, []tachyon.Frame{fWork2, fMain}},
	}
	path := writeProfile(t, cpuOnly)
	for o, want := range map[Type]string{Auto: "cpu", Wall: "wall", CPU: "cpu"} {
		p := roundTrip(t, path, Options{Type: o})
		if p.SampleType[1].Type != want || p.PeriodType.Type != want || p.DefaultSampleType != want {
			t.Errorf("type %d: got %v, want %s", o, p.SampleType[1], want)
		}
	}
	if p := roundTrip(t, writeProfile(t, nil), Options{}); p.SampleType[1].Type != "wall" || len(p.Sample) != 0 || p.DurationNanos != 0 {
		t.Errorf("empty profile: %v, %d samples, duration %d", p.SampleType[1], len(p.Sample), p.DurationNanos)
	}
	for _, s := range []string{"wall", "cpu", "auto"} {
		if _, err := ParseType(s); err != nil {
			t.Error(err)
		}
	}
	if _, err := ParseType("alloc"); err == nil {
		t.Error("ParseType(alloc) accepted")
	}
}
