package pprof

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/internal/testing/testutil"
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
	if got := sampleTypes(p); got != "samples/count wall/nanoseconds on_cpu/nanoseconds" || p.DefaultSampleType != "on_cpu" {
		t.Errorf("sample types %s, default %s", got, p.DefaultSampleType)
	}
	if p.Period != 100_000 || p.PeriodType.Type != "wall" || p.TimeNanos != 1_000_000 || p.DurationNanos != 600_000 {
		t.Errorf("period %d %v time %d duration %d", p.Period, p.PeriodType, p.TimeNanos, p.DurationNanos)
	}
	type row struct {
		stack, gid, state, reason string
		n, ns, onCPU              int64
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
		got = append(got, row{strings.Join(stack, ";"), strings.Join(s.Label[LabelGoroutine], ","), strings.Join(s.Label[LabelState], ","), reason, s.Value[0], s.Value[1], s.Value[2]})
	}
	want := []row{
		{"/app/main.go:main.main:12;/app/work.go:main.work:30", "7", "running", "", 4, 400_000, 400_000},
		{"/app/main.go:main.main:12;/app/q.go:main.(*Queue).Pop:5", "9", "blocked", "chan receive", 4, 400_000, 0},
		{"/app/main.go:main.main:12;/app/work.go:main.work:31", "11", "runnable", "", 4, 400_000, 0},
		{"/app/main.go:main.main:12;/app/work.go:main.work:31", "7", "syscall", "", 1, 100_000, 0}, // in the kernel: not on_cpu,
		{"", "13", "blocked", "", 1, 100_000, 0},
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
	// Forced to CPU, a wall profile keeps its on-CPU samples only.
	p = roundTrip(t, writeProfile(t, goSamples()), Options{Type: CPU})
	var n, ns int64
	for _, s := range p.Sample {
		n, ns = n+s.Value[0], ns+s.Value[1]
	}
	if got := sampleTypes(p); got != "samples/count cpu/nanoseconds" || n != 4 || ns != 400_000 {
		t.Errorf("forced cpu: %s, %d samples, %d ns; want the 4 running, not the syscall", got, n, ns)
	}
}

// sampleTypes returns p's sample types as "type/unit ...".
func sampleTypes(p *profile.Profile) string {
	var ts []string
	for _, st := range p.SampleType {
		ts = append(ts, st.Type+"/"+st.Unit)
	}
	return strings.Join(ts, " ")
}

func TestConvertTypeAuto(t *testing.T) {
	cpuOnly := []sample{
		{1, 1000, running, []tachyon.Frame{fWork, fMain}},
		{2, 1000, running, []tachyon.Frame{fWork2, fMain}},
	}
	path := writeProfile(t, cpuOnly)
	for o, want := range map[Type][3]string{Auto: {"cpu", "cpu", "cpu"}, Wall: {"wall", "wall", "on_cpu"}, CPU: {"cpu", "cpu", "cpu"}} {
		p := roundTrip(t, path, Options{Type: o})
		if got := [3]string{p.SampleType[1].Type, p.PeriodType.Type, p.DefaultSampleType}; got != want {
			t.Errorf("type %d: got (value, period, default) %v, want %v", o, got, want)
		}
	}
	// A system call is off the CPU, in the old encoding (OnCPU|Unknown)
	// too: with one, the profile is a wall profile.
	for _, sc := range []tachyon.Status{syscall, oldSyscall} {
		withSyscall := append(slices.Clone(cpuOnly), sample{2, 1100, sc, []tachyon.Frame{fWork2, fMain}})
		p := roundTrip(t, writeProfile(t, withSyscall), Options{})
		if got := [3]string{p.SampleType[1].Type, p.PeriodType.Type, p.DefaultSampleType}; got != [3]string{"wall", "wall", "on_cpu"} {
			t.Errorf("status %#x: got (value, period, default) %v, want a wall profile", sc, got)
		}
	}
	// Without samples on a CPU, the default is wall: on_cpu would be empty.
	if p := roundTrip(t, writeProfile(t, nil), Options{}); p.SampleType[1].Type != "wall" || p.DefaultSampleType != "wall" || len(p.Sample) != 0 || p.DurationNanos != 0 {
		t.Errorf("empty profile: %v, default %s, %d samples, duration %d", p.SampleType[1], p.DefaultSampleType, len(p.Sample), p.DurationNanos)
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

// TestNoGoroutineLabel converts the demo's wall profile with a negative
// MaxGoroutines: no sample has a goroutine label, no two samples have the
// same stack and labels, and the totals of every value are the file's.
func TestNoGoroutineLabel(t *testing.T) {
	f := proftest.Open(t, filepath.Join(testutil.RepoRoot(), "testdata", "demo", "wall.bin"))
	all, err := Convert(f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	none, err := Convert(f, Options{MaxGoroutines: -1})
	if err != nil {
		t.Fatal(err)
	}
	sum := func(p *profile.Profile) []int64 {
		tot := make([]int64, len(p.SampleType))
		for _, s := range p.Sample {
			for i, v := range s.Value {
				tot[i] += v
			}
		}
		return tot
	}
	if a, n := sum(all), sum(none); !slices.Equal(a, n) {
		t.Errorf("totals %v without goroutine labels, %v with", n, a)
	}
	seen := map[string]bool{}
	for _, s := range none.Sample {
		if _, ok := s.Label[LabelGoroutine]; ok {
			t.Fatalf("a goroutine label: %v", s.Label)
		}
		k := fmt.Sprint(s.Label, len(s.Location))
		for _, l := range s.Location {
			k += fmt.Sprint(" ", l.ID)
		}
		if seen[k] {
			t.Errorf("two samples of %s", k)
		}
		seen[k] = true
	}
	if len(none.Sample) >= len(all.Sample) {
		t.Errorf("%d samples without goroutine labels, %d with: nothing folded", len(none.Sample), len(all.Sample))
	}
}
